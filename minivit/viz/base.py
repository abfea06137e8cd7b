"""What every figure draws with: an image tensor as imshow takes it, a colour map by name, an outline
around one patch, and a matrix with lines between the modules of its rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from torch import Tensor


def hwc(image: Tensor) -> np.ndarray:
    """[C, H, W] tensor in [0, 1] -> [H, W, C] array for imshow."""
    return image.detach().cpu().permute(1, 2, 0).clamp(0, 1).numpy()


def cmap(name: str):
    import matplotlib

    return matplotlib.colormaps[name]


def square(x: float, y: float, size: float):
    """An outline around one patch (for marking the query or the chosen position)."""
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), size, size, fill=False, edgecolor="cyan", lw=2)


def matrix(ax, m: np.ndarray, title: str, cmap: str, vmin: float, vmax: float):
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    return im


def module_lines(ax, modules: Sequence[int]) -> None:
    """Thin lines between the modules of a matrix whose rows are sorted by module."""
    counts = np.bincount(np.asarray(modules))
    for edge in np.cumsum(counts)[:-1]:
        ax.axhline(edge - 0.5, color="white", lw=0.8)
        ax.axvline(edge - 0.5, color="white", lw=0.8)
