"""Time to accuracy on a GPU: wall time, data loading included, until a ViT reaches a target test
accuracy on CIFAR-10; with the throughput it sustained (images/s, TFLOP/s, % of the GPU's bf16 peak).

    python benchmarks/time_to_accuracy.py --device cuda                         # CIFAR-10, >= 90%
    python benchmarks/time_to_accuracy.py --device cuda --encodings sincos2d rope-axial --compile
    python benchmarks/time_to_accuracy.py --setting stand-in --target 0.8       # the CPU stand-in

The run uses a setting of `minivit.experiments.capstone` (default `cifar10-long`: DeiT-Tiny's width,
6 blocks, 100 epochs of the DeiT recipe) and stops as soon as an evaluation reaches the target. The
clock starts before the data is loaded and includes compilation and every evaluation; images/s and
TFLOP/s count training steps only. CIFAR-10 must be on disk (--data-root) or downloadable.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

import torch

from minivit.checks import number_arg, whole_arg
from minivit.data import DatasetUnavailable
from minivit.evaluate import evaluate
from minivit.experiments import capstone, cpu_name
from minivit.model import ViT
from minivit.train import autocast_dtype, fit, pick_device, seed_everything

# dense bf16 (fp16 where the GPU has no bf16) tensor-core peaks, TFLOP/s, from the vendors' sheets;
# the first name found in the device's name wins
PEAK_TFLOPS = {
    "H100 PCIe": 756,
    "H100 NVL": 835,
    "H100": 989,  # SXM ("NVIDIA H100 80GB HBM3")
    "H200": 989,
    "GH200": 989,
    "A100": 312,
    "L40S": 362,
    "L4": 121,
    "A10G": 70,
    "A10": 125,
    "RTX 4090": 165,
    "V100": 125,  # fp16
    "T4": 65,  # fp16
}


def peak_tflops(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    return next((peak for key, peak in PEAK_TFLOPS.items() if key in name), None)


class _Reached(Exception):
    pass


def time_to_accuracy(
    setting: capstone.Setting,
    position: str,
    *,
    target: float,
    evals_per_epoch: float,
    device: torch.device,
    compile: bool,
    root: str,
    seed: int = 0,
) -> dict:
    start = time.perf_counter()
    data = capstone.load(setting, root=root)
    seed_everything(seed)
    config = setting.config_for(data, position)
    model = ViT(config)
    steps = setting.steps(len(data.train))
    every = max(1, round(len(data.train) / setting.batch_size / evals_per_epoch))
    seen: dict = {"eval_seconds": 0.0, "accuracy": [], "reached": None}

    def watch(step, model, history):
        if step % every and step != steps:
            return
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t = time.perf_counter()
        acc = evaluate(model, data.test)
        seen["eval_seconds"] += time.perf_counter() - t
        seen["accuracy"].append((step, acc))
        if acc >= target:
            seen["reached"] = (time.perf_counter() - start, step)
            raise _Reached

    t_fit = time.perf_counter()
    try:
        fit(
            model,
            data.train,
            **setting.fit_options(len(data.train)),
            compile=compile,
            seed=seed,
            device=device,
            desc=position,
            callback=watch,
        )
    except _Reached:
        pass
    wall = time.perf_counter() - start
    done = seen["reached"][1] if seen["reached"] else steps
    train_seconds = time.perf_counter() - t_fit - seen["eval_seconds"]
    images = done * setting.batch_size
    tflops = capstone.train_flops(config) * images / train_seconds / 1e12
    peak = peak_tflops(device)
    return {
        "encoding": position,
        "reached": seen["reached"] is not None,
        "seconds": seen["reached"][0] if seen["reached"] else wall,
        "steps": done,
        "epochs": done * setting.batch_size / len(data.train),
        "best": max(a for _, a in seen["accuracy"]),
        "images_per_second": images / train_seconds,
        "tflops": tflops,
        "peak_share": tflops / peak if peak else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--setting", default="cifar10-long", choices=list(capstone.SETTINGS))
    parser.add_argument("--encodings", nargs="+", default=["sincos2d"], metavar="NAME")
    parser.add_argument(
        "--target", type=number_arg(0, 1, False, True), default=0.9, help="test accuracy to reach"
    )
    parser.add_argument(
        "--evals-per-epoch", type=number_arg(0, low_ok=False), default=1.0, help="how often to evaluate"
    )
    parser.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model (clock includes it)")
    parser.add_argument("--data-root", default="data", help="where CIFAR-10 is (or is downloaded)")
    parser.add_argument("--threads", type=whole_arg(1, os.cpu_count() or 1), help="CPU threads")
    args = parser.parse_args(argv)
    try:
        return _run(args, argv)
    except DatasetUnavailable as err:  # CIFAR-10 absent and no network: one line, not a traceback
        print(f"time_to_accuracy.py: error: {err}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, argv: list[str] | None) -> int:
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    setting = capstone.SETTINGS[args.setting]
    hardware = torch.cuda.get_device_name(device) if device.type == "cuda" else f"{cpu_name()} (CPU)"
    dtype = autocast_dtype(device)
    print(f"{datetime.date.today()}, {hardware}, PyTorch {torch.__version__}, {dtype or 'float32'}")
    print(f"`python benchmarks/time_to_accuracy.py {' '.join(argv if argv is not None else sys.argv[1:])}`")
    print(f"{setting.description}; target {args.target:.0%} test accuracy\n")
    rows = [
        time_to_accuracy(
            setting,
            p,
            target=args.target,
            evals_per_epoch=args.evals_per_epoch,
            device=device,
            compile=args.compile,
            root=args.data_root,
        )
        for p in args.encodings
    ]
    print("| encoding | time to target (s) | epochs | best accuracy | images/s | TFLOP/s | % of peak |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        when = f"{r['seconds']:.0f}" if r["reached"] else f"not reached ({r['seconds']:.0f} s run)"
        share = f"{100 * r['peak_share']:.1f}" if r["peak_share"] is not None else "-"
        print(
            f"| {r['encoding']} | {when} | {r['epochs']:.1f} | {r['best']:.3f} | "
            f"{r['images_per_second']:,.0f} | {r['tflops']:.2f} | {share} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
