"""`minivit train`: every check first (the options, the device and the memory the run needs, in one
plan (`minivit.plan`) made before the data; then the folder; then the data), then run.json, the
training, and the run's metrics and history; a refused run writes nothing. Under torchrun the first
process holds the run folder for all of them and alone writes to it."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path

import torch

from minivit.augment import Augment
from minivit.checkpoint import CHECKPOINT, OtherConfig, check_resumable, check_writable, resumable
from minivit.checks import check_whole
from minivit.cli.runs import HISTORY, RUN, read_run
from minivit.config import PRESETS, ViTConfig
from minivit.data import load_task, task_shape
from minivit.devices import init_distributed
from minivit.evaluate import evaluate
from minivit.folders import check_unclaimed
from minivit.model import ViT
from minivit.plan import plan_run
from minivit.runsafety import run_lock, sigterm_stops, write_json
from minivit.runsafety import say as tell
from minivit.step import _optimizer
from minivit.train import check_train_set, fit_plan


def cmd_train(args: argparse.Namespace) -> int:
    if args.threads is not None:
        cores = os.cpu_count() or 1  # more threads than cores only wait for each other
        check_whole("--threads", args.threads, 1, cores)
        torch.set_num_threads(args.threads)
    rank, world, device = init_distributed(args.device)  # (0, 1, None) outside torchrun
    try:
        with sigterm_stops():  # before the first step or in the final evaluation: said, lock released
            return _train(args, rank, world, device or args.device)
    finally:
        if world > 1:
            torch.distributed.destroy_process_group()


# what the memory advice names, as the command spells it
FLAGS = {
    k: "--" + k.replace("_", "-")
    for k in ("batch_size", "image_size", "patch_size", "dim", "depth", "train_size", "test_size")
}


def _train(args: argparse.Namespace, rank: int, world: int, device: str | torch.device | None) -> int:
    """Check everything, then write run.json and train: a refused run writes nothing."""
    say = tell if rank == 0 else (lambda *a, **k: None)  # a reader that goes (`| head`) stops no run
    augment = replace(Augment.recipe(args.augment), resized_crop=tuple(args.resized_crop or ()) or None)
    shape = task_shape(
        args.task, image_size=args.image_size, train_size=args.train_size, test_size=args.test_size
    )
    changes = {
        k: v
        for k, v in {
            "patch_size": args.patch_size,
            "dim": args.dim,
            "depth": args.depth,
            "heads": args.heads,
            "pool": args.pool,
        }.items()
        if v is not None
    }
    config = PRESETS[args.preset].with_(
        image_size=shape.image_size,
        in_channels=shape.in_channels,
        num_classes=shape.num_classes,
        position=args.position,
        position_options=dict(args.option),
        **changes,
    )
    # every option checked into one plan before anything is made or written; fit_plan trains with it
    plan = plan_run(
        config,
        examples=shape.train_examples,
        data_bytes=shape.data_bytes,
        evaluated=max(shape.train_examples, args.test_size),  # the train and test sets, at the end
        processes=world,
        device=device,
        names=FLAGS,
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        weight_decay=args.weight_decay,
        warmup=args.warmup,
        schedule=args.schedule,
        label_smoothing=args.label_smoothing,
        grad_clip=args.grad_clip or None,
        optimizer=args.optimizer,
        augment=augment,
        precision=args.precision,
        compile=args.compile,
        seed=args.seed,
        checkpoint_every=args.checkpoint_every,
    )
    settings = plan.settings
    # the folder before the data (a download, or minutes of generating): writable, room for the
    # checkpoints, nothing in the way; the check leaves no folder behind
    check_writable(args.out, model_bytes=plan.parameters * 4 * 4)
    run = {
        "task": args.task,
        "train_size": args.train_size,
        "test_size": args.test_size,
        "seed": args.seed,
        "data_root": str(args.data_root),
        "config": config.to_dict(),
    }
    run_file = args.out / RUN
    state = _check_out(args, run, config, settings)
    data = load_task(
        args.task,
        image_size=args.image_size,
        train_size=args.train_size,
        test_size=args.test_size,
        seed=args.seed,
        root=args.data_root,
        download=not args.no_download,
    )
    check_train_set(data.train, config.num_classes)
    with _lock_out(args.out, rank, world):  # no other run writes to the folder until this one ends
        state = _check_out(args, run, config, settings)  # again: it may have changed before the lock
        torch.manual_seed(args.seed)
        model = ViT(config)
        if state is not None:  # weights, optimizer, batch order and the rest, before run.json is written
            check_resumable(args.out / CHECKPOINT, state, model, len(data.train), _optimizer(model, settings))
        processes = f", {world} processes" if world > 1 else ""
        say(f"{data}\n{args.position}: {sum(p.numel() for p in model.parameters()):,} parameters{processes}")
        if args.resume:
            say(
                f"resuming from step {state['step']} of {args.steps}"
                if state is not None
                else f"no checkpoint in {args.out} yet: starting from step 0"
            )
        if rank == 0:
            write_json(run_file, run)
        history = fit_plan(
            model,
            data.train,
            plan,
            progress=not args.quiet,
            desc=args.position,
            out=args.out,
            resume=args.resume,
        )
        metrics = {
            "train_accuracy": evaluate(model, data.train),
            "test_accuracy": evaluate(model, data.test),
            "final_loss": history.loss[-1] if history.loss else None,
        }
        if history.warnings:  # e.g. a loss that grew far past its start: kept with the run's results
            metrics["warnings"] = list(history.warnings)
        run["metrics"] = metrics
        if rank == 0:
            write_json(run_file, run)
            write_json(args.out / HISTORY, asdict(history), indent=None)
        say(
            f"train accuracy {metrics['train_accuracy']:.3f}  test accuracy {metrics['test_accuracy']:.3f}"
            f"  -> {args.out / CHECKPOINT}"
        )
        return 0


def _check_out(args: argparse.Namespace, run: dict, config: ViTConfig, settings) -> dict | None:
    """Refuse a folder that holds another run (or, with --resume, a run or checkpoint this command
    cannot continue); return the checkpoint to resume from (None: start at step 0)."""
    run_file = args.out / RUN
    check_unclaimed(args.out, resume=args.resume, name="--out", command=True)  # nothing of another's lost
    if args.resume and run_file.exists() and (args.out / CHECKPOINT).exists():
        before = read_run(args.out)
        diff = [k for k in run if k != "config" and before.get(k) != run[k]]
        if diff:
            said = "; ".join(f"--{k.replace('_', '-')} {before.get(k)!r} then, {run[k]!r} now" for k in diff)
            raise ValueError(
                f"cannot resume {args.out}: it was trained with other data ({said}); pass the run's own "
                "options, or a new --out"
            )
    if not args.resume:
        return None
    try:
        return resumable(args.out / CHECKPOINT, config, settings)
    except OtherConfig as err:  # in the options the command takes, not the Python API's words
        raise ValueError(
            f"cannot resume {args.out}: its checkpoint was trained with another model "
            f"({_as_options(err.diff)}); pass the run's own options, or a new --out"
        ) from None


# a config field, as the option of `minivit train` that sets it
CONFIG_OPTIONS = {
    "position": "--position",
    "position_options": "--option",
    "patch_size": "--patch-size",
    "dim": "--dim",
    "depth": "--depth",
    "heads": "--heads",
    "pool": "--pool",
    "image_size": "--image-size",
    "num_classes": "--task",
    "in_channels": "--task",
}


def _as_options(diff: dict) -> str:
    """ "--position 'sincos2d' then, 'learned' now; ..." for the fields of a config that differ (those no
    option sets come from --preset)."""
    parts = []
    for key, (then, now) in diff.items():
        if key == "image_size":
            then, now = (v[0] if isinstance(v, tuple | list) and len(set(v)) == 1 else v for v in (then, now))
        option = CONFIG_OPTIONS.get(key, f"--preset ({key})")
        parts.append(f"{option} {then!r} then, {now!r} now")
    return "; ".join(parts)


@contextlib.contextmanager
def _lock_out(out: Path, rank: int, world: int) -> Iterator[None]:
    """Hold the lock of the run folder `out` (process 0 holds it for all under torchrun)."""
    with contextlib.ExitStack() as stack:
        problem = None
        if rank == 0:
            try:
                stack.enter_context(run_lock(out, name="--out"))
            except ValueError as err:
                problem = str(err)
        if world > 1:  # every process has checked the folder, and learns whether it may write to it
            box = [problem]
            torch.distributed.broadcast_object_list(box, src=0)
            problem = box[0]
        if problem:
            raise ValueError(problem)
        yield
