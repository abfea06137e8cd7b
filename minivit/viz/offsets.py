"""Functions of the 2-D offset between query and key: a table by offset (dy, dx) with (0, 0) in the
middle, one per head on one scale, a bias from one query patch per head, and mixed RoPE's 2-D
frequencies before and after training."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from minivit.posenc.base import Grid
from minivit.viz.base import ENCODING_COLOURS, square


def offset_table(
    values: Tensor,
    *,
    title: str = "",
    ax=None,
    cmap: str = "RdBu_r",
    lim: float | None = None,
    colorbar: bool = True,
) -> Figure:
    """A function of the 2-D offset, values [2R_h + 1, 2R_w + 1], drawn with (0, 0) in the middle.

    The colours span [-lim, lim] (default: the largest |value|); pass one `lim` to several tables
    to draw them on one scale.
    """
    if ax is None:
        fig = Figure(figsize=(3.6, 3.2), layout="constrained")
        ax = fig.subplots()
    v = values.detach().cpu().float().numpy()
    rh, rw = (v.shape[0] - 1) // 2, (v.shape[1] - 1) // 2
    lim = lim or float(np.abs(v).max()) or 1.0
    im = ax.imshow(
        v,
        cmap=cmap,
        vmin=-lim,
        vmax=lim,
        extent=(-rw - 0.5, rw + 0.5, rh + 0.5, -rh - 0.5),
        interpolation="nearest",
    )
    ax.set(xlabel="column offset dx", ylabel="row offset dy", title=title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.8)
    return ax.figure


def offset_tables(tables: Mapping[str, Tensor]) -> Figure:
    """Several functions of the 2-D offset side by side, {title: values [2R_h + 1, 2R_w + 1]}, each on
    its own colour scale (they need not measure the same thing; for heads, use `head_tables`)."""
    fig = Figure(figsize=(3.6 * len(tables), 3.2), layout="constrained")
    axes = fig.subplots(1, len(tables), squeeze=False)[0]
    for ax, (title, values) in zip(axes, tables.items(), strict=True):
        offset_table(values, title=title, ax=ax)
    return fig


def head_tables(tables: Tensor, *, title: str = "head") -> Figure:
    """One offset table per head, tables [H, 2R_h + 1, 2R_w + 1] side by side, or [L, H, ...] with a
    row per block; all on one colour scale (one colour bar), so their sizes compare."""
    t = tables.detach().cpu().float()
    rows = t.reshape(-1, *t.shape[-3:])  # (L, H, a, b)
    blocks, heads = rows.shape[:2]
    lim = float(rows.abs().max()) or 1.0
    fig = Figure(figsize=(2.9 * heads + 0.8, 2.7 * blocks), layout="constrained")
    axes = fig.subplots(blocks, heads, squeeze=False)
    for (b, h), ax in np.ndenumerate(axes):
        name = f"{title} {h}" if t.dim() == 3 else f"block {b}, {title} {h}"
        offset_table(rows[b, h], title=name, ax=ax, lim=lim, colorbar=False)
    fig.colorbar(axes[0, 0].images[0], ax=list(axes.flat), shrink=0.8, label="bias (all heads)")
    return fig


def bias_maps(bias: Tensor, grid: Grid, query: int, *, title: str = "") -> Figure:
    """Each head's attention-logit bias from patch `query` to every patch: bias [H, N, N] on the grid.

    All heads share one colour scale (and one colour bar), so a head whose bias hardly changes
    looks flat next to one that does.
    """
    heads = bias.shape[0]
    fig = Figure(figsize=(2.3 * heads + 1.0, 2.8), layout="constrained")
    axes = fig.subplots(1, heads, squeeze=False)[0]
    b = bias[:, query].detach().cpu().float().reshape(heads, *grid).numpy()
    low, high = float(b.min()), float(b.max())
    if low == high:
        low, high = low - 1.0, high + 1.0
    r, c = divmod(query, grid[1])
    for h, ax in enumerate(axes):
        im = ax.imshow(b[h], cmap="magma", vmin=low, vmax=high, interpolation="nearest")
        ax.add_patch(square(c - 0.5, r - 0.5, 1))
        ax.set_title(f"head {h}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(im, ax=list(axes), shrink=0.7, label="bias (all heads)")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def rope_frequencies(before: Tensor, after: Tensor, *, layer: int = 0) -> Figure:
    """Mixed RoPE's 2-D frequencies (f_x, f_y) of block `layer`, one panel per head: before training
    (light) and after (dark), in rope-mixed's colour. freqs: [L, 2, H, Dh/2]."""
    heads = before.shape[2]
    fig = Figure(figsize=(3.2 * heads, 3.2), layout="constrained")
    axes = fig.subplots(1, heads, squeeze=False)[0]
    for h, ax in enumerate(axes):
        for freqs, alpha, label in ((before, 0.3, "before"), (after, 1.0, "after")):
            fx, fy = freqs[layer, 0, h].cpu().numpy(), freqs[layer, 1, h].cpu().numpy()
            ax.quiver(
                np.zeros_like(fx),
                np.zeros_like(fy),
                fx,
                fy,
                angles="xy",
                scale_units="xy",
                scale=1,
                alpha=alpha,
                color=ENCODING_COLOURS["rope-mixed"],
                width=0.012,
                label=label,
            )
        lim = float(max(before[layer, :, h].abs().max(), after[layer, :, h].abs().max())) * 1.1
        ax.set(
            xlim=(-lim, lim),
            ylim=(-lim, lim),
            aspect="equal",
            xlabel="f_x (per column)",
            ylabel="f_y (per row)",
            title=f"block {layer}, head {h}",
        )
        ax.axhline(0, color="gray", lw=0.5)
        ax.axvline(0, color="gray", lw=0.5)
    axes[0].legend(fontsize=8, loc="lower left")
    return fig
