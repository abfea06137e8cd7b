"""Lesson 00's training schedule: which steps, learning rate and warmup leave the plateau on every seed.

Lesson 00 trains a `sincos2d` ViT on the odd-one-out task; for a few hundred steps it can sit at
chance before it finds the task. This script trains the lesson's model and data for many seeds under
each candidate schedule (the seeds' runs side by side with `fit_ensemble`, each member as its own
`fit` would run it, to float32 rounding) and records each run's held-out accuracy, one JSON line per
schedule and seed in `benchmarks/lesson00_schedule.jsonl` (a re-run skips what is recorded).

    python benchmarks/lesson00_schedule.py                               # the candidates below, seeds 0-47
    python benchmarks/lesson00_schedule.py --steps 600 --lr 5e-3 --warmup 60 --seeds 0-23
    python benchmarks/lesson00_schedule.py --table                       # per schedule: worst seed, time
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
CANDIDATES = [  # (steps, lr, warmup): shorter runs than the lesson's 1,600 at 3e-3 (warmup 80)
    (600, 5e-3, 100),
    (600, 3e-3, 30),
    (800, 5e-3, 100),
    (800, 3e-3, 40),
]
GROUP = 8  # seeds trained side by side


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


def run(steps: int, lr: float, warmup: int, seeds: list[int]) -> None:
    done = {r["seed"] for r in recorded() if (r["steps"], r["lr"], r["warmup"]) == (steps, lr, warmup)}
    todo = [s for s in seeds if s not in done]
    for i in range(0, len(todo), GROUP):
        group = todo[i : i + GROUP]
        models = []
        for seed in group:  # as the lesson draws them: the model after torch.manual_seed(SEED)
            torch.manual_seed(seed)
            models.append(ViT(CONFIG))
        trains = [odd_one_out(4096, image_size=24, seed=s) for s in group]
        start = time.perf_counter()
        fit_ensemble(models, trains, seeds=group, steps=steps, lr=lr, warmup=warmup, progress=False)
        seconds = (time.perf_counter() - start) / len(group)
        with RECORDS.open("a") as f:
            for seed, model in zip(group, models, strict=True):
                accuracy = evaluate(model, odd_one_out(1000, image_size=24, seed=seed + 1))
                record = {"steps": steps, "lr": lr, "warmup": warmup, "seed": seed, "accuracy": accuracy,
                          "seconds_per_run": round(seconds, 1),
                          "threads": torch.get_num_threads()}  # fmt: skip
                f.write(json.dumps(record) + "\n")
                print(f"steps {steps} lr {lr:g} warmup {warmup} seed {seed}: {accuracy:.3f}", flush=True)


def table() -> None:
    runs = recorded()
    print("| steps | lr | warmup | seeds | worst | seeds under 0.5 | median | s per run (ensemble) |")
    print("|---|---|---|---|---|---|---|---|")
    for key in dict.fromkeys((r["steps"], r["lr"], r["warmup"]) for r in runs):
        mine = [r for r in runs if (r["steps"], r["lr"], r["warmup"]) == key]
        acc = [r["accuracy"] for r in mine]
        low = sum(a < 0.5 for a in acc)
        seconds = statistics.median(r["seconds_per_run"] for r in mine)
        print(f"| {key[0]} | {key[1]:g} | {key[2]} | {len(mine)} | {min(acc):.3f} | {low} | "
              f"{statistics.median(acc):.3f} | {seconds:.0f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int)
    parser.add_argument("--lr", type=float)
    parser.add_argument("--warmup", type=int)
    parser.add_argument("--seeds", default="0-47", help="a range (0-47) or a list (3,5,9)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--table", action="store_true", help="only print the table of what is recorded")
    args = parser.parse_args()
    if not args.table:
        given = (args.steps, args.lr, args.warmup)
        if any(v is not None for v in given) and not all(v is not None for v in given):
            sys.exit("give --steps, --lr and --warmup together, or none of them for the candidates")
        if args.threads < 1:
            sys.exit(f"--threads {args.threads}: use 1 or more")
        torch.set_num_threads(args.threads)
        for steps, lr, warmup in [given] if given[0] is not None else CANDIDATES:
            run(steps, lr, warmup, seeds_of(args.seeds))
    table()


if __name__ == "__main__":
    main()
