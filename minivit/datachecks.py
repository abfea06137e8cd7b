"""Checks of the data a model is trained or scored on: a TensorDataset of finite float images
[B, C, H, W] and class labels, or a masked-token regression's inputs, targets and mask, and whether
a model can take it (its dtype, channels, patch grid and head). `fit`, `fit_ensemble`, `evaluate`
and `minivit train` call them before a step, so wrong shapes, dtypes, empty or NaN data end in one
line that names them and what would be accepted."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.utils.data import TensorDataset

from minivit.config import grid_of

__all__ = ["check_task", "check_train_set", "is_regression"]


def is_regression(data: TensorDataset) -> bool:
    """Whether `data` is a masked-token regression set, TensorDataset(inputs, targets, masked) with
    float targets [B, N] (as `minivit.data.network_task` makes), rather than (images, labels)."""
    tensors = getattr(data, "tensors", ())
    return len(tensors) >= 3 and tensors[1].is_floating_point()


def check_train_set(train: TensorDataset, num_classes: int | None = None, name: str = "train") -> None:
    """Raise a ValueError unless `train` holds finite float images [B, C, H, W] and labels in
    [0, num_classes), or (a masked-token regression) finite float targets [B, N] and a bool mask
    [B, N] with at least one masked token per example; `name` is the argument's name in the message
    (e.g. "eval_data")."""
    whose = "the training" if name == "train" else f"{name}:"
    tensors = getattr(train, "tensors", None)
    if not tensors or len(tensors) < 2:
        raise ValueError(
            f"{'the training data' if name == 'train' else name} must be a TensorDataset(images, labels)"
        )
    images, labels = tensors[:2]
    if len(images) == 0:
        raise ValueError(f"{whose} set is empty; pass at least one example")
    if images.dim() != 4:
        raise ValueError(f"{whose} images must be [B, C, H, W], got shape {tuple(images.shape)}")
    if not images.is_floating_point() or not torch.isfinite(images).all():
        bad = "not floating point" if not images.is_floating_point() else "NaN or inf values"
        raise ValueError(
            f"{whose} images hold {bad} ({images.dtype}); pass finite float images, e.g. in [0, 1]"
        )
    if is_regression(train):
        _check_regression(images, labels, tensors[2], whose)
        return
    if labels.dtype.is_floating_point or labels.dim() != 1:
        raise ValueError(
            f"{whose} labels must be whole class numbers [B], got {labels.dtype} {tuple(labels.shape)} "
            "(for a regression on masked tokens pass TensorDataset(inputs, targets [B, N], masked [B, N]))"
        )
    if labels.dtype not in (torch.long, torch.uint8):  # what the loss takes
        raise ValueError(
            f"{whose} labels are {labels.dtype}; pass class numbers as torch.long (labels.long())"
        )
    low, high = int(labels.min()), int(labels.max())
    if low < 0 or (num_classes and high >= num_classes):
        raise ValueError(
            f"{whose} labels run from {low} to {high}, but the model has num_classes={num_classes}; "
            f"labels must lie in 0..{(num_classes or high + 1) - 1} (set num_classes in ViTConfig)"
        )


def _check_regression(images: Tensor, targets: Tensor, masked: Tensor, whose: str) -> None:
    if targets.dim() != 2 or len(targets) != len(images):
        raise ValueError(
            f"{whose} targets must be [B, N] (one number per token, B = {len(images)} examples), "
            f"got {tuple(targets.shape)}"
        )
    if not torch.isfinite(targets).all():
        raise ValueError(f"{whose} targets hold NaN or inf values; pass finite targets")
    if masked.dtype != torch.bool or masked.shape != targets.shape:
        raise ValueError(
            f"{whose} mask must be bool [B, N] like the targets {tuple(targets.shape)}, "
            f"got {masked.dtype} {tuple(masked.shape)}"
        )
    empty = int((~masked.any(1)).sum())
    if empty:
        raise ValueError(
            f"{whose} set has {empty} example(s) with no masked token, so nothing to score; "
            "mask at least one token in every example"
        )


def check_task(model: nn.Module, data: TensorDataset, name: str = "train") -> None:
    """Raise a ValueError if `model` cannot be trained on `data`: not a module, or images of another
    dtype than its weights; for a minivit model also images of other channels or a size its patches
    do not divide, and a masked-token regression needs pool "tokens", num_classes 1 and one target
    per patch token, a classifier a pooled model."""
    if not isinstance(model, nn.Module):
        raise ValueError(
            f"model={model!r} is not a torch module; pass a model, e.g. minivit.ViT(ViTConfig())"
        )
    whose = "the training" if name == "train" else f"{name}:"
    images = (getattr(data, "tensors", None) or (None,))[0]
    weights = next(model.parameters(), None)
    if isinstance(images, Tensor) and images.is_floating_point() and weights is not None:
        if images.dtype != weights.dtype:
            raise ValueError(
                f"{whose} images are {images.dtype}, the model's weights {weights.dtype}; pass images of the "
                f"weights' dtype (images.to({weights.dtype}))"
            )
    config = getattr(model, "config", None)
    pool = getattr(config, "pool", None)
    if pool is None:
        _check_takes(model, data, whose)
        return
    if isinstance(images, Tensor) and images.dim() == 4:
        if images.shape[1] != config.in_channels:
            raise ValueError(
                f"{whose} images have {images.shape[1]} channels, but the model expects "
                f"{config.in_channels}; pass [B, {config.in_channels}, H, W] or build the model with "
                f"in_channels={images.shape[1]}"
            )
        grid_of(tuple(images.shape[-2:]), config.patch_size)  # a size the patches divide
    if not is_regression(data):
        if pool == "tokens":
            raise ValueError(
                f"{name} holds class labels, but the model has pool='tokens' (one output per token); "
                "pool the tokens (pool='mean', 'cls' or 'last') to classify images, or pass "
                "TensorDataset(inputs, targets [B, N], masked [B, N]) for a masked-token regression"
            )
        return
    targets = data.tensors[1]
    if pool != "tokens" or config.num_classes != 1:
        raise ValueError(
            f"{name} is a masked-token regression (targets [B, N]), but the model has pool={pool!r} and "
            f"num_classes={config.num_classes}; build it with pool='tokens' and num_classes=1"
        )
    if targets.dim() != 2 or data.tensors[0].dim() != 4:
        return  # check_train_set names the shapes
    tokens = targets.shape[1]
    gh, gw = grid_of(tuple(data.tensors[0].shape[-2:]), config.patch_size)
    if gh * gw != tokens:
        raise ValueError(
            f"{name} has {tokens} targets per example, but its inputs make {gh}x{gw} = {gh * gw} tokens "
            f"at patch size {config.patch_size}; give one target per token"
        )


def _check_takes(model: nn.Module, data: TensorDataset, whose: str) -> None:
    """A model that is not minivit's (no config to check it by): one example through it, in eval mode
    and without gradients, so a model that cannot take the images (an nn.Linear), or that gives too
    few scores for the labels, is one line here instead of an error from inside the step."""
    tensors = getattr(data, "tensors", None) or ()
    weights = next(model.parameters(), None)
    if len(tensors) < 2 or tensors[0].dim() != 4 or len(tensors[0]) == 0 or is_regression(data):
        return
    name = type(model).__name__
    fix = "pass a model that maps images [B, C, H, W] to class scores [B, classes], e.g. minivit.ViT"
    image = tensors[0][:1]
    if weights is not None:
        image = image.to(weights.device)
    mode = model.training
    try:
        with torch.no_grad():
            scores = model.eval()(image)
    except Exception as err:  # what the step would raise, said before it
        text = " ".join(str(err).split())[:200]
        raise ValueError(
            f"the model ({name}) cannot take {whose} images {tuple(tensors[0].shape[1:])} "
            f"({type(err).__name__}: {text}); {fix}"
        ) from None
    finally:
        model.train(mode)
    labels = tensors[1]
    if not isinstance(scores, Tensor) or scores.dim() != 2 or len(scores) != 1:
        shape = tuple(scores.shape) if isinstance(scores, Tensor) else type(scores).__name__
        raise ValueError(f"the model ({name}) gives {shape} for one image, not [1, classes]; {fix}")
    if len(labels) and labels.dim() == 1 and not labels.is_floating_point():
        if int(labels.max()) >= scores.shape[1]:
            raise ValueError(
                f"the model ({name}) gives {scores.shape[1]} scores an image, but {whose} labels run to "
                f"{int(labels.max())}; give it one score per class ({int(labels.max()) + 1} or more)"
            )
