"""Batch augmentation moved by hand: RandAugment's magnitude, mixup or CutMix and their α, the draw."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor

from minivit import viz
from minivit.augment import Augment
from minivit.widgets.base import explorer, slider
from minivit.widgets.guards import check_images, check_labels

MIXES = ("mixup", "CutMix", "none")


def augment_view(
    images: Tensor,
    labels: Tensor,
    num_classes: int,
    *,
    magnitude: float,
    alpha: float,
    mix: str,
    seed: int,
    erasing: float = 0.25,
    classes: Sequence[str] | None = None,
) -> Figure:
    """`images` [n, C, H, W] through crop, flip and 2 RandAugment operations at `magnitude`, then
    `mix` ("mixup", "CutMix" or "none") with Beta(alpha, alpha), then random erasing."""
    if mix not in MIXES:
        raise ValueError(f"unknown mix {mix!r}; known: {', '.join(MIXES)}")
    check_images("images", images)
    check_labels(labels, len(images), num_classes)
    if alpha is not None and not (isinstance(alpha, int | float) and alpha > 0):  # Augment names it mixup
        raise ValueError(
            f"alpha={alpha!r} is out of range; use a finite number > 0 (the Beta(α, α) of the mix)"
        )
    augment = Augment(
        crop=images.shape[-1] // 8,
        flip=True,
        randaugment=2,
        magnitude=magnitude,
        mixup=alpha if mix == "mixup" else 0.0,
        cutmix=alpha if mix == "CutMix" else 0.0,
        erasing=erasing,
    )
    out, targets = augment(images, labels, num_classes, torch.Generator().manual_seed(seed))
    return viz.augmentations(images, out, targets, classes)


def augment_explorer(
    images: Tensor, labels: Tensor, num_classes: int, classes: Sequence[str] | None = None
) -> W.VBox:
    """Sliders: RandAugment's magnitude, the mixing α, mixup or CutMix (or neither), the random draw."""
    check_images("images", images)
    check_labels(labels, len(images), num_classes)
    return explorer(
        lambda **kw: augment_view(images, labels, num_classes, classes=classes, **kw),
        {
            "magnitude": slider(9.0, 0.0, 10.0, "magnitude", step=1.0),
            "alpha": slider(0.8, 0.2, 2.0, "α", step=0.2),
            "mix": W.ToggleButtons(options=MIXES, value="mixup", description="mix"),
            "seed": slider(0, 0, 20, "draw"),
        },
    )
