"""The `minivit` command: train a model, evaluate it across resolutions, list the encodings.

minivit train --task odd_one_out --position sincos2d --patch-size 8 --steps 800 --out runs/sincos
minivit train ... --out runs/sincos --resume      # continue an interrupted run
torchrun --nproc_per_node 4 -m minivit.cli train --task cifar10 --augment deit ...   # 4 GPUs (DDP)
minivit eval runs/sincos --resolutions 24 48 72   # accuracy at other image sizes
minivit encodings                                 # every positional encoding and its options
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from pathlib import Path

import torch

from minivit import memory, posenc
from minivit.augment import RECIPES, Augment
from minivit.checkpoint import (
    CHECKPOINT,
    check_resumable,
    check_writable,
    kept,
    load_model,
    resumable,
    write_atomic,
)
from minivit.checks import check_whole
from minivit.config import POOLS, PRESETS, ViTConfig
from minivit.data import DatasetUnavailable, load_task, task_shape
from minivit.data.tasks import NAMES as TASK_NAMES
from minivit.devices import (
    PRECISIONS,
    autocast_dtype,
    check_device,
    check_split,
    device_memory,
    host_memory,
    init_distributed,
    pick_device,
)
from minivit.evaluate import evaluate, evaluate_resolutions
from minivit.model import ViT, count_parameters, encoding_of
from minivit.runsafety import SaveFailed, run_lock
from minivit.step import _optimizer
from minivit.train import (
    OPTIMIZERS,
    SCHEDULES,
    Interrupted,
    TrainingDiverged,
    check_fit_options,
    check_train_set,
    fit,
)

RUN = "run.json"
RUN_KEYS = ("task", "config", "test_size", "seed", "data_root")  # what `eval` reads from run.json
HISTORY = "history.json"


def _option(text: str) -> tuple[str, object]:
    """`key=value` with value parsed as a Python literal where it is one (numbers, True, None)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--option needs key=value, got {text!r}")
    key, value = text.split("=", 1)
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def _folder(text: str) -> Path:
    """A run folder's path; an empty or blank one (the working folder) is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} names no folder (an empty path means the working folder); name a run folder, "
            "e.g. runs/first"
        )
    return Path(text)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is one --help away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Adds "(default: ...)" to an option's help where it has a default to show and its help does
    not already say what the default is."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = action.default not in (None, [], argparse.SUPPRESS) and action.default is not False
        if "default" in text or not shown:
            return text
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="minivit", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{train,eval,encodings}")

    t = sub.add_parser(
        "train",
        help="train a ViT on a task and save it to --out",
        formatter_class=_Help,
    )
    t.add_argument("--task", default="odd_one_out", choices=TASK_NAMES, help="what to learn")
    t.add_argument(
        "--position",
        default="learned",
        choices=list(posenc.REGISTRY),
        help="positional encoding (`minivit encodings` lists their options)",
    )
    t.add_argument(
        "--option",
        type=_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the encoding, e.g. --option init=normal --option std=0.5 (repeatable)",
    )
    t.add_argument("--preset", default="tiny", choices=list(PRESETS), help="the model's base config")
    t.add_argument("--image-size", type=int, help="training resolution (default: the task's own)")
    t.add_argument("--patch-size", type=int, help="patch size (default: the preset's)")
    t.add_argument("--dim", type=int, help="token width (default: the preset's)")
    t.add_argument("--depth", type=int, help="number of blocks (default: the preset's)")
    t.add_argument("--heads", type=int, help="attention heads (default: the preset's)")
    t.add_argument("--pool", choices=POOLS, help="how tokens become one vector (default: the preset's)")
    t.add_argument("--steps", type=int, default=800, help="training steps")
    t.add_argument("--batch-size", type=int, default=128, help="images per step (over all processes)")
    t.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (after the warmup)")
    t.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        default="adamw",
        help="AdamW, or SGD with momentum 0.9 (whose step grows with the gradient's scale)",
    )
    t.add_argument(
        "--weight-decay",
        type=float,
        default=0.05,
        help="AdamW weight decay (never on biases, norms, position tables)",
    )
    t.add_argument("--warmup", type=int, help="warmup steps (default: 5%% of --steps)")
    t.add_argument(
        "--schedule", choices=SCHEDULES, default="cosine", help="after the warmup: cosine decay or constant"
    )
    t.add_argument("--label-smoothing", type=float, default=0.0, help="label smoothing of the loss")
    t.add_argument(
        "--augment",
        default="none",
        choices=list(RECIPES),
        help="augmentation on the batch's device: light = crop + flip; deit = crop, flip, RandAugment, "
        "mixup/CutMix, random erasing",
    )
    t.add_argument(
        "--resized-crop",
        type=float,
        nargs=2,
        metavar=("SMALLEST", "LARGEST"),
        help="scale augmentation: random-resized-crop of this range of area fractions (e.g. 0.25 1), "
        "added to --augment",
    )
    t.add_argument(
        "--precision",
        default="auto",
        choices=PRECISIONS,
        help="auto: bf16 on a GPU that has it, fp16 on one that does not, fp32 on a CPU",
    )
    t.add_argument("--compile", action="store_true", help="torch.compile the model (long GPU runs)")
    t.add_argument("--grad-clip", type=float, default=1.0, help="gradient norm clip (0: none)")
    t.add_argument("--train-size", type=int, default=4096, help="training examples (generated tasks)")
    t.add_argument("--test-size", type=int, default=1000, help="test examples (generated tasks)")
    t.add_argument("--seed", type=int, default=0, help="seeds the data, the weights and the batches")
    t.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    t.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's choice)")
    t.add_argument("--data-root", default="data", help="where MNIST / CIFAR-10 are (or are downloaded)")
    t.add_argument("--no-download", action="store_true", help="never try to download a dataset")
    t.add_argument("--out", required=True, type=_folder, help="run folder: checkpoint, config, metrics")
    t.add_argument("--checkpoint-every", type=int, help="steps between checkpoints (default: 10 per run)")
    t.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out from its checkpoint (in a folder with none yet: start from "
        "step 0, and say so); a first Ctrl-C saves the step it is at, a second stops at once",
    )
    t.add_argument("--quiet", action="store_true", help="no progress bar")

    e = sub.add_parser("eval", help="accuracy of a trained run, at its resolution or several")
    e.add_argument("run", type=_folder, help="a run folder written by `minivit train`")
    e.add_argument(
        "--resolutions",
        type=int,
        nargs="+",
        metavar="SIZE",
        help="image sizes to test at (default: the training size)",
    )
    e.add_argument("--device", help="cuda, mps or cpu (default: the best available)")

    sub.add_parser("encodings", help="list the positional encodings and their options")
    return parser


def cmd_train(args: argparse.Namespace) -> int:
    if args.threads is not None:
        cores = os.cpu_count() or 1  # more threads than cores only wait for each other
        check_whole("--threads", args.threads, 1, cores)
        torch.set_num_threads(args.threads)
    rank, world, device = init_distributed(args.device)  # (0, 1, None) outside torchrun
    try:
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
    say = print if rank == 0 else (lambda *a, **k: None)
    augment = replace(Augment.recipe(args.augment), resized_crop=tuple(args.resized_crop or ()) or None)
    settings = check_fit_options(
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        weight_decay=args.weight_decay,
        warmup=args.warmup,
        schedule=args.schedule,
        label_smoothing=args.label_smoothing,
        grad_clip=args.grad_clip or None,
        optimizer=args.optimizer,
        precision=args.precision,
        checkpoint_every=args.checkpoint_every,
        seed=args.seed,
        augment=augment,
    )
    device = pick_device(device)
    check_split(args.batch_size, world)
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
    batch = min(args.batch_size, shape.train_examples) // world  # a batch never holds more than the set
    evaluation = min(memory.EVAL_BATCH, max(shape.train_examples, args.test_size))
    # the model is counted from its config, never built to be refused (100,000 blocks are refused at
    # once); its encoding alone is built, on the meta device, for its own checks (head width and such)
    _check_memory(config, shape.data_bytes, batch, evaluation, device, args.precision)
    params = count_parameters(config, encoding_of(config))
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
    check_writable(args.out, model_bytes=params * 4 * 4)
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
            write_atomic(run_file, lambda f: f.write(json.dumps(run, indent=2).encode()))
        history = fit(
            model,
            data.train,
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
            device=device,
            progress=not args.quiet,
            desc=args.position,
            out=args.out,
            checkpoint_every=args.checkpoint_every,
            resume=args.resume,
        )
        metrics = {
            "train_accuracy": evaluate(model, data.train),
            "test_accuracy": evaluate(model, data.test),
            "final_loss": history.loss[-1] if history.loss else None,
        }
        run["metrics"] = metrics
        if rank == 0:
            write_atomic(run_file, lambda f: f.write(json.dumps(run, indent=2).encode()))
            write_atomic(args.out / HISTORY, lambda f: f.write(json.dumps(asdict(history)).encode()))
        say(
            f"train accuracy {metrics['train_accuracy']:.3f}  test accuracy {metrics['test_accuracy']:.3f}"
            f"  -> {args.out / CHECKPOINT}"
        )
        return 0


def _check_out(args: argparse.Namespace, run: dict, config: ViTConfig, settings) -> dict | None:
    """Refuse a folder that holds another run (or, with --resume, a run or checkpoint this command
    cannot continue); return the checkpoint to resume from (None: start at step 0)."""
    run_file = args.out / RUN
    if run_file.exists() and not args.resume:
        raise ValueError(f"{args.out} already holds a run; pass --resume to continue it, or another --out")
    if args.resume and run_file.exists() and (args.out / CHECKPOINT).exists():
        before = read_run(args.out)
        diff = [k for k in run if k != "config" and before.get(k) != run[k]]
        if diff:
            raise ValueError(f"cannot resume {args.out}: {', '.join(diff)} differ from the saved run")
    return resumable(args.out / CHECKPOINT, config, settings) if args.resume else None


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


def _check_memory(
    config: ViTConfig,
    data_bytes: int,
    batch_size: int,
    evaluation_batch: int,
    device: torch.device,
    precision: str,
) -> None:
    """Refuse a run whose data, model and step need more memory than this machine (or its GPU) has
    (first without the encoding's parameters, so a run too large for its blocks alone is refused
    before even its encoding is built)."""
    for encoding in (False, True):
        est = memory.estimate(
            config,
            batch_size=batch_size,
            autocast=autocast_dtype(device, precision) is not None,
            device_type=device.type,
            data_bytes=data_bytes,
            evaluation_batch=evaluation_batch,
            encoding=encoding,
        )
        _check_estimate(est, data_bytes, batch_size, device)


def _check_estimate(est: memory.Estimate, data_bytes: int, batch_size: int, device: torch.device) -> None:
    if device.type != "cuda":
        memory.check(est, host_memory(), where="this machine", names=FLAGS)
        return
    host = memory.Estimate(data_bytes, 0, 0, batch_size, {"data": data_bytes})
    memory.check(host, host_memory(), where="this machine", names=FLAGS)
    on_gpu = data_bytes // 2  # the training set (about half of what making the data takes) moves there
    est.fixed -= data_bytes - on_gpu
    est.parts["data"] = on_gpu
    memory.check(est, device_memory(device), where=f"the GPU ({device})", names=FLAGS)


def read_run(folder: Path) -> dict:
    """The run.json of a run folder, or a ValueError that says what is wrong with it."""
    run_file = folder / RUN
    if not run_file.exists():
        raise FileNotFoundError(
            f"{folder} is not a run folder (no {RUN}); train one with: minivit train --out"
        )
    try:
        run = json.loads(run_file.read_text())
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
    data = load_task(
        run["task"],
        image_size=config.image_size[0],
        train_size=1,
        test_size=run["test_size"],
        seed=run["seed"],
        root=run["data_root"],
        download=False,
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
            raise ValueError(
                f"testing at {size} px needs about {memory.gigabytes(est.total)} of memory (its test set and "
                f"evaluation), more than the {memory.gigabytes(available)} this machine has free; "
                "test at smaller --resolutions"
            )
    acc = evaluate_resolutions(model, data.at_size, sizes)
    print(f"{run['task']}, {config.position}, trained at {config.image_size[0]}px, patch {config.patch_size}")
    print("| image size | grid | accuracy |\n|---|---|---|")
    for s, a in acc.items():
        g = s // config.patch_size
        mark = " (trained)" if s == config.image_size[0] else ""
        print(f"| {s}{mark} | {g}x{g} | {a:.3f} |")
    return 0


def cmd_encodings(args: argparse.Namespace) -> int:
    for name, klass in posenc.REGISTRY.items():
        summary = (klass.__doc__ or "").strip().splitlines()[0]
        print(f"{name:12s} {summary}")
        declared = posenc.declarations(name)
        for option in posenc.options_of(name):
            d = declared.get(option)
            what = f": {d.wanted()} (default {d.default!r})" if d is not None else ""
            print(f"{'':12s} {option}{what}")
    return 0


def _as_flag(message: str, args: argparse.Namespace) -> str:
    """A message that starts `batch_size=0 ...` (the Python name) as `--batch-size=0 ...` where the
    command has that option, so the line names what the user typed."""
    message = message.replace("pass download=True", "leave out --no-download")
    message = message.replace("continue with resume=True", "continue with the same command and --resume")
    match = re.match(r"([a-z_]+)=", message)
    if match and match.group(1) in vars(args):
        return "--" + match.group(1).replace("_", "-") + message[len(match.group(1)) :]
    return message


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = {"train": cmd_train, "eval": cmd_eval, "encodings": cmd_encodings}[args.command]
    try:
        return command(args)
    except (ValueError, FileNotFoundError, DatasetUnavailable, TrainingDiverged, SaveFailed) as err:
        print(f"minivit: error: {_as_flag(str(err), args)}", file=sys.stderr)
        return 2
    except Interrupted as stop:  # a first Ctrl-C or SIGTERM: the step finished and was saved
        print(f"minivit: {stop}; continue with the same command and --resume", file=sys.stderr)
        return 130 if stop.by == "Ctrl-C" else 143  # 128 + the signal's number, as a shell reports it
    except KeyboardInterrupt:  # a second Ctrl-C, or one before training began or after it ended
        print(f"\nminivit: {_interrupted(args)}", file=sys.stderr)
        return 130
    except (torch.OutOfMemoryError, RuntimeError) as err:
        if not _out_of_memory(err):
            raise
        print(
            "minivit: error: ran out of memory, beyond what was estimated before training "
            f"({str(err).splitlines()[0][:120]}); lower --batch-size, or raise --patch-size or lower "
            "--image-size (fewer tokens)",
            file=sys.stderr,
        )
        return 2


def _out_of_memory(err: BaseException) -> bool:
    text = str(err).lower()
    return (
        isinstance(err, torch.OutOfMemoryError) or "can't allocate memory" in text or "out of memory" in text
    )


def _interrupted(args: argparse.Namespace) -> str:
    """What a Ctrl-C that stopped `args.command` at once leaves behind, and how to go on."""
    if args.command != "train":
        return "interrupted"
    note = kept(args.out / CHECKPOINT)
    if note:
        return f"interrupted; {note}continue with the same command and --resume"
    if (args.out / RUN).exists():
        return "interrupted before the first checkpoint; the same command with --resume starts from step 0"
    return "interrupted before training began; nothing was written"


if __name__ == "__main__":
    sys.exit(main())
