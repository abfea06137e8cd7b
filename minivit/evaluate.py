"""Accuracy of a trained model, at its training resolution or many; a masked-token regression's
error as a fraction of its targets' variance."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch
from torch import nn
from torch.utils.data import TensorDataset

from minivit.datachecks import check_task, check_train_set


@torch.no_grad()
def predict(
    model: nn.Module, images: torch.Tensor, *, batch_size: int = 512, dropout: bool = False
) -> torch.Tensor:
    """Predicted class of each image [n] (on the model's device, returned on the CPU).

    `dropout=True` keeps dropout on (the model in training mode, without gradients), as code that
    never calls `model.eval()` evaluates: Ito et al.'s reference does, so its 2-D sinusoid's dropout
    is on when it scores held-out puzzles."""
    device = next(model.parameters()).device
    was_training = model.training
    model.train(dropout)
    out, broken = [], 0
    try:
        for i in range(0, len(images), batch_size):
            logits = model(images[i : i + batch_size].to(device))
            broken += int((~torch.isfinite(logits).flatten(1).all(1)).sum())
            out.append(logits.argmax(-1).cpu())
    finally:
        model.train(was_training)
    if broken:  # argmax of NaN is class 0: a "score" of how many labels are 0
        raise ValueError(
            f"the model's outputs are NaN or inf for {broken} of {len(images)} images, so there is no "
            "prediction to score: its weights diverged or are damaged (check them with "
            "all(p.isfinite().all() for p in model.parameters())); train it again with a lower learning rate"
        )
    return torch.cat(out)


def evaluate(model: nn.Module, data: TensorDataset, *, batch_size: int = 512, dropout: bool = False) -> float:
    """Fraction of `data` (images, labels) the model classifies correctly (`dropout`: see `predict`);
    for a masked-token regression (inputs, targets, masked), R²: 1 - `unexplained(model, data)`.
    Data that cannot be scored (empty, NaN, of another shape or dtype) raises a ValueError."""
    check_task(model, data, "data")
    # labels the model cannot give (another task's: more classes) would only lower the score silently
    check_train_set(data, getattr(getattr(model, "config", None), "num_classes", None), "data")
    if len(data.tensors) >= 3 and data.tensors[1].is_floating_point():
        if dropout:
            raise ValueError("dropout=True scores classes only; a regression is scored in eval mode")
        return 1 - unexplained(model, data, batch_size=batch_size)
    images, labels = data.tensors[:2]
    right = predict(model, images, batch_size=batch_size, dropout=dropout) == labels.cpu()
    return right.float().mean().item()


@torch.no_grad()
def unexplained(model: nn.Module, data: TensorDataset, *, batch_size: int = 512) -> float:
    """A masked-token regression's error as a fraction of the variance: the mean squared error over
    the masked tokens of `data` (inputs, targets [n, N], masked [n, N]) divided by the variance of
    those targets (1: no better than their mean; 0: exact)."""
    tensors = getattr(data, "tensors", ())
    if len(tensors) < 3 or not tensors[1].is_floating_point():
        raise ValueError(
            "unexplained scores a masked-token regression: pass TensorDataset(inputs, targets [n, N], "
            "masked [n, N]) (e.g. minivit.data.network_task); for classes use evaluate"
        )
    inputs, targets, masked = tensors[:3]
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    errors = []
    for i in range(0, len(inputs), batch_size):
        out = model(inputs[i : i + batch_size].to(device)).float().cpu()
        want, scored = targets[i : i + batch_size], masked[i : i + batch_size]
        if out.numel() != want.numel():
            raise ValueError(
                f"the model gives {tuple(out.shape)} outputs for targets {tuple(want.shape)}; "
                "give it pool='tokens' and num_classes=1 (one output per token)"
            )
        errors.append((out.reshape(want.shape) - want)[scored])
    model.train(was_training)
    err = torch.cat(errors).double()
    return (err.square().mean() / targets[masked].double().var()).item()


def evaluate_resolutions(
    model: nn.Module,
    data_at: Callable[[int], TensorDataset] | Mapping[int, TensorDataset],
    sizes: Sequence[int] | None = None,
    *,
    batch_size: int = 512,
) -> dict[int, float]:
    """Accuracy of one trained model at several image sizes.

    Each encoding adapts to the new patch grid as it defines (learned tables are resampled;
    sinusoidal, RoPE and ALiBi are recomputed).

    Args:
        data_at: the test set at a given size: a function of the size, or {size: data}.
        sizes: the sizes to evaluate (default: the keys of `data_at`).
    """
    if sizes is None:
        if not isinstance(data_at, Mapping):
            raise ValueError("pass sizes=[...] when data_at is a function")
        sizes = list(data_at)
    get = data_at.__getitem__ if isinstance(data_at, Mapping) else data_at
    return {int(s): evaluate(model, get(s), batch_size=batch_size) for s in sizes}
