"""What every figure draws with: one colour per encoding (the same in every figure of the course), an
image tensor as imshow takes it, a colour map by name, an outline around one patch, and a matrix with
lines between the modules of its rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from torch import Tensor

# One colour per encoding, by its key in `minivit.posenc.REGISTRY`: a line, bar or point of an
# encoding has this colour in every figure and explorer. Families share a hue where they can (the
# sinusoids green, ALiBi pink, the rotary ones warm or violet); `none` is black.
ENCODING_COLOURS: dict[str, str] = {
    "none": "#000000",
    "learned": "#1f77b4",
    "sincos1d": "#7fc97f",
    "sincos2d": "#2ca02c",
    "relative": "#8c564b",
    "rope1d": "#fdb863",
    "rope-axial": "#ff7f0e",
    "rope-mixed": "#d62728",
    "rope-spiral": "#9467bd",
    "string": "#17becf",
    "liere": "#393b79",
    "pope": "#7b4173",
    "alibi1d": "#f4a3c8",
    "alibi2d": "#e377c2",
    "peg": "#bcbd22",
}
OTHERS = "plasma"  # lines that are not an encoding (a σ, a setting) take shades of this map


def encoding_of(name: str) -> str | None:
    """The encoding a line's name stands for: the name itself if it is an encoding's key, the key it
    starts with for a variant of one ("rope-mixed-interp", "learned-antialias"), else None."""
    if name in ENCODING_COLOURS:
        return name
    keys = [k for k in ENCODING_COLOURS if name.startswith(k + "-") or name.startswith(k + " ")]
    return max(keys, key=len) if keys else None


def colours(names: Sequence[str]) -> dict[str, str | tuple]:
    """A colour for every name: an encoding (or a variant of one) its own colour, any other name a
    shade of `OTHERS`, spread over those others in the order given."""
    names = list(dict.fromkeys(names))
    others = [n for n in names if encoding_of(n) is None]
    shades = {n: cmap(OTHERS)(0.75 * i / max(1, len(others) - 1)) for i, n in enumerate(others)}
    return {n: shades[n] if n in shades else ENCODING_COLOURS[encoding_of(n)] for n in names}


def line_style(name: str) -> str:
    """Solid for an encoding as it is, dashed for a variant of it (same colour, other options)."""
    return "-" if encoding_of(name) in (None, name) else "--"


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
