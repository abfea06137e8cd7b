"""fit: one training loop for a laptop CPU, a GPU or Colab, or several GPUs under torchrun.

AdamW with linear warmup and cosine decay, label smoothing, gradient clipping, mixed precision on a
GPU (bf16, or fp16 with loss scaling where bf16 is missing, as on Colab's T4), augmentation of each
batch on its device (`minivit.augment`), `torch.compile` on request, a progress bar that shows loss
and accuracy, and a history for the lessons to plot.

Under `torchrun --nproc_per_node N` (after `init_distributed()`), `fit` trains with
DistributedDataParallel: every process holds the data, draws the same global batch and trains on its
1/N share of it, so N processes follow the loss curve of one process with the same batch size.

Before anything moves to the device, `fit` estimates the memory a step needs (`minivit.memory`) and
refuses a run the device cannot hold. With `out=`, a run keeps a checkpoint (`minivit.checkpoint`)
written atomically every `checkpoint_every` steps and at the end; `resume=True` continues from it and
ends with the same weights as a run that was never interrupted (bitwise on a CPU). A first Ctrl-C
or SIGTERM (a scheduler's, Colab's) finishes the step, writes a checkpoint at that step and stops
(`Interrupted`); a second stops at once. A loss that becomes NaN or inf, or a checkpoint that cannot
be written (a full disk: `SaveFailed`), stops the run and leaves the last good checkpoint in place.
One run at a time trains into an `out` folder (`minivit.runsafety.run_lock`).

A step never waits for the device: the batch order lives on it, and the loss and accuracy of each
step stay there until they are read, all at once, every `sync_every` steps (and at evaluations,
checkpoints and the end), so a GPU runs ahead of Python instead of idling between small steps.
"""

from __future__ import annotations

import contextlib
import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import TensorDataset
from tqdm.auto import tqdm

from minivit import memory
from minivit.augment import Augment
from minivit.checkpoint import (
    CHECKPOINT,
    CHECKPOINT_FORMAT,
    RESUME_KEYS,
    check_resumable,
    check_writable,
    kept,
    load_checkpoint,
    load_model,
    restore,
    resumable,
    save_checkpoint,
    training_state,
    write_atomic,
)
from minivit.checks import check_choice, check_folder, check_number, check_whole
from minivit.datachecks import check_task, check_train_set, is_regression
from minivit.devices import (
    PRECISIONS,
    autocast_dtype,
    check_split,
    init_distributed,
    pick_device,
    world,
    wrap,
)
from minivit.evaluate import evaluate
from minivit.runsafety import SaveFailed, StopSignals, run_lock

__all__ = [  # with the names of `minivit.checkpoint` and `minivit.devices` that were first defined here
    "CHECKPOINT",
    "CHECKPOINT_FORMAT",
    "COMPILE",
    "OPTIMIZERS",
    "PRECISIONS",
    "RESUME_KEYS",
    "SCHEDULES",
    "History",
    "Interrupted",
    "TrainingDiverged",
    "augment_seed",
    "autocast_dtype",
    "check_fit_options",
    "check_task",
    "check_train_set",
    "default_warmup",
    "fit",
    "init_distributed",
    "is_regression",
    "load_checkpoint",
    "load_model",
    "lr_at",
    "pick_device",
    "save_checkpoint",
    "seed_everything",
    "write_atomic",
]

OPTIMIZERS = ("adamw", "sgd")
SCHEDULES = ("cosine", "constant")
COMPILE = (False, True, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (all devices)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@dataclass
class History:
    """What happened during training: per-step loss and batch accuracy, and periodic evaluations
    (for a masked-token regression, "accuracy" is R², the fraction of the variance explained)."""

    step: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    eval_step: list[int] = field(default_factory=list)
    eval_accuracy: list[float] = field(default_factory=list)

    @property
    def final_eval(self) -> float | None:
        return self.eval_accuracy[-1] if self.eval_accuracy else None


def default_warmup(steps: int) -> int:
    """Warmup steps when none are given: 5% of the run."""
    return max(1, steps // 20)


def lr_at(step: int, *, steps: int, lr: float, warmup: int, schedule: str = "cosine") -> float:
    """Learning rate at `step`: linear warmup over `warmup` steps, then cosine decay to 0 (or, with
    schedule="constant", `lr` to the end)."""
    if step < warmup:
        return lr * (step + 1) / warmup
    if schedule == "constant":
        return lr
    progress = (step - warmup) / max(1, steps - warmup)
    return lr * 0.5 * (1 + math.cos(math.pi * progress))


class TrainingDiverged(RuntimeError):
    """The loss became NaN or infinite."""


class Interrupted(KeyboardInterrupt):
    """Training stopped at a Ctrl-C or a SIGTERM (`by`) after finishing its step (and writing a
    checkpoint at that step, if the run has an `out` folder); `step` is the steps done, `path` the
    checkpoint (or None)."""

    def __init__(self, step: int, steps: int, path: Path | None, by: str = "Ctrl-C"):
        self.step, self.steps, self.path, self.by = step, steps, path, by
        saved = f"checkpoint written at step {step} to {path}" if path else "no out= folder, nothing saved"
        stopped = "interrupted" if by == "Ctrl-C" else f"stopped by {by}"
        super().__init__(f"{stopped} after step {step} of {steps}; {saved}")


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
    check_whole("steps", steps, 1)
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
    check_whole("seed", seed, 0, 2**63 - 1)
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


def fit(
    model: nn.Module,
    train: TensorDataset,
    *,
    steps: int = 500,
    batch_size: int = 128,
    lr: float = 1e-3,
    weight_decay: float = 0.05,
    warmup: int | None = None,
    schedule: str = "cosine",
    label_smoothing: float = 0.0,
    grad_clip: float | None = 1.0,
    optimizer: str = "adamw",
    position_lr_scale: float = 1.0,
    augment: Augment | None = None,
    precision: str = "auto",
    compile: bool | str = False,
    eval_data: TensorDataset | None = None,
    eval_every: int | None = None,
    sync_every: int = 25,
    seed: int = 0,
    device: str | torch.device | None = None,
    progress: bool = True,
    desc: str | None = None,
    out: str | Path | None = None,
    checkpoint_every: int | None = None,
    resume: bool = False,
    callback: Callable[[int, nn.Module, History], None] | None = None,
) -> History:
    """Train `model` on `train` (a TensorDataset of images and labels) for `steps` steps; return
    the History of the run.

    A model with pool="tokens" and num_classes=1 trains as a masked-token regression on
    TensorDataset(inputs, targets [B, N], masked [B, N]) (`minivit.data.network_task`): the loss is
    the mean squared error over the masked tokens, and the history's "accuracy" is R², the fraction
    of the masked targets' variance explained (on the batch against the training set's variance; on
    `eval_data` against its own).

    Args:
        warmup, schedule: warmup steps (default: 5% of `steps`), then "cosine" decay to 0 or "constant".
        optimizer: "adamw", or "sgd" (momentum 0.9, weight decay as an L2 term; same lr schedule).
        position_lr_scale: the position encoding's parameters (`model.pos`) train at this multiple
            of the learning rate.
        augment: what to do to each batch on its device (crop, flip, RandAugment, mixup/CutMix,
            erasing); the loss then uses the mixed targets.
        precision: "auto" (bf16 on a GPU that has it, fp16 with loss scaling on one that does not,
            fp32 on a CPU), or "bf16", "fp16", "fp32" anywhere.
        compile: `torch.compile` the model (True, or a mode: "reduce-overhead" replays each step as
            a CUDA graph, worth it for small models on a GPU); the first steps then take a while.
        eval_data: evaluated every `eval_every` steps (default: 10 times per run) and at the end.
        sync_every: loss and accuracy stay on the device and are read (one wait for the device)
            every `sync_every` steps, when the history, the progress bar and the NaN check catch up;
            with a callback, every step.
        seed: seeds the batch order and every random choice in training.
        device: default cuda, then mps, then cpu (under torchrun: the process's own GPU).
        out: a folder for the checkpoint (`out/checkpoint.pt`), written every `checkpoint_every`
            steps (default: 10 times per run) and at the end.
        resume: continue from the checkpoint in `out` if there is one (else start at step 0).
        callback: called as callback(step, model, history) after every step (step = steps done).
    Raises:
        TrainingDiverged: the loss became NaN or inf (seen within `sync_every` steps; the last good
            checkpoint is kept).
        Interrupted: a Ctrl-C or SIGTERM stopped the run after its step, saved in `out`.
        SaveFailed: a checkpoint could not be written (a full disk); the last good one is kept.
        ValueError: an option out of range, a step that needs more memory than the device has,
            `out` in use by another run, or a checkpoint that cannot be resumed (damaged, foreign).
    """
    settings = check_fit_options(
        steps=steps,
        batch_size=batch_size,
        lr=lr,
        weight_decay=weight_decay,
        warmup=warmup,
        schedule=schedule,
        label_smoothing=label_smoothing,
        grad_clip=grad_clip,
        optimizer=optimizer,
        position_lr_scale=position_lr_scale,
        precision=precision,
        compile=compile,
        eval_every=eval_every,
        sync_every=sync_every,
        checkpoint_every=checkpoint_every,
        seed=seed,
        augment=augment,
    )
    if eval_data is not None:
        check_task(model, eval_data, "eval_data")
        check_train_set(eval_data, getattr(getattr(model, "config", None), "num_classes", None), "eval_data")
        if is_regression(eval_data) != is_regression(train):
            raise ValueError(
                "eval_data and train must be the same kind: both classification or both regression"
            )
    if is_regression(train) and (augment or label_smoothing):
        raise ValueError(
            "augment and label_smoothing are for classifying images; leave them out for a masked-token "
            "regression"
        )
    if callback is not None and not callable(callback):
        raise ValueError(f"callback={callback!r} is not a function; pass callback(step, model, history)")
    if out is not None:
        out = check_folder("out", out)
    elif resume:
        raise ValueError("resume=True continues the checkpoint in a run folder; pass out= with it")
    eval_size = len(eval_data.tensors[0]) if eval_data is not None else 0
    run = _Run(model, train, settings, augment, device, precision, compile, out, eval_size)
    if out is not None:  # after every other check: a refused run writes nothing
        weights = sum(p.numel() * p.element_size() for p in model.parameters())
        check_writable(out, model_bytes=4 * weights, name="out")  # weights, 2 Adam moments, slack
    # one run at a time in `out` (under torchrun, `minivit train` holds it for every process)
    locked = run_lock(out) if out is not None and world()[1] == 1 else contextlib.nullcontext()
    with locked:
        if resume:
            run.resume()
        every = max(1, steps // 10)
        return run.train(
            eval_data, eval_every or every, sync_every, checkpoint_every or every, callback, progress, desc
        )


class _Run:
    """One training run: the model, its step, the batch order, the history and where it is saved."""

    def __init__(
        self,
        model: nn.Module,
        train: TensorDataset,
        settings: _Settings,
        augment: Augment | None,
        device: str | torch.device | None,
        precision: str,
        compile: bool | str,
        out: str | Path | None,
        eval_size: int = 0,
    ):
        classes = int(getattr(getattr(model, "config", None), "num_classes", 0)) or None
        check_task(model, train)
        check_train_set(train, classes)
        self.regression = is_regression(train)
        self.device = device = pick_device(device)
        self.rank, processes = world()
        check_split(settings.batch_size, processes)
        memory.check_training(
            model,
            train.tensors[: 3 if self.regression else 2],
            batch_size=min(settings.batch_size, len(train.tensors[0])) // processes,
            optimizer=settings.optimizer,
            device=device,
            precision=precision,
            evaluation_batch=min(memory.EVAL_BATCH, eval_size),
        )
        self.model, self.settings, self.augment = model.to(device).train(), settings, augment
        self.images, self.labels = (t.to(device) for t in train.tensors[:2])
        if self.regression:  # labels: the targets; the mask says which of them are scored
            self.masked = train.tensors[2].to(device)
            objective = _MaskedMSE(train.tensors[1][train.tensors[2]].var().item())
        else:
            self.classes = classes or int(self.labels.max()) + 1
            objective = _CrossEntropy(settings.label_smoothing)
        self.path = Path(out) / CHECKPOINT if out is not None else None
        self.step = _Step(model, settings, device, precision, compile, processes, objective)
        torch.manual_seed(settings.seed)
        self.batches = _Batches(
            len(self.images), settings.batch_size, settings.seed, device, self.rank, processes
        )
        self.augment_rng = torch.Generator(device=device)
        self.history, self.start = History(), 0
        hint = (
            f"lower the learning rate (lr={settings.lr}) or clip gradients (grad_clip={settings.grad_clip})"
        )
        self.meter = _Meter(
            [self.history], processes, self.path, hint, score="r2" if self.regression else "acc"
        )

    def batch(self, step: int) -> tuple[Tensor, Tensor, Tensor]:
        """Images, targets (mixed by augmentation, if any) and labels of the step's batch; for a
        regression, inputs, targets and the mask."""
        idx = self.batches.next()
        x, y = self.images[idx], self.labels[idx]
        if self.regression:
            return x, y, self.masked[idx]
        if not self.augment:
            return x, y, y
        # reseeded every step, so a resumed run (and each process) draws what it would have
        self.augment_rng.manual_seed(augment_seed(self.settings.seed, self.rank, step))
        x, target = self.augment(x, y, self.classes, self.augment_rng)
        return x, target, target.argmax(-1)

    def train(
        self,
        eval_data: TensorDataset | None,
        eval_every: int,
        sync_every: int,
        checkpoint_every: int,
        callback: Callable[[int, nn.Module, History], None] | None,
        progress: bool,
        desc: str | None,
    ) -> History:
        steps, history = self.settings.steps, self.history
        bar = _progress(self.start, steps, desc, enabled=progress and self.rank == 0)
        say = bar.write if self.rank == 0 else (lambda text: None)
        try:
            with StopSignals(lambda text: say(text, file=sys.stderr), world()[1] == 1) as stop:
                for step in range(self.start, steps):
                    self.meter.add(step, *self.step(step, *self.batch(step)))
                    done = step + 1
                    evaluating = eval_data is not None and (done % eval_every == 0 or done == steps)
                    saving = self.path is not None and (
                        done % checkpoint_every == 0 or done == steps or stop.pressed
                    )
                    if callback or evaluating or saving or done % sync_every == 0 or done == steps:
                        self.meter.flush()
                        bar.update(done - bar.n)
                        bar.set_postfix(self.meter.summary(), refresh=False)
                    if evaluating:
                        history.eval_step.append(done)
                        history.eval_accuracy.append(evaluate(self.model, eval_data))
                    if callback is not None:
                        callback(done, self.model, history)
                    if saving or (stop.pressed and self.path is not None):
                        self.save(done)
                    if stop.pressed and done < steps:
                        self.meter.flush()
                        raise Interrupted(done, steps, self.path, stop.received)
        finally:
            bar.close()
        return history

    def save(self, step: int) -> None:
        """Check the weights, then write everything a resumed run needs to end bit-for-bit where
        this one would have (one writer; every process resumes from the same file)."""
        if not all(torch.isfinite(p).all() for p in self.model.parameters()):
            raise TrainingDiverged(
                f"weights became NaN or inf at step {step}; "
                f"{kept(self.path)}lower the learning rate (lr={self.settings.lr}) or clip gradients"
            )
        if self.rank != 0:
            return
        state = training_state(
            model=self.model,
            optimizer=self.step.opt,
            scaler=self.step.scaler,
            settings=self.settings,
            step=step,
            batches=self.batches,
            device=self.device,
            history=self.history,
        )
        try:
            save_checkpoint(state, self.path)
        except SaveFailed as err:
            advice = "free some space on that disk" if err.full else "make the folder writable again"
            raise SaveFailed(
                f"could not write the checkpoint at step {step} ({err.reason}); "
                f"{kept(self.path) or 'no checkpoint was written yet; '}{advice}, then continue with "
                "resume=True",
                err.path,
                err.reason,
                err.full,
            ) from None

    def resume(self) -> None:
        """Continue from the checkpoint in `out`, if there is one, after checking it was trained
        with the same config and settings."""
        if self.path is None:
            return
        state = resumable(self.path, getattr(self.model, "config", None), self.settings)
        if state is None:
            return
        opt, scaler = self.step.opt, self.step.scaler
        check_resumable(self.path, state, self.model, len(self.images), opt)
        restore(
            state, model=self.model, optimizer=opt, scaler=scaler, batches=self.batches, device=self.device
        )
        self.start = state["step"]
        self.history = History(**state["history"])
        self.meter.histories = [self.history]


class _CrossEntropy:
    """A classifier's loss (with label smoothing) and batch accuracy."""

    def __init__(self, label_smoothing: float):
        self.label_smoothing = label_smoothing

    def __call__(self, logits: Tensor, target: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        loss = F.cross_entropy(logits.float(), target, label_smoothing=self.label_smoothing)
        return loss, (logits.argmax(-1) == y).float().mean()


class _MaskedMSE:
    """A masked-token regression's loss, the mean squared error over the masked tokens, and its R²
    against `variance` (the training set's masked targets')."""

    def __init__(self, variance: float):
        self.variance = max(variance, 1e-12)

    def __call__(self, out: Tensor, targets: Tensor, masked: Tensor) -> tuple[Tensor, Tensor]:
        err = (out.float().reshape(targets.shape) - targets).square()
        loss = err[masked].mean()
        return loss, 1 - loss.detach() / self.variance


class _Step:
    """One optimizer step: forward (under autocast), loss, backward (with loss scaling for fp16),
    clipping, update. Returns the loss and the batch accuracy (a regression's R²) as tensors on the
    device (no wait)."""

    def __init__(
        self,
        model: nn.Module,
        settings: _Settings,
        device: torch.device,
        precision: str,
        compile: bool | str,
        world: int,
        objective: _CrossEntropy | _MaskedMSE | None = None,
    ):
        self.model, self.settings = model, settings
        self.objective = objective or _CrossEntropy(settings.label_smoothing)
        self.opt = _optimizer(model, settings)
        dtype = autocast_dtype(device, precision)
        self.autocast = torch.autocast(device.type, dtype=dtype or torch.float32, enabled=dtype is not None)
        self.scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)
        self.net = wrap(model, device, world, compile)
        self.graphs = compile == "reduce-overhead" and device.type == "cuda"

    def __call__(self, step: int, x: Tensor, target: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        s = self.settings
        rate = lr_at(step, steps=s.steps, lr=s.lr, warmup=s.warmup, schedule=s.schedule)
        for group in self.opt.param_groups:
            group["lr"] = rate * group.get("lr_scale", 1.0)
        if self.graphs:
            torch.compiler.cudagraph_mark_step_begin()
        with self.autocast:
            loss, correct = self.objective(self.net(x), target, y)
        self.opt.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        if s.grad_clip:
            self.scaler.unscale_(self.opt)
            nn.utils.clip_grad_norm_(self.model.parameters(), s.grad_clip)
        self.scaler.step(self.opt)  # with fp16 loss scaling: one wait, to skip steps with inf gradients
        self.scaler.update()
        return loss.detach(), correct


def _optimizer(
    model: nn.Module, s: _Settings, stacked: dict[str, Tensor] | None = None
) -> torch.optim.Optimizer:
    """AdamW (or SGD with momentum) over the model's parameter groups, the position encoding's in
    groups of their own when its learning rate is scaled; with `stacked` (parameter name -> the
    ensemble's stacked tensor), over those in the same groups."""
    groups = (
        model.parameter_groups(s.weight_decay)
        if hasattr(model, "parameter_groups")
        else [{"params": [p for p in model.parameters() if p.requires_grad]}]
    )
    if s.position_lr_scale != 1.0:
        groups = _split_position(model, groups, s.position_lr_scale)
    if stacked is not None:
        names = {id(p): n for n, p in model.named_parameters()}
        groups = [{**g, "params": [stacked[names[id(p)]] for p in g["params"]]} for g in groups]
    if s.optimizer == "adamw":
        return torch.optim.AdamW(groups, lr=s.lr, weight_decay=s.weight_decay)
    return torch.optim.SGD(groups, lr=s.lr, momentum=0.9, weight_decay=s.weight_decay)


def augment_seed(seed: int, rank: int, step: int) -> int:
    """The augmentation generator's seed at `step` of the run seeded `seed`, in process `rank`."""
    return ((seed * 1_000_003 + rank) * 1_000_003 + step) % 2**63


class _Batches:
    """The batch order: a seeded shuffle of the training set each epoch, kept on the device; under
    torchrun every process draws the same global batch and takes its share."""

    def __init__(self, n: int, batch_size: int, seed: int, device: torch.device, rank: int, world: int):
        self.n, self.batch_size, self.device, self.rank, self.world = n, batch_size, device, rank, world
        self.generator = torch.Generator().manual_seed(seed)
        self.order, self.cursor = self._shuffle(), 0

    def _shuffle(self) -> Tensor:
        return torch.randperm(self.n, generator=self.generator).to(self.device)

    def next(self) -> Tensor:
        """This process's indices of the next batch (on the device)."""
        if self.cursor + self.batch_size > self.n:  # a new epoch
            self.order, self.cursor = self._shuffle(), 0
        idx = self.order[self.cursor : self.cursor + self.batch_size][self.rank :: self.world]
        self.cursor += self.batch_size
        return idx


FIRST_STEP = (
    "that is before any update, so the learning rate is not the cause: the untrained model's output is "
    "not finite; check the weights it starts from and its encoding's options"
)


class _Meter:
    """Loss and batch accuracy of each step, kept on the device until `flush` reads them all at once
    (under torchrun: averaged over the processes, as one process would see the global batch). Keeps
    one History per model trained at once (`minivit.ensemble`), each named for the errors."""

    def __init__(
        self,
        histories: list[History],
        world: int,
        path: Path | None,
        hint: str,
        names=None,
        score: str = "acc",
    ):
        self.histories, self.world, self.path, self.hint = histories, world, path, hint
        self.names, self.score = names, score
        self.steps: list[int] = []
        self.values: list[Tensor] = []

    def add(self, step: int, loss: Tensor, correct: Tensor) -> None:
        """Loss and accuracy of one step: scalars, or one per model [K]."""
        self.steps.append(step)
        self.values.append(torch.stack([loss.detach().float().reshape(-1), correct.reshape(-1)], -1))

    def flush(self) -> None:
        """Append the waiting steps to the histories; raise TrainingDiverged at a NaN or inf loss."""
        if not self.steps:
            return
        both = torch.stack(self.values)  # (steps, models, 2)
        if self.world > 1:
            torch.distributed.all_reduce(both)
            both = both / self.world
        rows = both.tolist()  # the one wait for the device
        steps, self.steps, self.values = self.steps, [], []
        for step, row in zip(steps, rows, strict=True):
            for k, (loss, accuracy) in enumerate(row):
                if not math.isfinite(loss):
                    who = f" of {self.names[k]}" if self.names else ""
                    raise TrainingDiverged(
                        f"loss{who} became {loss} at step {step + 1}; {kept(self.path)}"
                        + (FIRST_STEP if step == 0 else self.hint)
                    )
                history = self.histories[k]
                history.step.append(step)
                history.loss.append(loss)
                history.accuracy.append(accuracy)

    def summary(self) -> dict[str, str]:
        """What the progress bar shows (averaged over the models): the last loss, the accuracy of
        the last 20 batches, the last evaluation."""
        hs = [h for h in self.histories if h.loss]
        post = {}
        if hs:
            post["loss"] = f"{np.mean([h.loss[-1] for h in hs]):.3f}"
            post[self.score] = f"{np.mean([h.accuracy[-20:] for h in hs]):.2f}"
        evals = [h.eval_accuracy[-1] for h in self.histories if h.eval_accuracy]
        if evals:
            post["eval"] = f"{np.mean(evals):.2f}"
        return post


def _progress(start: int, steps: int, desc: str | None, enabled: bool) -> tqdm:
    # at most ~50 redraws per run: in a notebook each redraw is a message to the front end, and a
    # flood of them (a slow machine, a long run) can overrun the kernel's output queue
    return tqdm(
        desc=desc or "training",
        disable=not enabled,
        leave=True,
        initial=start,
        total=steps,
        mininterval=0.5,
        miniters=max(1, (steps - start) // 50),
    )


def _split_position(model: nn.Module, groups: list[dict], scale: float) -> list[dict]:
    """The same parameter groups with the position encoding's parameters moved to their own groups
    whose learning rate is `scale` times the others'."""
    position = {id(p) for name, p in model.named_parameters() if name.startswith("pos.")}
    if not position:
        raise ValueError("position_lr_scale needs a model whose encoding has parameters (model.pos)")
    out = []
    for group in groups:
        rest = {k: v for k, v in group.items() if k != "params"}
        mine = [p for p in group["params"] if id(p) in position]
        others = [p for p in group["params"] if id(p) not in position]
        out += [{"params": others, **rest}] if others else []
        out += [{"params": mine, **rest, "lr_scale": scale}] if mine else []
    return out
