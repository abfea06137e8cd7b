"""The checks the explorers and their views share beyond `base`'s (grid, base, position): widths, head
and snapshot indices, tables, models and images, each refused in one line that names the argument and
what would be accepted, before a figure is drawn or memory is taken (a width of 10**7 or a grid of
3000x3000 would run the machine out of memory before failing)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch
from torch import Tensor, nn

from minivit.checks import check_whole

MAX_WIDTH = 4096  # widths a figure can show (a channel a pixel column); the lessons use up to 256
MAX_POSITIONS = 64 * 64  # grids a figure can show; the N x N maps of the views stay small


def check_width(name: str, value, multiple: int = 1, least: int = 1) -> None:
    """A ValueError naming `name` unless `value` is a whole number in [least, MAX_WIDTH], a multiple
    of `multiple`."""
    check_whole(name, value, max(least, multiple), MAX_WIDTH)
    if value % multiple:
        raise ValueError(
            f"{name}={value} is not a multiple of {multiple}; use e.g. "
            f"{name}={value - value % multiple or multiple}"
        )


def check_positions(grid: tuple[int, int]) -> None:
    """A ValueError unless `grid` (already (rows, columns)) has at most MAX_POSITIONS patches."""
    if grid[0] * grid[1] > MAX_POSITIONS:
        raise ValueError(
            f"grid={grid} has {grid[0] * grid[1]:,} positions, more than the {MAX_POSITIONS:,} (64x64) a "
            "figure can show; pass a smaller grid, e.g. grid=(8, 8)"
        )


def check_index(name: str, value, count: int, what: str) -> None:
    """A ValueError naming `name` unless `value` is one of `count` `what` (0 to count - 1)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise ValueError(f"{name}={value!r} is not one of the {count} {what}; pass 0 to {count - 1}")


def check_table(name: str, table, shape: tuple[int | None, ...], meaning: str) -> Tensor:
    """`table` as a float tensor of `shape` (None: any size), finite, or a ValueError naming it."""
    if not isinstance(table, Tensor):
        raise ValueError(f"{name} is {type(table).__name__}, not a tensor; pass a tensor {meaning}")
    if table.dim() != len(shape) or any(
        s is not None and s != t for s, t in zip(shape, table.shape, strict=False)
    ):
        raise ValueError(f"{name} is {tuple(table.shape)}; pass a tensor {meaning}")
    if table.numel() == 0:
        raise ValueError(f"{name} is empty {tuple(table.shape)}; pass a tensor {meaning}")
    if not torch.isfinite(table.float()).all():
        raise ValueError(f"{name} holds NaN or inf values (a diverged run's?); pass a finite table {meaning}")
    return table


def check_vit(name: str, model) -> None:
    """A ValueError unless `model` is a minivit ViT (a module with a config and attention maps)."""
    if (
        not isinstance(model, nn.Module)
        or not hasattr(model, "config")
        or not hasattr(model, "attention_maps")
    ):
        raise ValueError(
            f"{name} is {type(model).__name__}, not a minivit ViT; pass a model built by minivit.ViT"
        )


def check_images(name: str, images, patch_size: int | None = None) -> None:
    """A ValueError unless `images` is a non-empty [B, C, H, W] tensor (sides divisible by `patch_size`)."""
    if not isinstance(images, Tensor) or images.dim() != 4 or len(images) == 0:
        got = tuple(images.shape) if isinstance(images, Tensor) else type(images).__name__
        raise ValueError(f"{name} is {got}; pass at least one image as [B, C, H, W]")
    if patch_size is not None:
        check_whole("patch_size", patch_size, 1, min(images.shape[-2:]))
        if images.shape[-2] % patch_size or images.shape[-1] % patch_size:
            raise ValueError(
                f"patch_size={patch_size} does not divide the images' {images.shape[-2]}x{images.shape[-1]} "
                "pixels; pass the patch size the models were trained with"
            )


def check_models(name: str, models) -> None:
    """A ValueError unless `models` is a non-empty mapping of names to minivit ViTs."""
    if not isinstance(models, Mapping) or not models:
        raise ValueError(f"{name}={models!r} holds no models; pass {{name: model}} with at least one ViT")
    for key, model in models.items():
        check_vit(f"{name}[{key!r}]", model)


def check_finite(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name}={value!r} is not a finite number; pass e.g. {name}=0")


def check_labels(labels, count: int, classes) -> None:
    """A ValueError unless `labels` is `count` whole class numbers below `classes`."""
    check_whole("num_classes", classes, 2)
    if not isinstance(labels, Tensor) or labels.shape != (count,) or labels.is_floating_point():
        got = tuple(labels.shape) if isinstance(labels, Tensor) else type(labels).__name__
        raise ValueError(f"labels are {got}; pass one class number per image ({count}), as a tensor of ints")
    if count and not 0 <= int(labels.min()) <= int(labels.max()) < classes:
        raise ValueError(
            f"labels run from {int(labels.min())} to {int(labels.max())}, outside the {classes} classes "
            f"(0 to {classes - 1}); pass the task's labels and its num_classes"
        )
