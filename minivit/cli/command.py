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
import re
import signal
import sys
from pathlib import Path

import torch

from minivit import posenc
from minivit.augment import RECIPES
from minivit.checkpoint import CHECKPOINT, kept
from minivit.cli.runs import RUN, cmd_eval
from minivit.cli.training import cmd_train
from minivit.config import POOLS, PRESETS
from minivit.data import DatasetUnavailable
from minivit.data.tasks import NAMES as TASK_NAMES
from minivit.devices import PRECISIONS
from minivit.progress import worded
from minivit.runsafety import SaveFailed, Terminated, _drop_stdout
from minivit.train import OPTIMIZERS, SCHEDULES, Interrupted, TrainingDiverged


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
    message = message.replace("minivit.data.mnist_offline()", "--task mnist-offline")
    message = message.replace("minivit.data.digits()", "--task digits")
    if args.command == "eval":  # eval sets the size with --resolutions, and has no training options
        message = message.replace("leave out --image-size", "test at its own size (leave out --resolutions)")
    message = re.sub(  # "(lr=0.1)" in a hint: the option as typed, "(--lr 0.1)"
        r"\(([a-z_]+)=",
        lambda m: f"(--{m.group(1).replace('_', '-')} " if m.group(1) in vars(args) else m.group(0),
        message,
    )
    match = re.match(r"([a-z_]+)=", message)
    if match and match.group(1) in vars(args):
        return "--" + match.group(1).replace("_", "-") + message[len(match.group(1)) :]
    return message


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = {"train": cmd_train, "eval": cmd_eval, "encodings": cmd_encodings}[args.command]
    try:
        with worded(lambda text: _as_flag(text, args)):  # a warning names the options as typed
            return command(args)
    except (ValueError, FileNotFoundError, DatasetUnavailable, TrainingDiverged, SaveFailed) as err:
        print(f"minivit: error: {_as_flag(str(err), args)}", file=sys.stderr)
        return 2
    except Interrupted as stop:  # a first Ctrl-C or SIGTERM: the step finished and was saved
        print(f"minivit: {stop}; continue with the same command and --resume", file=sys.stderr)
        return 130 if stop.by == "Ctrl-C" else 143  # 128 + the signal's number, as a shell reports it
    except KeyboardInterrupt as stop:  # a second Ctrl-C, or one (or a SIGTERM) outside training's steps
        by = "SIGTERM" if isinstance(stop, Terminated) else "Ctrl-C"
        print(f"\nminivit: {_interrupted(args, by)}", file=sys.stderr)
        return 143 if by == "SIGTERM" else 130
    except BrokenPipeError:  # the reader of stdout has gone (`| head`): the run's files are written
        _drop_stdout()
        return 0
    except (torch.OutOfMemoryError, RuntimeError) as err:
        if not _out_of_memory(err):
            raise
        advice = (
            "test at smaller --resolutions, or on another --device"
            if args.command == "eval"
            else "lower --batch-size, or raise --patch-size or lower --image-size (fewer tokens)"
        )
        print(
            "minivit: error: ran out of memory, beyond what was estimated "
            f"{'before testing' if args.command == 'eval' else 'before training'} "
            f"({_allocation(err)}); {advice}",
            file=sys.stderr,
        )
        return 2
    finally:
        if argv is None:  # the command's process ends here: a Ctrl-C now (a second one, pressed
            # while the first stop was said) has nothing left to stop, and would only print a
            # traceback from torch's exit handlers
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _allocation(err: BaseException) -> str:
    """torch's words for a failed allocation, on one line with the byte count whole."""
    text = " ".join(str(err).split())
    match = re.search(r"(tried to allocate [\d,.]+ ?[KMGT]?i?B?(?:ytes)?)", text)
    return match.group(1) if match else text[:200]


def _out_of_memory(err: BaseException) -> bool:
    text = str(err).lower()
    return (
        isinstance(err, torch.OutOfMemoryError) or "can't allocate memory" in text or "out of memory" in text
    )


def _interrupted(args: argparse.Namespace, by: str = "Ctrl-C") -> str:
    """What a Ctrl-C (or SIGTERM, `by`) that stopped `args.command` at once leaves behind, and how to
    go on."""
    stopped = "interrupted" if by == "Ctrl-C" else f"stopped by {by}"
    if args.command != "train":
        return stopped
    note = kept(args.out / CHECKPOINT)
    if note:
        return f"{stopped}; {note}continue with the same command and --resume"
    if (args.out / RUN).exists():
        return f"{stopped} before the first checkpoint; the same command with --resume starts from step 0"
    return f"{stopped} before training began; nothing was written"
