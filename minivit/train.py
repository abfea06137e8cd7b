"""fit: one training loop for a laptop CPU, a GPU or Colab.

AdamW with linear warmup and cosine decay, label smoothing, gradient clipping, bf16 autocast on a
GPU, a progress bar that shows loss and accuracy, and a history for the lessons to plot.

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
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import TensorDataset
from tqdm.auto import tqdm

from minivit.config import ViTConfig
from minivit.evaluate import evaluate

CHECKPOINT = "checkpoint.pt"
OPTIMIZERS = ("adamw", "sgd")


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """`device` if given, else the best available: cuda, then mps, then cpu."""
    if device is not None:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


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


def lr_at(step: int, *, steps: int, lr: float, warmup: int) -> float:
    """Learning rate at `step`: linear warmup over `warmup` steps, then cosine decay to 0."""
    if step < warmup:
        return lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return lr * 0.5 * (1 + math.cos(math.pi * progress))


class TrainingDiverged(RuntimeError):
    """The loss became NaN or infinite."""


def save_checkpoint(state: dict[str, Any], path: str | Path) -> None:
    """Write `state` to `path` atomically: a temporary file in the same folder, then a rename, so a
    crash mid-write leaves the previous checkpoint intact."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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
    state = torch.load(path, map_location="cpu", weights_only=True)
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


def fit(
    model: nn.Module,
    train: TensorDataset,
    *,
    steps: int = 500,
    batch_size: int = 128,
    lr: float = 1e-3,
    weight_decay: float = 0.05,
    warmup: int | None = None,
    label_smoothing: float = 0.0,
    grad_clip: float | None = 1.0,
    optimizer: str = "adamw",
    position_lr_scale: float = 1.0,
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
        optimizer: "adamw", or "sgd" (momentum 0.9, weight decay as an L2 term; same lr schedule).
        position_lr_scale: the position encoding's parameters (`model.pos`) train at this multiple
            of the learning rate.
        eval_data: evaluated every `eval_every` steps (default: 10 times per run) and at the end.
        seed: seeds the batch order and every random choice in training.
        device: default cuda, then mps, then cpu; bf16 autocast on cuda.
        out: a folder for the checkpoint (`out/checkpoint.pt`), written every `checkpoint_every`
            steps (default: 10 times per run) and at the end.
        resume: continue from the checkpoint in `out` if there is one.
        callback: called as callback(step, model, history) after every step (step = steps done).
    Returns:
        the History of the run.
    Raises:
        TrainingDiverged: the loss became NaN or inf (the last good checkpoint is kept).
    """
    device = pick_device(device)
    model.to(device).train()
    images, labels = (t.to(device) for t in train.tensors[:2])
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
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; known: {', '.join(OPTIMIZERS)}")
    opt = (
        torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
        if optimizer == "adamw"
        else torch.optim.SGD(groups, lr=lr, momentum=0.9, weight_decay=weight_decay)
    )
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda")
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    history, start = History(), 0
    order, cursor = torch.randperm(len(images), generator=g), 0
    path = Path(out) / CHECKPOINT if out is not None else None

    if resume and path is not None and path.exists():
        state = load_checkpoint(path, model)
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
        save_checkpoint(
            {
                "config": model.config.to_dict() if hasattr(model, "config") else None,
                "model": model.state_dict(),
                "optimizer": opt.state_dict(),
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
        disable=not progress,
        leave=True,
        initial=start,
        total=steps,
        mininterval=0.5,
        miniters=max(1, (steps - start) // 50),
    )
    for step in bar:
        if cursor + batch_size > len(order):  # a new epoch
            order, cursor = torch.randperm(len(images), generator=g), 0
        idx = order[cursor : cursor + batch_size].to(device)
        cursor += batch_size
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps=steps, lr=lr, warmup=settings.warmup) * group.get("lr_scale", 1.0)
        x, y = images[idx], labels[idx]
        with autocast:
            logits = model(x)
            loss = F.cross_entropy(logits.float(), y, label_smoothing=label_smoothing)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            bar.close()
            raise TrainingDiverged(
                f"loss became {loss_value} at step {step + 1}; {_kept(path)}"
                f"lower the learning rate (lr={lr}) or clip gradients (grad_clip={grad_clip})"
            )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip:
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        history.step.append(step)
        history.loss.append(loss_value)
        history.accuracy.append((logits.argmax(-1) == y).float().mean().item())
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
