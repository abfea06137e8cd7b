"""How fast `fit` trains on a laptop-class CPU: steps per second of the default configs, and wall
time to 95% held-out accuracy on the `relation` task (is the circle left of, right of, above or
below the square?), a task that needs position.

    python benchmarks/train_speed.py              # 2 threads, as on a 2-core laptop or CI
    python benchmarks/train_speed.py --threads 4

Time to 95% is measured from the start of `fit` (evaluation every 50 steps included; generating
the data is reported apart). An encoding that does not reach 95% within --max-steps says so.
"""

from __future__ import annotations

import argparse
import datetime
import time

import torch

from minivit import ViT, ViTConfig
from minivit.data import make_task
from minivit.experiments import cpu_name
from minivit.train import fit


def steps_per_second(config: ViTConfig, steps: int, batch: int) -> float:
    data = make_task("odd_one_out", 2048, image_size=config.image_size[0])
    model = ViT(config)
    fit(model, data, steps=5, batch_size=batch, progress=False)  # warm-up
    t = time.perf_counter()
    fit(model, data, steps=steps, batch_size=batch, progress=False)
    return steps / (time.perf_counter() - t)


def time_to(
    target: float, position: str, train, test, max_steps: int, lr: float
) -> tuple[float | None, int | None, float]:
    torch.manual_seed(0)
    model = ViT(ViTConfig(patch_size=8, num_classes=4, position=position))
    hit: dict[str, float] = {}
    start = time.perf_counter()

    def watch(step, model, history):
        if (
            "t" not in hit
            and history.eval_step
            and history.eval_step[-1] == step
            and history.eval_accuracy[-1] >= target
        ):
            hit["t"], hit["step"] = time.perf_counter() - start, step
            raise StopIteration

    try:
        h = fit(
            model,
            train,
            steps=max_steps,
            lr=lr,
            eval_data=test,
            eval_every=50,
            progress=False,
            callback=watch,
        )
        best = max(h.eval_accuracy)
    except StopIteration:
        best = target
    return hit.get("t"), hit.get("step"), best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-steps", type=int, default=1500)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument(
        "--encodings",
        nargs="*",
        default=["sincos2d", "rope-axial", "rope-mixed", "learned", "relative", "peg", "alibi2d", "none"],
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# {datetime.date.today()}  {cpu_name()}, {args.threads} thread(s)  torch {torch.__version__}")
    print(
        f"# python benchmarks/train_speed.py --threads {args.threads} --max-steps {args.max_steps} "
        f"--lr {args.lr}"
    )

    print("\n| config | tokens | batch | steps/s | images/s |\n|---|---|---|---|---|")
    for name, cfg in (
        ("default (24px, patch 4, width 64, depth 2)", ViTConfig()),
        ("lessons (24px, patch 8, width 64, depth 2)", ViTConfig(patch_size=8)),
    ):
        sps = steps_per_second(cfg, 100, 128)
        n = cfg.grid[0] * cfg.grid[1]
        print(f"| {name} | {n} | 128 | {sps:.1f} | {128 * sps:.0f} |")

    t = time.perf_counter()
    train, test = make_task("relation", 4096, seed=0), make_task("relation", 1000, seed=1)
    secs = time.perf_counter() - t
    print(f"\nrelation task, 4096 training + 1000 test images at 24px: generated in {secs:.1f} s")
    print("\n| encoding | time to 95% (s) | steps | best held-out accuracy |\n|---|---|---|---|")
    for position in args.encodings:
        secs, step, best = time_to(0.95, position, train, test, args.max_steps, args.lr)
        if secs is None:
            print(f"| {position} | not reached in {args.max_steps} steps | - | {best:.3f} |")
        else:
            print(f"| {position} | {secs:.1f} | {step} | >= 0.95 |")


if __name__ == "__main__":
    main()
