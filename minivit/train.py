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
from torch import nn
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
    eval_every: int | None = None,
    checkpoint_every: int | None = None,
) -> None:
    """Raise a ValueError that names the first of `fit`'s options out of range and what it takes
    (`minivit train` calls it before it writes anything)."""
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
    for name, every in (("eval_every", eval_every), ("checkpoint_every", checkpoint_every)):
        if every is not None:
            check_whole(name, every, 1)


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
    compile: bool = False,
    eval_data: TensorDataset | None = None,
    eval_every: int | None = None,
    seed: int = 0,
    device: str | torch.device | None = None,
    progress: bool = True,
    desc: str | None = None,
    out: str | Path | None = None,
    checkpoint_every: int | None = None,
    resume: bool = False,
    callback: Callable[[int, nn.Module, History], None] | None = None,
) -> History:
    """Train `model` on `train` (a TensorDataset of images and labels) for `steps` steps.

    Args:
        warmup: warmup steps (default: 5% of `steps`).
        schedule: after the warmup, "cosine" decay to 0 or a "constant" learning rate.
        optimizer: "adamw", or "sgd" (momentum 0.9, weight decay as an L2 term; same lr schedule).
        position_lr_scale: the position encoding's parameters (`model.pos`) train at this multiple
            of the learning rate.
        augment: what to do to each batch on its device (crop, flip, RandAugment, mixup/CutMix,
            erasing); the loss then uses the mixed targets.
        precision: "auto" (bf16 on a GPU that has it, fp16 with loss scaling on one that does not,
            fp32 on a CPU), or "bf16", "fp16", "fp32" anywhere.
        compile: run the model through `torch.compile` (worth it on a GPU for long runs; the first
            steps then take a while to compile).
        eval_data: evaluated every `eval_every` steps (default: 10 times per run) and at the end.
        seed: seeds the batch order and every random choice in training.
        device: default cuda, then mps, then cpu (under torchrun: the process's own GPU).
        out: a folder for the checkpoint (`out/checkpoint.pt`), written every `checkpoint_every`
            steps (default: 10 times per run) and at the end.
        resume: continue from the checkpoint in `out` if there is one.
        callback: called as callback(step, model, history) after every step (step = steps done).
    Returns:
        the History of the run.
    Raises:
        TrainingDiverged: the loss became NaN or inf (the last good checkpoint is kept).
    """
    check_fit_options(
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
        eval_every=eval_every,
        checkpoint_every=checkpoint_every,
    )
    config_classes = int(getattr(getattr(model, "config", None), "num_classes", 0)) or None
    check_train_set(train, config_classes)
    device = pick_device(device)
    rank, world = _world()
    if batch_size % world:
        raise ValueError(
            f"batch size {batch_size} does not split over {world} processes; "
            f"use a multiple of {world} (e.g. {batch_size - batch_size % world or world})"
        )
    model.to(device).train()
    images, labels = (t.to(device) for t in train.tensors[:2])
    num_classes = config_classes or int(labels.max()) + 1
    dtype = autocast_dtype(device, precision)
    settings = _Settings(
        steps,
        batch_size,
        lr,
        weight_decay,
        default_warmup(steps) if warmup is None else warmup,
        label_smoothing,
        grad_clip,
        seed,
        optimizer,
        position_lr_scale,
        repr(augment) if augment else "",
        schedule,
    )
    eval_every = eval_every or max(1, steps // 10)
    checkpoint_every = checkpoint_every or max(1, steps // 10)
    groups = (
        model.parameter_groups(weight_decay)
        if hasattr(model, "parameter_groups")
        else [{"params": [p for p in model.parameters() if p.requires_grad]}]
    )
    if position_lr_scale != 1.0:
        groups = _split_position(model, groups, position_lr_scale)
    opt = (
        torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
        if optimizer == "adamw"
        else torch.optim.SGD(groups, lr=lr, momentum=0.9, weight_decay=weight_decay)
    )
    autocast = torch.autocast(device.type, dtype=dtype or torch.float32, enabled=dtype is not None)
    scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)
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
        net = torch.compile(net)
    augment_rng = torch.Generator(device=device)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    history, start = History(), 0
    order, cursor = torch.randperm(len(images), generator=g), 0
    path = Path(out) / CHECKPOINT if out is not None else None

    if resume and path is not None and path.exists():
        state = load_checkpoint(path, model)
        lacking = sorted(set(RESUME_KEYS) - set(state))
        if lacking:
            raise ValueError(
                f"cannot resume {path}: it holds no {', '.join(lacking)} (weights only?); use a new --out"
            )
        saved = _Settings(**state["settings"])
        if saved != settings:
            diff = {
                k: (v, getattr(settings, k)) for k, v in asdict(saved).items() if getattr(settings, k) != v
            }
            raise ValueError(
                f"cannot resume {path}: it was trained with other settings "
                f"({', '.join(f'{k}: {a!r} then, {b!r} now' for k, (a, b) in diff.items())}); "
                "pass the same settings, or a new --out folder"
            )
        opt.load_state_dict(state["optimizer"])
        if state.get("scaler"):
            scaler.load_state_dict(state["scaler"])
        start, cursor, order = state["step"], state["cursor"], state["order"]
        g.set_state(state["rng"]["batches"])
        torch.set_rng_state(state["rng"]["torch"])
        if device.type == "cuda" and state["rng"].get("cuda") is not None:
            torch.cuda.set_rng_state(state["rng"]["cuda"])
        history = History(**state["history"])

    def checkpoint(step: int) -> None:
        if not all(torch.isfinite(p).all() for p in model.parameters()):
            raise TrainingDiverged(
                f"weights became NaN or inf at step {step}; "
                f"{_kept(path)}lower the learning rate (lr={lr}) or clip gradients"
            )
        if rank != 0:  # one writer; every process resumes from the same file
            return
        save_checkpoint(
            {
                "format": CHECKPOINT_FORMAT,
                "config": model.config.to_dict() if hasattr(model, "config") else None,
                "model": model.state_dict(),
                "optimizer": opt.state_dict(),
                "scaler": scaler.state_dict() if scaler.is_enabled() else None,
                "settings": asdict(settings),
                "step": step,
                "cursor": cursor,
                "order": order,
                "rng": {
                    "batches": g.get_state(),
                    "torch": torch.get_rng_state(),
                    "cuda": torch.cuda.get_rng_state() if device.type == "cuda" else None,
                },
                "history": asdict(history),
            },
            path,
        )

    # at most ~50 redraws per run: in a notebook each redraw is a message to the front end, and a
    # flood of them (a slow machine, a long run) can overrun the kernel's output queue
    bar = tqdm(
        range(start, steps),
        desc=desc or "training",
        disable=not progress or rank != 0,
        leave=True,
        initial=start,
        total=steps,
        mininterval=0.5,
        miniters=max(1, (steps - start) // 50),
    )
    for step in bar:
        if cursor + batch_size > len(order):  # a new epoch
            order, cursor = torch.randperm(len(images), generator=g), 0
        idx = order[cursor : cursor + batch_size][rank::world].to(device)  # this process's share
        cursor += batch_size
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps=steps, lr=lr, warmup=settings.warmup, schedule=schedule)
            group["lr"] *= group.get("lr_scale", 1.0)
        x, y = images[idx], labels[idx]
        target = y
        if augment:
            # reseeded every step, so a resumed run (and each process) draws what it would have
            augment_rng.manual_seed(((seed * 1_000_003 + rank) * 1_000_003 + step) % 2**63)
            x, target = augment(x, y, num_classes, augment_rng)
            y = target.argmax(-1)
        with autocast:
            logits = net(x)
            loss = F.cross_entropy(logits.float(), target, label_smoothing=label_smoothing)
        correct = (logits.argmax(-1) == y).float().mean()
        if world > 1:  # the global batch's loss and accuracy, as one process would see them
            both = torch.stack([loss.detach(), correct])
            torch.distributed.all_reduce(both)
            loss_value, batch_accuracy = (both / world).tolist()
        else:
            loss_value, batch_accuracy = loss.item(), correct.item()
        if not math.isfinite(loss_value):
            bar.close()
            raise TrainingDiverged(
                f"loss became {loss_value} at step {step + 1}; {_kept(path)}"
                f"lower the learning rate (lr={lr}) or clip gradients (grad_clip={grad_clip})"
            )
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if grad_clip:
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(opt)
        scaler.update()
        history.step.append(step)
        history.loss.append(loss_value)
        history.accuracy.append(batch_accuracy)
        done = step + 1
        if eval_data is not None and (done % eval_every == 0 or done == steps):
            history.eval_step.append(done)
            history.eval_accuracy.append(evaluate(model, eval_data))
        if callback is not None:
            callback(done, model, history)
        if path is not None and (done % checkpoint_every == 0 or done == steps):
            checkpoint(done)
        if step % 10 == 0 or done == steps:
            post = {"loss": f"{loss_value:.3f}", "acc": f"{np.mean(history.accuracy[-20:]):.2f}"}
            if history.eval_accuracy:
                post["eval"] = f"{history.eval_accuracy[-1]:.2f}"
            bar.set_postfix(post, refresh=False)
    bar.close()
    return history


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
