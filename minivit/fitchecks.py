"""The options of `fit` checked before a run starts: the first one out of range is named with what it
takes (`minivit train` checks them before it writes anything), and the settings a resumed run must
share with the run it continues are kept together (`_Settings`)."""

from __future__ import annotations

from dataclasses import dataclass

from minivit.augment import Augment
from minivit.checks import check_choice, check_number, check_whole
from minivit.devices import PRECISIONS
from minivit.schedule import SCHEDULES, default_warmup

OPTIMIZERS = ("adamw", "sgd")
MAX_STEPS = 10**8  # about a day at a millisecond a step; more is a typo (1e23) whose warmup never ends
MAX_SEED = 2**32 - 1  # the largest seed the data generators and torch tell apart (2**32 is seed 0 there)
COMPILE = (False, True, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


@dataclass(frozen=True)
class _Settings:
    """What a resumed run must share with the run it continues."""

    steps: int
    batch_size: int
    lr: float
    weight_decay: float
    warmup: int
    label_smoothing: float
    grad_clip: float | None
    seed: int
    optimizer: str = "adamw"
    position_lr_scale: float = 1.0
    augment: str = ""
    schedule: str = "cosine"


def diverging_hint(settings: _Settings) -> str:
    """What to change when a run's loss runs away: the learning rate it has, and a clip it does not
    have yet: 1.0 where it clips nothing (grad_clip=None, 0 on the command line), else half its own."""
    lower = f"lower the learning rate (lr={settings.lr})"
    if settings.grad_clip:
        clip = settings.grad_clip
        return f"{lower} or clip harder (grad_clip={clip / 2:g}; it clips at {clip:g})"
    return f"{lower} or clip gradients (grad_clip=1.0)"


def check_fit_options(
    *,
    steps: int,
    batch_size: int,
    lr: float,
    weight_decay: float = 0.0,
    warmup: int | None = None,
    schedule: str = "cosine",
    label_smoothing: float = 0.0,
    grad_clip: float | None = None,
    optimizer: str = "adamw",
    position_lr_scale: float = 1.0,
    precision: str = "auto",
    compile: bool | str = False,
    eval_every: int | None = None,
    sync_every: int = 1,
    checkpoint_every: int | None = None,
    seed: int = 0,
    augment: Augment | None = None,
) -> _Settings:
    """Raise a ValueError that names the first of `fit`'s options out of range and what it takes
    (`minivit train` calls it before it writes anything); return the settings a resumed run must
    share."""
    check_whole("steps", steps, 1, MAX_STEPS)
    check_whole("batch_size", batch_size, 1)
    check_number("lr", lr, low=0, low_ok=False)
    check_number("weight_decay", weight_decay, low=0)
    if warmup is not None:
        check_whole("warmup", warmup, 0)
        if warmup > steps:
            raise ValueError(f"warmup={warmup} is longer than the run (steps={steps}); use at most {steps}")
    check_choice("schedule", schedule, SCHEDULES)
    check_number("label_smoothing", label_smoothing, low=0, high=1)
    if grad_clip is not None:
        check_number("grad_clip", grad_clip, low=0, low_ok=False)
    check_choice("optimizer", optimizer, OPTIMIZERS)
    check_number("position_lr_scale", position_lr_scale, low=0, low_ok=False)
    check_choice("precision", precision, PRECISIONS)
    if not (isinstance(compile, bool) or (isinstance(compile, str) and compile in COMPILE)):
        raise ValueError(f"unknown compile {compile!r}; known: {', '.join(map(repr, COMPILE))}")
    check_whole("sync_every", sync_every, 1)
    check_whole("seed", seed, 0, MAX_SEED)
    for name, every in (("eval_every", eval_every), ("checkpoint_every", checkpoint_every)):
        if every is not None:
            check_whole(name, every, 1)
    warmup = default_warmup(steps) if warmup is None else warmup
    augmented = repr(augment) if augment else ""
    return _Settings(
        steps,
        batch_size,
        lr,
        weight_decay,
        warmup,
        label_smoothing,
        grad_clip,
        seed,
        optimizer,
        position_lr_scale,
        augmented,
        schedule,
    )
