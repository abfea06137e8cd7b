"""python -m minivit.experiments.init_scale: the σ sweep from the command line.

    python -m minivit.experiments.init_scale --setting reference-64 --seeds 3 --sigmas 0.1 2.0 \
        --evals 16 --out minivit/experiments/recorded/init_scale.json   # lesson 07 (35 minutes, 2 cores)
    python -m minivit.experiments.init_scale --setting reference-64-reach --seeds 3 --sigmas 0.1 2.0 \
        --evals 16 --no-sinusoid --out minivit/experiments/recorded/init_scale_reach.json  # 100x reach
    python -m minivit.experiments.init_scale --setting reference-100 --seeds 3 --sigmas 0.1 2.0 \
        --evals 16 --no-sinusoid --out minivit/experiments/recorded/init_scale_reference.json
                                                    # the paper's width (10 minutes a run on 2 cores)
    python -m minivit.experiments.init_scale --setting reference --device cuda --seeds 15 \
        --sigmas 0.1 0.5 1.0 1.5 2.0 --out init_scale_full.json  # the reference run, whole

The sweep file is written after every run, and a re-run trains only what it does not hold yet
(--fresh starts it again). Without --out it is init_scale.json in the current folder: the recorded
results the lessons read (minivit/experiments/recorded/) change only where --out names them.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, replace
from typing import Any

import torch

from minivit.data import lst
from minivit.experiments import (
    check_options,
    check_result_out,
    provenance,
    read_result,
    resumable,
    write_result,
)
from minivit.experiments.init_scale.runs import summarize, sweep
from minivit.experiments.init_scale.setting import PUBLISHED, SETTINGS, SIGMAS, label
from minivit.train import pick_device

DEFAULT_OUT = "init_scale.json"  # in the current folder, never the recorded result unless --out names it


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m minivit.experiments.init_scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--setting", choices=sorted(SETTINGS), default="reference-64")
    ap.add_argument(
        "--puzzles",
        choices=("generated", "reference"),
        help="override the setting's puzzles: generated ones, or Ito et al.'s (the copy inside minivit)",
    )
    ap.add_argument(
        "--reference-folder",
        metavar="DIR",
        help="read the reference's puzzles from DIR (its processed_data folder: "
        f"{', '.join(lst.REFERENCE_FILES)} and {lst.STUDY_FILE}) instead of minivit's copy",
    )
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sigmas", type=float, nargs="+", default=list(SIGMAS))
    ap.add_argument("--steps", type=int, help="override the setting's steps")
    ap.add_argument("--lr", type=float, help="override the setting's learning rate")
    ap.add_argument("--optimizer", choices=("adamw", "sgd"), help="override the setting's optimizer")
    ap.add_argument(
        "--evals",
        type=int,
        default=0,
        help="score every set at this many points of each run (runs then train one by one)",
    )
    ap.add_argument(
        "--no-sinusoid",
        action="store_true",
        help="train only the learned tables: no 2-D sinusoid, no attention compared with it",
    )
    ap.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help="the result, written after every run; runs it already holds are kept, not trained again "
        f"(default: {DEFAULT_OUT} in the current folder; the recorded results change only when named here)",
    )
    ap.add_argument("--fresh", action="store_true", help="start again, replacing what --out holds")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    check_options(ap, args)  # before anything is trained or written
    torch.set_num_threads(args.threads)
    setting = SETTINGS[args.setting]
    names = ("steps", "lr", "optimizer", "puzzles")
    setting = replace(setting, **{k: getattr(args, k) for k in names if getattr(args, k) is not None})
    if args.reference_folder and setting.puzzles != "reference":
        ap.error(
            f"--reference-folder is for the reference's puzzles; add --puzzles reference to {args.setting}"
        )
    device = pick_device(args.device)
    try:
        before = None
        if not args.fresh:  # a file from before a Setting field was removed still carries on
            before = resumable(args.out, setting, restart="--fresh to start it again", keep_removed=True)
        else:  # what --out holds is replaced, at the end of the first run: it must be writable now
            check_result_out(args.out)
    except ValueError as err:
        ap.error(str(err))
    done = before["runs"] if before else []
    earlier = before.get("seconds", 0) if done else 0
    t0 = time.perf_counter()
    result: dict[str, Any] = {}

    def save(runs: list[dict[str, Any]]) -> None:
        result.update(
            {
                "provenance": provenance("minivit.experiments.init_scale", argv, device),
                "setting_name": args.setting,
                "setting": asdict(setting),
                "puzzles": setting.puzzles,
                "seconds": round(earlier + time.perf_counter() - t0, 1),
                "published": PUBLISHED,
                "summary": summarize(runs),
                "runs": runs,
            }
        )
        write_result(result, args.out)

    runs = sweep(
        setting,
        seeds=args.seeds,
        sigmas=tuple(args.sigmas),
        puzzles=args.reference_folder,
        device=device,
        progress=not args.quiet,
        done=done,
        save=save,
        evals=args.evals,
        sinusoid=not args.no_sinusoid,
    )
    if result:
        print(f"wrote {args.out}")
    else:  # nothing left to train
        print(f"{args.out} already holds every run asked for ({len(runs)} runs); --fresh starts again")
        result = read_result(args.out)
    for encoding, s in result["summary"].items():
        dead = f"  ({s['dead']} never trained, left out)" if s.get("dead") else ""
        if not s["seeds"]:
            print(f"{label(encoding):>14}: no run trained{dead}")
            continue
        print(
            f"{label(encoding):>14}: train {s['train']:.3f}  test {s['test']:.3f}  "
            f"apart {s.get('apart', float('nan')):.3f} ± {s.get('apart_std', float('nan')):.3f}  "
            + (f"agreement {s['agreement_with_sincos']:.3f}" if "agreement_with_sincos" in s else "")
            + dead
        )
