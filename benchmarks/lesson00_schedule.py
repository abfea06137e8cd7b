"""Lesson 00's training schedule: which steps, learning rate and warmup leave the plateau on every seed.

Lesson 00 trains a `sincos2d` ViT on the odd-one-out task; for a few hundred steps it can sit at
chance before it finds the task. This script trains the lesson's model and data for many seeds under
each candidate schedule (the seeds' runs side by side with `fit_ensemble`, each member as its own
`fit` would run it, to float32 rounding) and records each run's held-out accuracy, one JSON line per
schedule and seed in `benchmarks/lesson00_schedule.jsonl` (a re-run skips what is recorded).

    python benchmarks/lesson00_schedule.py                               # the candidates below, seeds 0-47
    python benchmarks/lesson00_schedule.py --steps 600 --lr 5e-3 --warmup 60 --batch-size 64 --seeds 0-23
    python benchmarks/lesson00_schedule.py --device cuda --group 64 --seeds 0-63   # many seeds on a GPU
    python benchmarks/lesson00_schedule.py --device cuda --group 256 --seeds 0-255 --one-dataset
    python benchmarks/lesson00_schedule.py --table                       # per schedule: worst seed, time

On a GPU the runs are in float32 too, but their rounding differs from the CPU's, so a seed's run is
not the lesson's run with that seed: a GPU search measures how often a schedule stays on the plateau,
and the lesson's own sweep (`benchmarks/claims.py`) checks the chosen one seed by seed. With
`--one-dataset` every seed trains on the lesson's seed-0 images (and is scored on its seed-1 test
set): the seed then draws the weights and the batch order only, and hundreds of runs need one dataset.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from minivit import ViT, ViTConfig
from minivit.data import odd_one_out
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate

RECORDS = Path(__file__).resolve().parent / "lesson00_schedule.jsonl"
CONFIG = ViTConfig(image_size=24, patch_size=8, num_classes=9, dim=64, depth=2, heads=2, position="sincos2d")
CANDIDATES = [  # (steps, lr, warmup, batch size): the lesson's 1,600 at 3e-3 (warmup 80) and shorter runs
    (1600, 3e-3, 80, 128),
    (800, 3e-3, 40, 128),
    (800, 5e-3, 100, 128),
    (600, 5e-3, 100, 128),
    (800, 8e-3, 100, 128),
    (1600, 3e-3, 80, 64),
    (1600, 5e-3, 100, 64),
    (1200, 3e-3, 60, 64),
    (1200, 5e-3, 100, 64),
    (1000, 5e-3, 100, 64),
    (2400, 3e-3, 120, 32),
    (2400, 2e-3, 120, 32),
]


def seeds_of(text: str) -> list[int]:
    """'0-47' or '3,5,9' -> the seeds."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-"))
            return list(range(low, high + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        sys.exit(f"--seeds {text!r}: write a range (0-47) or a list (3,5,9)")


def recorded() -> list[dict]:
    if not RECORDS.exists():
        return []
    return [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]


def key(r: dict) -> tuple:
    """A record's schedule, where it ran and its data (records before the batch size varied used 128,
    on a CPU, each seed its own data)."""
    return (
        r["steps"],
        r["lr"],
        r["warmup"],
        r.get("batch_size", 128),
        r.get("device", "cpu"),
        r.get("data", "seed"),
    )


def run(
    steps: int,
    lr: float,
    warmup: int,
    batch_size: int,
    seeds: list[int],
    device: str,
    group_size: int,
    data: str,
) -> None:
    done = {r["seed"] for r in recorded() if key(r) == (steps, lr, warmup, batch_size, device, data)}
    one = (odd_one_out(4096, image_size=24, seed=0), odd_one_out(1000, image_size=24, seed=1))
    todo = [s for s in seeds if s not in done]
    for i in range(0, len(todo), group_size):
        group = todo[i : i + group_size]
        models = []
        for seed in group:  # as the lesson draws them: the model after torch.manual_seed(SEED)
            torch.manual_seed(seed)
            models.append(ViT(CONFIG))
        trains = one[0] if data == "one" else [odd_one_out(4096, image_size=24, seed=s) for s in group]
        start = time.perf_counter()
        fit_ensemble(models, trains, seeds=group, steps=steps, batch_size=batch_size, lr=lr, warmup=warmup,
                     precision="fp32", device=device, progress=False)  # fmt: skip
        seconds = (time.perf_counter() - start) / len(group)
        accuracies = [
            evaluate(model, one[1] if data == "one" else odd_one_out(1000, image_size=24, seed=seed + 1))
            for seed, model in zip(group, models, strict=True)
        ]
        with RECORDS.open("a") as f:
            for seed, accuracy in zip(group, accuracies, strict=True):
                record = {"steps": steps, "lr": lr, "warmup": warmup, "batch_size": batch_size,
                          "device": device, "data": data, "seed": seed, "accuracy": accuracy,
                          "seconds_per_run": round(seconds, 1),
                          "threads": torch.get_num_threads()}  # fmt: skip
                f.write(json.dumps(record) + "\n")
        print(f"steps {steps} lr {lr:g} warmup {warmup} batch {batch_size} on {device}, seeds {group[0]}-"
              f"{group[-1]}: worst {min(accuracies):.3f}", flush=True)  # fmt: skip


def table() -> None:
    runs = recorded()
    print("| steps | lr | warmup | batch | on | data | seeds | worst | under 0.5 | median | s per run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in dict.fromkeys(key(r) for r in runs):
        mine = [r for r in runs if key(r) == k]
        acc = [r["accuracy"] for r in mine]
        low = sum(a < 0.5 for a in acc)
        seconds = statistics.median(r["seconds_per_run"] for r in mine)
        print(f"| {k[0]} | {k[1]:g} | {k[2]} | {k[3]} | {k[4]} | {k[5]} | {len(mine)} | {min(acc):.3f} | "
              f"{low} | {statistics.median(acc):.3f} | {seconds:.1f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int)
    parser.add_argument("--lr", type=float)
    parser.add_argument("--warmup", type=int)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--device", default="cpu", help="cpu (as the lesson) or cuda (many seeds at once)")
    parser.add_argument("--group", type=int, default=8, help="seeds trained side by side (default 8)")
    parser.add_argument(
        "--one-dataset", action="store_true", help="every seed on the seed-0 data (see above)"
    )
    parser.add_argument("--seeds", default="0-47", help="a range (0-47) or a list (3,5,9)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--table", action="store_true", help="only print the table of what is recorded")
    args = parser.parse_args()
    if not args.table:
        given = (args.steps, args.lr, args.warmup)
        if any(v is not None for v in given) and not all(v is not None for v in given):
            sys.exit("give --steps, --lr and --warmup together, or none of them for the candidates")
        if args.threads < 1 or args.group < 1 or args.batch_size < 1:
            sys.exit("--threads, --group and --batch-size: use 1 or more")
        if args.device.startswith("cuda") and not torch.cuda.is_available():
            sys.exit(f"--device {args.device}: no CUDA GPU here; leave --device out to train on the CPU")
        from writable import check_writable

        check_writable(parser, RECORDS, "the records file")
        torch.set_num_threads(args.threads)
        chosen = [(*given, args.batch_size)] if given[0] is not None else CANDIDATES
        for steps, lr, warmup, batch_size in chosen:
            data = "one" if args.one_dataset else "seed"
            run(steps, lr, warmup, batch_size, seeds_of(args.seeds), args.device, args.group, data)
    table()


if __name__ == "__main__":
    main()
