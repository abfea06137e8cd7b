"""fit: one training loop for a laptop CPU, a GPU or Colab.

AdamW with linear warmup and cosine decay, gradient clipping, bf16 autocast on a GPU, a progress bar
that shows loss and accuracy, and a history for the lessons to plot.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import TensorDataset
from tqdm.auto import tqdm

from minivit.evaluate import evaluate


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


def lr_at(step: int, *, steps: int, lr: float, warmup: int) -> float:
    """Learning rate at `step`: linear warmup over `warmup` steps, then cosine decay to 0."""
    if step < warmup:
        return lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return lr * 0.5 * (1 + math.cos(math.pi * progress))


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
    eval_data: TensorDataset | None = None,
    eval_every: int | None = None,
    seed: int = 0,
    device: str | torch.device | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> History:
    """Train `model` on `train` (a TensorDataset of images and labels) for `steps` steps.

    Args:
        warmup: warmup steps (default: 5% of `steps`).
        eval_data: evaluated every `eval_every` steps (default: 10 times per run) and at the end.
        seed: seeds initial batches' order and every random choice in training.
        device: default cuda, then mps, then cpu; bf16 autocast on cuda.
    Returns:
        the History of the run.
    """
    device = pick_device(device)
    model.to(device).train()
    images, labels = (t.to(device) for t in train.tensors[:2])
    warmup = max(1, steps // 20) if warmup is None else warmup
    eval_every = eval_every or max(1, steps // 10)
    groups = (
        model.parameter_groups(weight_decay)
        if hasattr(model, "parameter_groups")
        else [{"params": [p for p in model.parameters() if p.requires_grad]}]
    )
    opt = torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
    g = torch.Generator().manual_seed(seed)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda")
    history = History()
    order, cursor = torch.randperm(len(images), generator=g), 0
    bar = tqdm(range(steps), desc=desc or "training", disable=not progress, leave=True)
    for step in bar:
        if cursor + batch_size > len(order):  # a new epoch
            order, cursor = torch.randperm(len(images), generator=g), 0
        idx = order[cursor : cursor + batch_size].to(device)
        cursor += batch_size
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps=steps, lr=lr, warmup=warmup)
        x, y = images[idx], labels[idx]
        with autocast:
            logits = model(x)
            loss = F.cross_entropy(logits.float(), y, label_smoothing=label_smoothing)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip:
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        history.step.append(step)
        history.loss.append(loss.item())
        history.accuracy.append((logits.argmax(-1) == y).float().mean().item())
        if eval_data is not None and ((step + 1) % eval_every == 0 or step + 1 == steps):
            history.eval_step.append(step + 1)
            history.eval_accuracy.append(evaluate(model, eval_data))
        if step % 10 == 0 or step + 1 == steps:
            post = {"loss": f"{history.loss[-1]:.3f}", "acc": f"{np.mean(history.accuracy[-20:]):.2f}"}
            if history.eval_accuracy:
                post["eval"] = f"{history.eval_accuracy[-1]:.2f}"
            bar.set_postfix(post, refresh=False)
    bar.close()
    return history
