"""fit: one training loop for a laptop CPU, a GPU or Colab, or several GPUs under torchrun.

AdamW with linear warmup and cosine decay, label smoothing, gradient clipping, mixed precision on a
GPU (bf16, or fp16 with loss scaling where bf16 is missing, as on Colab's T4), augmentation of each
batch on its device (`minivit.augment`), `torch.compile` on request, a progress bar that shows loss
and accuracy, and a history for the lessons to plot.

Under `torchrun --nproc_per_node N` (after `init_distributed()`), `fit` trains with
DistributedDataParallel: every process holds the data, draws the same global batch and trains on its
1/N share of it, so N processes follow the loss curve of one process with the same batch size.

With `out=`, a run keeps a checkpoint (config, model, optimizer, step, batch order and every RNG
state) written atomically every `checkpoint_every` steps and at the end; `resume=True` continues
from it and ends with the same weights as a run that was never interrupted (bitwise on a CPU).
A loss that becomes NaN or inf stops the run and leaves the last good checkpoint in place.

A step never waits for the device: the batch order lives on it, and the loss and accuracy of each
step stay there until they are read, all at once, every `sync_every` steps (and at evaluations,
checkpoints and the end), so a GPU runs ahead of Python instead of idling between small steps.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import TensorDataset
from tqdm.auto import tqdm

from minivit.augment import Augment
from minivit.config import ViTConfig, check_number, check_whole
from minivit.evaluate import evaluate

CHECKPOINT = "checkpoint.pt"
CHECKPOINT_FORMAT = 1  # raise when what a checkpoint holds changes; older files then get a clear error
OPTIMIZERS = ("adamw", "sgd")
SCHEDULES = ("cosine", "constant")
RESUME_KEYS = ("optimizer", "settings", "step", "cursor", "order", "rng", "history")
PRECISIONS = ("auto", "bf16", "fp16", "fp32")
COMPILE = (False, True, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """`device` if given, else the best available: cuda, then mps, then cpu."""
    if device is not None:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def autocast_dtype(device: torch.device, precision: str = "auto") -> torch.dtype | None:
    """The autocast dtype for `precision` on `device` (None: full fp32).

    "auto" is bf16 on a GPU that has it, fp16 (with loss scaling in `fit`) on one that does not
    (Colab's T4), and fp32 on a CPU or mps.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    if precision == "auto":
        if device.type != "cuda":
            return None
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}[precision]


def init_distributed(device: str | None = None) -> tuple[int, int, torch.device | None]:
    """Join the process group that `torchrun` describes in the environment (WORLD_SIZE, RANK,
    LOCAL_RANK, MASTER_ADDR, MASTER_PORT): nccl with one GPU per process where there are GPUs (and
    `device` is not "cpu"), else gloo on the CPU. Returns (rank, world size, this process's device);
    outside torchrun, (0, 1, None).
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return 0, 1, None
    dist = torch.distributed
    rank, local = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    if torch.cuda.is_available() and (device is None or torch.device(device).type == "cuda"):
        device = torch.device("cuda", local)
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    if not dist.is_initialized():
        dist.init_process_group(backend)
    return rank, world, device


def _world() -> tuple[int, int]:
    """(rank, world size) of this process: (0, 1) unless a process group is running."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (all devices)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@dataclass
class History:
    """What happened during training: per-step loss and batch accuracy, and periodic evaluations."""

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


def write_atomic(path: str | Path, write: Callable[[BinaryIO], object]) -> None:
    """Write a file through a temporary file in the same folder and a rename, so a crash or a kill
    mid-write leaves the previous file intact, never half of a new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by runs killed mid-write
            stale.unlink(missing_ok=True)
    finally:
        tmp.unlink(missing_ok=True)


def save_checkpoint(state: dict[str, Any], path: str | Path) -> None:
    """Write `state` to `path` atomically (`write_atomic`)."""
    write_atomic(path, lambda f: torch.save(state, f))


def load_checkpoint(path: str | Path, model: nn.Module | None = None) -> dict[str, Any]:
    """Load a checkpoint (a file, or a run folder holding one) safely (`weights_only=True`).

    With `model`, check that it has the checkpoint's config (else a ValueError names the fields that
    differ) and load the weights into it.
    """
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}; train first (minivit train --out {path.parent})")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # empty, truncated, corrupt, or not a torch file at all
        raise ValueError(
            f"{path} cannot be read as a checkpoint ({type(err).__name__}): it is empty, truncated, corrupt "
            "or not a minivit checkpoint; resume from another run folder or train again"
        ) from None
    needed = {"config", "model"} if model is not None else set()
    found = state.get("format", CHECKPOINT_FORMAT) if isinstance(state, dict) else None
    missing = sorted(needed - set(state)) if isinstance(state, dict) else sorted(needed)
    if found != CHECKPOINT_FORMAT or missing:
        raise ValueError(
            f"{path} is not a checkpoint this version of minivit reads (format {found!r}, "
            f"{'missing ' + ', '.join(missing) if missing else 'other format'}; this version writes "
            f"format {CHECKPOINT_FORMAT}); train again, or load it with the minivit version that wrote it"
        )
    if model is not None:
        config = getattr(model, "config", None)
        if config is not None and state.get("config") is not None:
            saved = ViTConfig.from_dict(state["config"])
            diff = saved.differences(config)
            if diff:
                fields = "; ".join(f"{k}: checkpoint {a!r}, model {b!r}" for k, (a, b) in diff.items())
                raise ValueError(
                    f"checkpoint {path} is from another config ({fields}); build the model with "
                    "minivit.train.load_model(path) or ViTConfig.from_dict(checkpoint['config'])"
                )
        model.load_state_dict(state["model"])
    return state


def load_model(path: str | Path) -> nn.Module:
    """The ViT saved in a checkpoint (file or run folder), built from its config, in eval mode."""
    from minivit.model import ViT

    state = load_checkpoint(path)
    if state.get("config") is None or "model" not in state:
        raise ValueError(
            f"{path} is not a checkpoint this version of minivit reads (it holds no config and model); "
            "train again, or load it with the minivit version that wrote it"
        )
    model = ViT(ViTConfig.from_dict(state["config"]))
    model.load_state_dict(state["model"])
    return model.eval()


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
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; known: {', '.join(SCHEDULES)}")
    check_number("label_smoothing", label_smoothing, low=0, high=1)
    if grad_clip is not None:
        check_number("grad_clip", grad_clip, low=0, low_ok=False)
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; known: {', '.join(OPTIMIZERS)}")
    check_number("position_lr_scale", position_lr_scale, low=0, low_ok=False)
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    if compile not in COMPILE:
        raise ValueError(f"unknown compile {compile!r}; known: {', '.join(map(repr, COMPILE))}")
    check_whole("sync_every", sync_every, 1)
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


def check_train_set(train: TensorDataset, num_classes: int | None = None) -> None:
    """Raise a ValueError unless `train` holds images [B, C, H, W] and labels in [0, num_classes)."""
    tensors = getattr(train, "tensors", None)
    if not tensors or len(tensors) < 2:
        raise ValueError("the training data must be a TensorDataset(images, labels)")
    images, labels = tensors[:2]
    if len(images) == 0:
        raise ValueError("the training set is empty; pass at least one example")
    if images.dim() != 4:
        raise ValueError(f"images must be [B, C, H, W], got shape {tuple(images.shape)}")
    if labels.dtype.is_floating_point or labels.dim() != 1:
        raise ValueError(f"labels must be whole class numbers [B], got {labels.dtype} {tuple(labels.shape)}")
    low, high = int(labels.min()), int(labels.max())
    if low < 0 or (num_classes and high >= num_classes):
        raise ValueError(
            f"labels run from {low} to {high}, but the model has num_classes={num_classes}; "
            f"labels must lie in 0..{(num_classes or high + 1) - 1} (set num_classes in ViTConfig)"
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
        resume: continue from the checkpoint in `out` if there is one.
        callback: called as callback(step, model, history) after every step (step = steps done).
    Raises:
        TrainingDiverged: the loss became NaN or inf (seen within `sync_every` steps; the last good
            checkpoint is kept).
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
    run = _Run(model, train, settings, augment, device, precision, compile, out)
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
    ):
        classes = int(getattr(getattr(model, "config", None), "num_classes", 0)) or None
        check_train_set(train, classes)
        self.device = device = pick_device(device)
        self.rank, world = _world()
        if settings.batch_size % world:
            raise ValueError(
                f"batch size {settings.batch_size} does not split over {world} processes; use a multiple "
                f"of {world} (e.g. {settings.batch_size - settings.batch_size % world or world})"
            )
        self.model, self.settings, self.augment = model.to(device).train(), settings, augment
        self.images, self.labels = (t.to(device) for t in train.tensors[:2])
        self.classes = classes or int(self.labels.max()) + 1
        self.path = Path(out) / CHECKPOINT if out is not None else None
        self.step = _Step(model, settings, device, precision, compile, world)
        torch.manual_seed(settings.seed)
        self.batches = _Batches(
            len(self.images), settings.batch_size, settings.seed, device, self.rank, world
        )
        self.augment_rng = torch.Generator(device=device)
        self.history, self.start = History(), 0
        hint = (
            f"lower the learning rate (lr={settings.lr}) or clip gradients (grad_clip={settings.grad_clip})"
        )
        self.meter = _Meter([self.history], world, self.path, hint)

    def batch(self, step: int) -> tuple[Tensor, Tensor, Tensor]:
        """Images, targets (mixed by augmentation, if any) and labels of the step's batch."""
        idx = self.batches.next()
        x, y = self.images[idx], self.labels[idx]
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
        try:
            for step in range(self.start, steps):
                self.meter.add(step, *self.step(step, *self.batch(step)))
                done = step + 1
                evaluating = eval_data is not None and (done % eval_every == 0 or done == steps)
                saving = self.path is not None and (done % checkpoint_every == 0 or done == steps)
                if callback or evaluating or saving or done % sync_every == 0 or done == steps:
                    self.meter.flush()
                    bar.update(done - bar.n)
                    bar.set_postfix(self.meter.summary(), refresh=False)
                if evaluating:
                    history.eval_step.append(done)
                    history.eval_accuracy.append(evaluate(self.model, eval_data))
                if callback is not None:
                    callback(done, self.model, history)
                if saving:
                    self.save(done)
        finally:
            bar.close()
        return history

    def save(self, step: int) -> None:
        """Check the weights, then write everything a resumed run needs to end bit-for-bit where
        this one would have (one writer; every process resumes from the same file)."""
        model, opt, scaler = self.model, self.step.opt, self.step.scaler
        if not all(torch.isfinite(p).all() for p in model.parameters()):
            raise TrainingDiverged(
                f"weights became NaN or inf at step {step}; "
                f"{_kept(self.path)}lower the learning rate (lr={self.settings.lr}) or clip gradients"
            )
        if self.rank != 0:
            return
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": model.config.to_dict() if hasattr(model, "config") else None,
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "scaler": scaler.state_dict() if scaler.is_enabled() else None,
            "settings": asdict(self.settings),
            "step": step,
            "cursor": self.batches.cursor,
            "order": self.batches.order.cpu(),
            "rng": {
                "batches": self.batches.generator.get_state(),
                "torch": torch.get_rng_state(),
                "cuda": torch.cuda.get_rng_state() if self.device.type == "cuda" else None,
            },
            "history": asdict(self.history),
        }
        save_checkpoint(state, self.path)

    def resume(self) -> None:
        """Continue from the checkpoint in `out`, if there is one, after checking it was trained
        with the same settings."""
        path, device = self.path, self.device
        if path is None or not path.exists():
            return
        state = load_checkpoint(path, self.model)
        lacking = sorted(set(RESUME_KEYS) - set(state))
        if lacking:
            raise ValueError(
                f"cannot resume {path}: it holds no {', '.join(lacking)} (weights only?); use a new --out"
            )
        saved, now = asdict(_Settings(**state["settings"])), asdict(self.settings)
        if saved != now:
            diff = ", ".join(f"{k}: {v!r} then, {now[k]!r} now" for k, v in saved.items() if now[k] != v)
            raise ValueError(
                f"cannot resume {path}: it was trained with other settings ({diff}); "
                "pass the same settings, or a new --out folder"
            )
        self.step.opt.load_state_dict(state["optimizer"])
        if state.get("scaler"):
            self.step.scaler.load_state_dict(state["scaler"])
        self.batches.cursor, self.batches.order = state["cursor"], state["order"].to(device)
        self.batches.generator.set_state(state["rng"]["batches"])
        torch.set_rng_state(state["rng"]["torch"])
        if device.type == "cuda" and state["rng"].get("cuda") is not None:
            torch.cuda.set_rng_state(state["rng"]["cuda"])
        self.start = state["step"]
        self.history = History(**state["history"])
        self.meter.histories = [self.history]


class _Step:
    """One optimizer step: forward (under autocast), loss, backward (with loss scaling for fp16),
    clipping, update. Returns the loss and the batch accuracy as tensors on the device (no wait)."""

    def __init__(
        self,
        model: nn.Module,
        settings: _Settings,
        device: torch.device,
        precision: str,
        compile: bool | str,
        world: int,
    ):
        self.model, self.settings = model, settings
        self.opt = _optimizer(model, settings)
        dtype = autocast_dtype(device, precision)
        self.autocast = torch.autocast(device.type, dtype=dtype or torch.float32, enabled=dtype is not None)
        self.scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)
        self.net = _wrap(model, device, world, compile)
        self.graphs = compile == "reduce-overhead" and device.type == "cuda"

    def __call__(self, step: int, x: Tensor, target: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        s = self.settings
        rate = lr_at(step, steps=s.steps, lr=s.lr, warmup=s.warmup, schedule=s.schedule)
        for group in self.opt.param_groups:
            group["lr"] = rate * group.get("lr_scale", 1.0)
        if self.graphs:
            torch.compiler.cudagraph_mark_step_begin()
        with self.autocast:
            logits = self.net(x)
            loss = F.cross_entropy(logits.float(), target, label_smoothing=s.label_smoothing)
        correct = (logits.argmax(-1) == y).float().mean()
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


def _wrap(model: nn.Module, device: torch.device, world: int, compile: bool | str) -> nn.Module:
    """The model as the step calls it: under DistributedDataParallel with several processes, through
    `torch.compile` on request."""
    net = model
    if world > 1:
        from torch.nn.parallel import DistributedDataParallel

        ids = (
            [device.index if device.index is not None else torch.cuda.current_device()]
            if device.type == "cuda"
            else None
        )
        net = DistributedDataParallel(model, device_ids=ids)
    if compile:
        net = torch.compile(net, mode=None if compile is True else compile)
    return net


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


class _Meter:
    """Loss and batch accuracy of each step, kept on the device until `flush` reads them all at once
    (under torchrun: averaged over the processes, as one process would see the global batch). Keeps
    one History per model trained at once (`minivit.ensemble`), each named for the errors."""

    def __init__(self, histories: list[History], world: int, path: Path | None, hint: str, names=None):
        self.histories, self.world, self.path, self.hint = histories, world, path, hint
        self.names = names
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
                        f"loss{who} became {loss} at step {step + 1}; {_kept(self.path)}{self.hint}"
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
            post["acc"] = f"{np.mean([h.accuracy[-20:] for h in hs]):.2f}"
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


def _kept(path: Path | None) -> str:
    if path is not None and path.exists():
        step = torch.load(path, map_location="cpu", weights_only=True)["step"]
        return f"the last good checkpoint (step {step}) is kept at {path}; "
    return ""
