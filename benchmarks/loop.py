"""What `fit` costs over a bare PyTorch loop, and what training K models as one buys.

    python loop.py                  # CPU: the Latin-square model, width 32 (lessons) and 160 (paper)
    python loop.py --device cuda    # a GPU (bf16 autocast for all three loops)
    python loop.py --compile        # also the ensemble under torch.compile (compiled once, untimed)

Rows, each in steps/s (for an ensemble: model-steps/s, K models x steps / s):
  bare      the loop anyone would write: data on the device, a shuffled order, forward, loss,
            backward, AdamW; nothing read back
  fit       minivit.train.fit with the same model, batch, optimizer and learning rate (no progress
            bar, no evaluation, no checkpoint)
  K x fit   K runs of fit one after another (the same throughput as `fit`, measured)
  ensemble  minivit.ensemble.fit_ensemble on the same K models at once
  compiled  the same with compile=True (with --compile)

Every row is the median of `--rounds` rounds, the loops interleaved in a new order each round, so
that a machine that slows down slows all of them alike.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import torch
import torch.nn.functional as F

from minivit.checks import whole_arg
from minivit.config import preset
from minivit.data import lst
from minivit.ensemble import fit_ensemble
from minivit.model import ViT
from minivit.train import autocast_dtype, fit, pick_device


def bare(model: ViT, images, labels, steps: int, batch_size: int, lr: float, device) -> None:
    dtype = autocast_dtype(device)
    autocast = torch.autocast(device.type, dtype=dtype or torch.float32, enabled=dtype is not None)
    opt = torch.optim.AdamW(model.parameter_groups(0.0), lr=lr, weight_decay=0.0)
    order, cursor = torch.randperm(len(images), device=device), 0
    for _ in range(steps):
        if cursor + batch_size > len(order):
            order, cursor = torch.randperm(len(images), device=device), 0
        idx = order[cursor : cursor + batch_size]
        cursor += batch_size
        with autocast:
            loss = F.cross_entropy(model(images[idx]).float(), labels[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


def timed(run, device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    run()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def measure(
    dim: int, batch_size: int, k: int, steps: int, rounds: int, device, compile: bool = False
) -> dict[str, float]:
    config = preset("lst").with_(dim=dim, depth=4)
    train = lst.splits(4096, 10, 10, seed=0)["train"]
    images, labels = (t.to(device) for t in train.tensors[:2])
    kw = dict(steps=steps, batch_size=batch_size, lr=3e-4, weight_decay=0.0, warmup=0, schedule="constant")
    kw |= dict(grad_clip=None, device=device, progress=False)
    models = [ViT(config).to(device) for _ in range(k)]
    runs = {
        "bare": lambda: bare(models[0], images, labels, steps, batch_size, 3e-4, device),
        "fit": lambda: fit(models[0], train, **kw),
        f"{k} x fit": lambda: [fit(m, train, seed=s, **kw) for s, m in enumerate(models)],
        f"ensemble of {k}": lambda: fit_ensemble(models, train, seeds=range(k), **kw),
    }
    per_run = {"bare": 1, "fit": 1, f"{k} x fit": k, f"ensemble of {k}": k}
    if compile:
        runs["compiled"] = lambda: fit_ensemble(models, train, seeds=range(k), compile=True, **kw)
        per_run["compiled"] = k
    for run in runs.values():  # warm up: first calls, allocator, kernels
        run()
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(rounds):
        names = random.Random(r).sample(list(runs), len(runs))  # a new order each round
        for name in names:
            seconds[name].append(timed(runs[name], device))
    return {name: per_run[name] * steps / statistics.median(s) for name, s in seconds.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", help="cpu or cuda (default: the best available)")
    ap.add_argument("--dims", type=whole_arg(1), nargs="+", default=[32, 160])
    ap.add_argument("--batch-sizes", type=whole_arg(1), nargs="+", default=[128, 32])
    ap.add_argument("--k", type=whole_arg(1), default=8, help="models in the ensemble (default 8)")
    ap.add_argument("--steps", type=whole_arg(1), default=50, help="steps per timed run (default 50)")
    ap.add_argument("--rounds", type=whole_arg(1), default=3)
    ap.add_argument(
        "--threads", type=whole_arg(1, os.cpu_count() or 1), default=2, help="CPU threads (default 2)"
    )
    ap.add_argument("--compile", action="store_true", help="add the ensemble under torch.compile")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {args.threads} threads"
    print(f"{name}, PyTorch {torch.__version__}; LST model (4 blocks, 16 tokens), {args.steps} steps a run")
    print()
    head = "| width | batch | bare steps/s | fit | fit / bare | K x fit | ensemble | ensemble / sequential |"
    print(head + (" compiled | compiled / sequential |" if args.compile else ""))
    print("|" + "---|" * (10 if args.compile else 8))
    for dim in args.dims:
        for batch_size in args.batch_sizes:
            r = measure(dim, batch_size, args.k, args.steps, args.rounds, device, args.compile)
            seq, ens = r[f"{args.k} x fit"], r[f"ensemble of {args.k}"]
            row = (
                f"| {dim} | {batch_size} | {r['bare']:.1f} | {r['fit']:.1f} | {r['fit'] / r['bare']:.3f} "
                f"| {seq:.1f} | {ens:.1f} | {ens / seq:.2f}x |"
            )
            if args.compile:
                row += f" {r['compiled']:.1f} | {r['compiled'] / seq:.2f}x |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
