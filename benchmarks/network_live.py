"""Lesson 10's live claims over many seeds, more cheaply than the margin sweep: per seed, the network
that seed draws and the lesson's two live runs (σ = 0.1 and σ = 2, `train_one` exactly as the lesson
calls it, one thread), and the values its claims test. One JSON line per seed, written as each ends;
a re-run skips the seeds recorded.

    python benchmarks/network_live.py --seeds 400-479              # into benchmarks/network_live.jsonl
    python benchmarks/network_live.py --seeds 400-479 --table       # the distributions only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

RECORDS = Path(__file__).resolve().parent / "network_live.jsonl"
MEASURES = {  # the lesson's claim on each value
    "network": "nodes of one module move together more than nodes of two (within − between)",
    "small_over_null": "σ = 0.1 table: within − between above its null's 95th percentile",
    "large_over_null": "σ = 2 table: within − between above its null's 95th percentile",
    "small_minus_large": "σ = 0.1 table's within − between minus σ = 2's",
    "large_update_over_null": "what training added to σ = 2: within − between above its null's 95th pct.",
}


def measure(seed: int) -> dict:
    os.environ["MINIVIT_SEED"], os.environ["MINIVIT_THREADS"] = str(seed), "1"
    from minivit import lesson
    from minivit.data.network import module_correlations
    from minivit.experiments import network as experiment

    seed = lesson.setup()
    setting = experiment.SETTINGS["lesson"]
    data = experiment.make_data(setting, seed=seed)
    within, between = module_correlations(data.network)
    live = {
        arm: experiment.train_one(arm, seed, setting, data, every=100, progress=False)[1]
        for arm in ("0.1", "2.0")
    }
    small, large = live["0.1"]["recovery"], live["2.0"]["recovery"]
    update = live["2.0"]["update_recovery"]
    return {
        "seed": seed,
        "network": within - between,
        "small_over_null": small["within_between"] - small["within_between_null"][1],
        "large_over_null": large["within_between"] - large["within_between_null"][1],
        "small_minus_large": small["within_between"] - large["within_between"],
        "large_update_over_null": update["within_between"] - update["within_between_null"][1],
    }


def seeds_of(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--seeds", type=seeds_of, default=seeds_of("400-479"), help="a seed or a range, 400-479"
    )
    parser.add_argument("--table", action="store_true", help="only print the distributions recorded")
    args = parser.parse_args()
    if not args.table:
        from writable import check_writable

        check_writable(parser, RECORDS, "the records file")
    records = [json.loads(line) for line in RECORDS.read_text().splitlines()] if RECORDS.exists() else []
    done = {r["seed"] for r in records}
    for seed in [] if args.table else [s for s in args.seeds if s not in done]:
        record = measure(seed)
        with RECORDS.open("a") as f:
            f.write(json.dumps(record) + "\n")
        records.append(record)
        print(record, flush=True)
    print(f"{len(records)} seeds")
    for key, what in MEASURES.items():
        values = sorted(r[key] for r in records)
        low, mid, high = values[0], statistics.median(values), values[-1]
        print(f"{what}: lowest {low:.3f}, median {mid:.3f}, highest {high:.3f}")


if __name__ == "__main__":
    main()
