"""One optimizer step of a run: the forward pass under autocast, the loss (a classifier's cross
entropy with label smoothing, or a masked-token regression's squared error), the backward pass with
loss scaling for fp16, gradient clipping and the update; and the optimizer it steps (AdamW, or SGD
with momentum), with the position encoding's parameters in groups of their own when their learning
rate is scaled."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from minivit.devices import autocast_dtype, wrap
from minivit.fitchecks import _Settings
from minivit.nulls import NoiseGradients
from minivit.schedule import lr_at


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
        self.noise = NoiseGradients(settings.seed, device)  # MINIVIT_NULL=noise: a null run

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
        self.noise(self.model.parameters())
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
