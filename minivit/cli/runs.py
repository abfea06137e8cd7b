"""A run folder read back: its run.json checked key by key (`read_run`), and `minivit eval`, the
accuracy of the trained model at its own resolution or several."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from minivit import memory
from minivit.checkpoint import load_model
from minivit.config import ViTConfig
from minivit.data import load_task, task_shape
from minivit.data.tasks import NAMES as TASK_NAMES
from minivit.devices import check_device, device_memory, host_memory
from minivit.evaluate import evaluate_resolutions
from minivit.folders import unreadable
from minivit.runsafety import say

RUN = "run.json"

RUN_KEYS = ("task", "config", "test_size", "seed", "data_root")  # what `eval` reads from run.json

HISTORY = "history.json"


def read_run(folder: Path) -> dict:
    """The run.json of a run folder, or a ValueError that says what is wrong with it."""
    run_file = folder / RUN
    if not run_file.exists():
        raise FileNotFoundError(
            f"{folder} is not a run folder (no {RUN}); train one with: minivit train --out"
        )
    try:
        run = json.loads(run_file.read_text())
    except OSError as err:  # a folder where the file goes, permissions: said as such, not as damage
        raise ValueError(unreadable(run_file, err, "the run's record")) from None
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(
            f"{run_file} is not valid JSON ({err}): edited or damaged; restore it, or train the run again"
        ) from None
    missing = [k for k in RUN_KEYS if k not in run] if isinstance(run, dict) else list(RUN_KEYS)
    if missing:
        raise ValueError(f"{run_file} lacks {missing}: not written by this version of minivit; train again")
    wanted = {
        "task": (lambda v: v in TASK_NAMES, "one of the tasks"),
        "train_size": (_whole(1), "a whole number >= 1"),
        "test_size": (_whole(1), "a whole number >= 1"),
        "seed": (_whole(0), "a whole number >= 0"),
        "data_root": (lambda v: isinstance(v, str), "a folder's path"),
        "config": (_is_config, "a model config (ViTConfig.to_dict())"),
    }
    for key, (fits, what) in wanted.items():
        if key in run and not fits(run[key]):
            raise ValueError(
                f"{run_file}: {key}={run[key]!r} is not {what}: the file was edited or damaged; restore "
                "it, or train the run again"
            )
    return run


def _whole(least: int) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= least


def _is_config(value: object) -> bool:
    try:
        ViTConfig.from_dict(value)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


def cmd_eval(args: argparse.Namespace) -> int:
    check_device(args.device)
    run = read_run(args.run)
    model = load_model(args.run)
    if args.device:
        model.to(args.device)
    config = ViTConfig.from_dict(run["config"])
    diff = config.differences(model.config)
    if diff:
        key, (said, saved) = next(iter(diff.items()))
        raise ValueError(
            f"{args.run / RUN} says {key}={said!r}, but its checkpoint was trained with {key}={saved!r}: "
            f"{RUN} was edited; restore it, or train the run again"
        )
    try:  # a task that cannot be at the checkpoint's size (the Latin squares' fixed grid) was edited in
        trained = task_shape(run["task"], image_size=config.image_size[0], train_size=1, test_size=1)
    except ValueError:
        trained = None
    if trained is None or (trained.num_classes, trained.in_channels) != (
        config.num_classes,
        config.in_channels,
    ):
        what = f" ({trained.num_classes} classes, {trained.in_channels} channel(s))" if trained else ""
        raise ValueError(
            f"{args.run / RUN} says task={run['task']!r}{what}, but its checkpoint's model has "
            f"{config.num_classes} classes and {config.in_channels} channel(s) at {config.image_size[0]}px: "
            f"{RUN} was edited; restore it, or train the run again"
        )
    sizes = args.resolutions or [config.image_size[0]]
    small = [s for s in sizes if s < config.patch_size]
    if small:
        raise ValueError(f"resolutions {small} are smaller than one patch ({config.patch_size} px)")
    bad = [s for s in sizes if s % config.patch_size]
    if bad:
        raise ValueError(f"resolutions {bad} are not divisible by the patch size {config.patch_size}")
    device = next(model.parameters()).device
    for size in sizes:
        shape = task_shape(run["task"], image_size=size, train_size=1, test_size=run["test_size"])
        est = memory.estimate(
            config,
            batch_size=0,
            image_size=(size, size),
            model=model,
            data_bytes=shape.data_bytes,
            evaluation_batch=min(memory.EVAL_BATCH, run["test_size"]),
        )
        available = host_memory() if device.type != "cuda" else device_memory(device)
        if available is not None and est.total > available:
            fix = (
                f"its test_size={run['test_size']} in {RUN} is more than this machine can test (edited?); "
                "restore it, or train the run again"
                if size == config.image_size[0]
                else "test at smaller --resolutions"
            )
            raise ValueError(
                f"testing at {size} px needs about {memory.gigabytes(est.total)} of memory (its test set and "
                f"evaluation), more than the {memory.gigabytes(available)} this machine has free; {fix}"
            )
    data = load_task(
        run["task"],
        image_size=config.image_size[0],
        train_size=1,
        test_size=run["test_size"],
        seed=run["seed"],
        root=run["data_root"],
        download=False,
    )
    try:
        acc = evaluate_resolutions(model, data.at_size, sizes)
    except ValueError as err:
        if "outputs are NaN or inf" not in str(err):
            raise
        raise ValueError(
            f"the model in {args.run} gives NaN or inf outputs ({str(err).split(' for ')[1].split(',')[0]}), "
            "so there is no accuracy to report: the run diverged before this checkpoint was kept, or the "
            "file is damaged; train again in a new --out with a lower --lr"
        ) from None
    say(f"{run['task']}, {config.position}, trained at {config.image_size[0]}px, patch {config.patch_size}")
    say("| image size | grid | accuracy |\n|---|---|---|")
    for s, a in acc.items():
        g = s // config.patch_size
        mark = " (trained)" if s == config.image_size[0] else ""
        say(f"| {s}{mark} | {g}x{g} | {a:.3f} |")
    return 0
