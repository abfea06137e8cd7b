"""Position tables [N, D]: as an image, the similarity of one position (or of every position) to all
the others laid out on the grid, dot products against position and offset, a table aligned to its
grid, and the similarity of a network's tokens sorted by module."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure
from torch import Tensor

from minivit.analysis import cosine_similarity
from minivit.posenc.base import Grid
from minivit.viz.base import ENCODING_COLOURS, matrix, module_lines, square


def encoding_heatmap(table: Tensor, *, ax=None, title: str = "encoding") -> Figure:
    """A position table [N, D] as an image: one row per position, one column per channel."""
    if ax is None:
        fig = Figure(figsize=(5, 3.2), layout="constrained")
        ax = fig.subplots()
    im = ax.imshow(
        table.detach().cpu().numpy(), aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest"
    )
    ax.set(xlabel="channel", ylabel="position", title=title)
    ax.figure.colorbar(im, ax=ax, shrink=0.8)
    return ax.figure


def similarity_map(
    table: Tensor, grid: Grid, position: int, *, ax=None, title: str | None = None, vmin: float | None = None
) -> Figure:
    """Cosine similarity of position `position`'s vector to every position, laid out on the grid.

    The colours span [vmin, 1]; by default vmin is the table's lowest similarity.
    """
    if ax is None:
        fig = Figure(figsize=(3.4, 3.2), layout="constrained")
        ax = fig.subplots()
    cells = grid[0] * grid[1]
    try:
        index = None if isinstance(position, bool) else operator.index(position)
    except TypeError:
        index = None
    if index is None or not 0 <= index < cells:
        raise ValueError(
            f"position={position!r} is not a patch of the {grid[0]}x{grid[1]} grid; pass 0 to {cells - 1} "
            "(row * columns + column)"
        )
    full = cosine_similarity(table)
    sim = full[position].reshape(grid).cpu().numpy()
    vmin = float(full.min()) if vmin is None else vmin
    im = ax.imshow(sim, cmap="viridis", vmin=vmin, vmax=1, interpolation="nearest")
    r, c = divmod(position, grid[1])
    ax.add_patch(square(c - 0.5, r - 0.5, 1))
    ax.set_title(title or f"similarity to position ({r}, {c})", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.figure.colorbar(im, ax=ax, shrink=0.8)
    return ax.figure


def similarity_grid(table: Tensor, grid: Grid, *, title: str = "", fig=None, itself: bool = True) -> Figure:
    """Every position's similarity map, each drawn at its own place on the grid (as in the ViT paper);
    colours span the table's lowest similarity to 1. `itself=False` leaves each position's own cell
    blank and spans the colours over the other similarities only, so that weak structure shows."""
    gh, gw = grid
    if fig is None:
        fig = Figure(figsize=(0.55 * gw + 1.4, 0.55 * gh + 0.5), layout="constrained")
    axes = fig.subplots(gh, gw, squeeze=False)
    full = cosine_similarity(table)
    if not itself:
        full = full.masked_fill(torch.eye(len(full), dtype=torch.bool, device=full.device), float("nan"))
    others = full[~full.isnan()]
    sim = full.reshape(gh * gw, gh, gw).cpu().numpy()
    low, high = float(others.min()), 1.0 if itself else float(others.max())
    for i, ax in enumerate(axes.flat):
        image = ax.imshow(sim[i], cmap="viridis", vmin=low, vmax=high, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(image, ax=axes, shrink=0.6, label="cosine similarity")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def dot_product_profiles(table: Tensor, references: Sequence[int]) -> Figure:
    """Dot products of a few positions' vectors with every position [N, D]: against the other
    position (left), and against the offset between the two (right)."""
    dots = (table @ table.T).detach().cpu().numpy()  # (N, N)
    n = len(dots)
    fig = Figure(figsize=(10, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    for p in references:
        (line,) = left.plot(np.arange(n), dots[p], label=f"p = {p}")
        left.axvline(p, color=line.get_color(), lw=0.8, ls=":")
        right.plot(np.arange(n) - p, dots[p], color=line.get_color(), label=f"p = {p}")
    left.set(xlabel="position q", ylabel="PE(p) · PE(q)", title="against position")
    right.set(xlabel="offset q - p", title="against offset: the curves coincide")
    left.legend(fontsize=8)
    return fig


def procrustes_layout(aligned: Tensor, grid: Grid, *, title: str = "", ax=None) -> Figure:
    """A table mapped onto the grid by Procrustes alignment (`analysis.procrustes`): each position
    as a point, neighbours on the grid joined (in the learned table's colour), the true grid in grey
    behind it."""
    if ax is None:
        fig = Figure(figsize=(3.4, 3.4), layout="constrained")
        ax = fig.subplots()
    gh, gw = grid
    pts = aligned.detach().cpu().numpy().reshape(gh, gw, 2)
    true = np.stack(np.meshgrid(np.arange(gh), np.arange(gw), indexing="ij"), -1).astype(float)
    for p, style in ((true, dict(color="0.8", lw=1)), (pts, dict(color=ENCODING_COLOURS["learned"], lw=1.2))):
        for r in range(gh):
            ax.plot(p[r, :, 1], p[r, :, 0], **style)
        for c in range(gw):
            ax.plot(p[:, c, 1], p[:, c, 0], **style)
    ax.scatter(pts[..., 1].ravel(), pts[..., 0].ravel(), c=np.arange(gh * gw), cmap="viridis", zorder=3, s=25)
    ax.set_aspect("equal")
    ax.invert_yaxis()
    ax.set(xlabel="column", ylabel="row", title=title)
    return ax.figure


def module_similarity(
    table: Tensor, modules: Tensor, *, title: str = "", fig=None, score: float | None = None
) -> Figure:
    """The cosine similarity of a table's token vectors, in the token order (as the model sees them)
    and with the tokens sorted by their true module (lines between the modules)."""
    if fig is None:
        fig = Figure(figsize=(7.2, 3.4), layout="constrained")
    axes = fig.subplots(1, 2)
    sim = cosine_similarity(table).cpu().numpy()
    order = np.argsort(modules.numpy(), kind="stable")
    matrix(axes[0], sim, "token order", "viridis", -1, 1)
    im = matrix(axes[1], sim[order][:, order], "sorted by module", "viridis", -1, 1)
    module_lines(axes[1], modules[order])
    fig.colorbar(im, ax=axes[1], shrink=0.8, label="cosine similarity")
    if score is not None:
        title = f"{title}: within − between {score:.2f}" if title else f"within − between {score:.2f}"
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
