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

The loop is here; its parts are modules of their own, whose names are importable from here too:
`minivit.fitchecks` (the options), `minivit.plan` (the options, device, batch split and memory
checked into a `Plan`, which `fit_plan` trains with), `minivit.schedule` (the learning rate),
`minivit.step` (one optimizer step), `minivit.batches` (the batch order and the seeds),
`minivit.progress` (the History, the meter and the progress bar).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from torch import Tensor, nn
from torch.utils.data import TensorDataset

from minivit import nulls
from minivit.augment import Augment
from minivit.batches import _Batches, augment_seed, seed_everything
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
from minivit.datachecks import check_task, check_train_set, is_regression
from minivit.devices import PRECISIONS, autocast_dtype, init_distributed, pick_device, world
from minivit.evaluate import evaluate
from minivit.fitchecks import COMPILE, OPTIMIZERS, check_fit_options, diverging_hint
from minivit.plan import Plan, check_inputs, check_train, plan_for
from minivit.progress import History, TrainingDiverged, _Meter, _progress
from minivit.runsafety import Interrupted, SaveFailed, StopSignals, run_lock
from minivit.schedule import SCHEDULES, default_warmup, lr_at
from minivit.step import _CrossEntropy, _MaskedMSE, _Step

__all__ = [  # fit, with the names of the modules it is built from
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
    "fit_plan",
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
    stop_at: int | None = None,
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
        stop_at: stop after this many steps of the `steps`-step run: the first `stop_at` steps of
            it, learning-rate schedule and batches included (a control compared with a longer run
            at that step); with `out`, `resume=True` and no `stop_at` later finish the run.
    Raises:
        TrainingDiverged: the loss became NaN or inf (seen within `sync_every` steps; the last good
            checkpoint is kept).
        Interrupted: a Ctrl-C or SIGTERM stopped the run after its step, saved in `out`.
        SaveFailed: a checkpoint could not be written (a full disk); the last good one is kept.
        ValueError: an option out of range, a step that needs more memory than the device has,
            `out` in use by another run, or a checkpoint that cannot be resumed (damaged, foreign).
    """
    options = dict(
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
    settings = check_fit_options(**options)
    given = dict(stop_at=stop_at, callback=callback, out=out, resume=resume)
    out = check_inputs(
        model, train, eval_data, augment=augment, label_smoothing=label_smoothing, steps=steps, **given
    )
    train = nulls.training_set(train, settings.seed)  # MINIVIT_NULL=labels: a null run
    check_train(model, train)
    size = len(eval_data.tensors[0]) if eval_data is not None else 0
    plan = plan_for(model, train, settings, device=device, eval_size=size, processes=world()[1], **options)
    return _fit(model, train, plan, eval_data, progress, desc, out, resume, callback, stop_at)


def fit_plan(
    model: nn.Module,
    train: TensorDataset,
    plan: Plan,
    *,
    eval_data: TensorDataset | None = None,
    progress: bool = True,
    desc: str | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    callback: Callable[[int, nn.Module, History], None] | None = None,
    stop_at: int | None = None,
) -> History:
    """Train `model` on `train` as `fit` given the plan's options does, bit for bit, with the options
    checked once into `plan` (`minivit.plan`; `minivit train` makes it before the data) and not again:
    the data, the model (the one the plan was made for) and `out` are checked here."""
    s = plan.settings
    given = dict(stop_at=stop_at, callback=callback, out=out, resume=resume)
    out = check_inputs(
        model,
        train,
        eval_data,
        augment=plan.augment,
        label_smoothing=s.label_smoothing,
        steps=s.steps,
        **given,
    )
    train = nulls.training_set(train, s.seed)  # MINIVIT_NULL=labels: a null run
    check_train(model, train, plan)
    return _fit(model, train, plan, eval_data, progress, desc, out, resume, callback, stop_at)


def _fit(model, train, plan: Plan, eval_data, progress, desc, out, resume, callback, stop_at) -> History:
    """Train with `fit_plan`'s arguments once they are checked: `out` checked, locked, then the run."""
    run = _Run(model, train, plan, out)
    if out is not None:  # after every other check: a refused run writes nothing
        weights = 4 * sum(p.numel() * p.element_size() for p in model.parameters())  # 2 moments, slack
        check_writable(out, model_bytes=weights, name="out", resume=resume)  # and no checkpoint to lose
    # one run at a time in `out` (under torchrun, `minivit train` holds it for every process)
    locked = run_lock(out) if out is not None and plan.processes == 1 else contextlib.nullcontext()
    with locked:
        if resume:
            run.resume()
        steps = plan.settings.steps
        every = max(1, steps // 10)
        return run.train(
            eval_data,
            plan.eval_every or every,
            plan.sync_every,
            plan.checkpoint_every or every,
            callback,
            progress,
            desc,
            stop_at or steps,
        )


class _Run:
    """One training run: the model, its step, the batch order, the history and where it is saved."""

    def __init__(self, model: nn.Module, train: TensorDataset, plan: Plan, out: str | Path | None = None):
        settings, augment, device = plan.settings, plan.augment, plan.device
        classes = int(getattr(getattr(model, "config", None), "num_classes", 0)) or None
        self.regression = is_regression(train)
        self.device, self.rank, processes = device, world()[0], plan.processes
        self.model, self.settings, self.augment = model.to(device).train(), settings, augment
        self.images, self.labels = (t.to(device) for t in train.tensors[:2])
        if self.regression:  # labels: the targets; the mask says which of them are scored
            self.masked = train.tensors[2].to(device)
            objective = _MaskedMSE(train.tensors[1][train.tensors[2]].var().item())
        else:
            self.classes = classes or int(self.labels.max()) + 1
            objective = _CrossEntropy(settings.label_smoothing)
        self.path = Path(out) / CHECKPOINT if out is not None else None
        self.step = _Step(model, settings, device, plan.precision, plan.compile, processes, objective)
        torch.manual_seed(settings.seed)
        self.batches = _Batches(
            len(self.images), settings.batch_size, settings.seed, device, self.rank, processes
        )
        self.augment_rng = torch.Generator(device=device)
        self.history, self.start = History(), 0
        tip = diverging_hint(settings)
        self.meter = _Meter(
            [self.history], processes, self.path, tip, score="r2" if self.regression else "acc"
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
        until: int,
    ) -> History:
        """Steps from `self.start` up to `until` (at most the run's `steps`)."""
        steps, history = until, self.history
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
                f"weights became NaN or inf at step {step}; {kept(self.path)}{diverging_hint(self.settings)}"
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
            advice = err.advice
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
