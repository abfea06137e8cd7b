"""Training-step time of every positional encoding, relative to `learned`, and of minivit's
`learned` relative to timm's VisionTransformer at the same configuration.

One interleaved run: each round times a few steps of every model, in a new random order, so drift
in the machine's speed touches all models alike; the table reports the median over rounds. A step is forward,
backward and an AdamW update on a batch of random images.

    python benchmarks/step_time.py                 # CPU, 1 thread (timm optional: pip install timm)
    python benchmarks/step_time.py --device cuda   # bf16 autocast
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import time

import torch
import torch.nn.functional as F

from minivit import REGISTRY, ViT, preset
from minivit.checks import whole_arg
from minivit.experiments import cpu_name


def timm_model(cfg):
    """timm's ViT at the same shape: mean pooling, no class token, norm before pooling."""
    from timm.models.vision_transformer import VisionTransformer

    return VisionTransformer(
        img_size=cfg.image_size,
        patch_size=cfg.patch_size,
        num_classes=cfg.num_classes,
        embed_dim=cfg.dim,
        depth=cfg.depth,
        num_heads=cfg.heads,
        mlp_ratio=cfg.mlp_ratio,
        global_pool="avg",
        class_token=False,
        fc_norm=False,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=whole_arg(1, os.cpu_count() or 1), default=1)
    ap.add_argument("--batch", type=whole_arg(1), default=128)
    ap.add_argument("--rounds", type=whole_arg(1), default=5)
    ap.add_argument("--steps", type=whole_arg(1), default=2, help="timed steps per model per round")
    ap.add_argument("--encodings", nargs="*", default=list(REGISTRY), choices=list(REGISTRY), metavar="NAME")
    ap.add_argument("--no-timm", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    cfg = preset("small")  # image 32, patch 4, width 192, depth 6, 3 heads
    models = {name: ViT(cfg.with_(position=name)) for name in args.encodings}
    if not args.no_timm:
        try:
            models["timm (learned)"] = timm_model(cfg)
        except ImportError:
            print("timm is not installed: `pip install timm` to compare with it")
    x = torch.randn(args.batch, 3, 32, 32, device=device)
    y = torch.randint(cfg.num_classes, (args.batch,), device=device)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")
    opts = {}
    for name, m in models.items():
        m.to(device).train()
        opts[name] = torch.optim.AdamW(m.parameters(), lr=1e-4)

    def step(name):
        with autocast:
            loss = F.cross_entropy(models[name](x).float(), y)
        opts[name].zero_grad(set_to_none=True)
        loss.backward()
        opts[name].step()

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    for name in models:  # warm-up
        step(name)
    times = {name: [] for name in models}
    rng = random.Random(0)
    for _ in range(args.rounds):
        for name in rng.sample(list(models), len(models)):  # a new order each round: no position bias
            sync()
            t = time.perf_counter()
            for _ in range(args.steps):
                step(name)
            sync()
            times[name].append((time.perf_counter() - t) / args.steps)

    med = {name: statistics.median(t) for name, t in times.items()}
    best = {name: min(t) for name, t in times.items()}
    ref, ref_best = med.get("learned"), best.get("learned")
    dev = torch.cuda.get_device_name() if device.type == "cuda" else f"{cpu_name()}, {args.threads} thread(s)"
    print(f"# {datetime.date.today()}  {dev}  torch {torch.__version__}")
    print(
        f"# python benchmarks/step_time.py --device {args.device} --threads {args.threads} "
        f"--batch {args.batch} --rounds {args.rounds} --steps {args.steps}"
    )
    print(
        f"# ViT image 32, patch 4, width 192, depth 6, 3 heads, batch {args.batch}; "
        f"step = forward + backward + AdamW; median of {args.rounds} interleaved rounds"
    )
    print("# median: the typical step; min: the step least disturbed by the rest of the machine")
    print("| model | median step (ms) | images/s | vs learned (median) | vs learned (min) |")
    print("|---|---|---|---|---|")
    for name, t in med.items():
        rel = f"{t / ref:.2f}x" if ref else "-"
        rel_best = f"{best[name] / ref_best:.2f}x" if ref_best else "-"
        print(f"| {name} | {1000 * t:.0f} | {args.batch / t:.0f} | {rel} | {rel_best} |")


if __name__ == "__main__":
    main()
