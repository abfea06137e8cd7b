"""What carries position inside a trained model (`minivit.analysis`'s measurements): the offset-only
and direction tests, each head's logit terms, linear probes of position at every stage, and one
head's scores with the same content at every position."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from minivit.posenc.base import Grid
from minivit.viz.attention import attention_overlay
from minivit.viz.base import cmap, colours, line_style, square
from minivit.viz.offsets import offset_table


def _value_text(v: float) -> str:
    """A measured value for a table cell: 0 as "0", tiny values in powers of ten, others to 2 decimals."""
    if v == 0:
        return "0"
    return f"{v:.0e}" if abs(v) < 5e-3 else f"{v:.2f}"


def score_tests(fraction: Tensor, asymmetry: Tensor, names: Sequence[str], varies: Tensor) -> Figure:
    """The offset-only test and the direction test side by side, one row per encoding and one column
    per block: fraction [E, L] (variance of the score not explained by the offset) and asymmetry [E, L]
    (share of the offset table odd in the offset). Cells where the score does not vary with position
    at all (varies [E, L] False) read "flat"."""
    e, layers = fraction.shape
    fig = Figure(figsize=(8, 0.42 * e + 1.2), layout="constrained")
    for ax, values, title in zip(
        fig.subplots(1, 2),
        (fraction, asymmetry),
        ("not explained by the offset", "odd in the offset (direction)"),
        strict=True,
    ):
        v = values.detach().cpu().double().numpy()
        flat = ~varies.detach().cpu().numpy()
        ax.imshow(np.where(flat, np.nan, v), cmap="viridis", vmin=0, vmax=1, aspect="auto")
        for i in range(e):
            for j in range(layers):
                text = "flat" if flat[i, j] else _value_text(float(v[i, j]))
                light = flat[i, j] or v[i, j] < 0.6
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if light else "black")
        ax.set_xticks(range(layers), [f"block {j}" for j in range(layers)])
        ax.set_yticks(range(e), list(names))
        ax.set_title(title, fontsize=10)
    return fig


def term_shares(shares: Mapping[str, Mapping[str, Tensor]]) -> Figure:
    """Each model's logit terms, a stacked bar per head: {model: {term: share [H]}} with the terms of
    `analysis.logit_terms` (content.content, content.position, ...), shares summing to 1 per head.
    The terms are in shades of viridis, as they are not encodings."""
    fig = Figure(figsize=(4.2 * len(shares) + 1.6, 3.2), layout="constrained")
    axes = fig.subplots(1, len(shares), squeeze=False, sharey=True)[0]
    for ax, (name, by_term) in zip(axes, shares.items(), strict=True):
        bottom = None
        for k, (term, share) in enumerate(by_term.items()):
            s = share.detach().cpu().double().numpy()
            heads = np.arange(len(s))
            shade = cmap("viridis")(0.9 * k / max(1, len(by_term) - 1))
            ax.bar(heads, s, 0.8, bottom=bottom, color=shade, label=term.replace("_", " · "))
            bottom = s if bottom is None else bottom + s
        ax.set(xlabel="head", title=name, ylim=(0, 1))
        ax.set_xticks(heads)
    axes[0].set_ylabel("share of how the logits vary over keys")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    return fig


def probe_stages(probes: Mapping[str, Mapping]) -> Figure:
    """Linear probes of (row, col) at each stage of each model (`analysis.position_probe` results):
    accuracy of the one-hot read-out and R^2 of the coordinates, mean of row and column, with chance.
    Each model in its encoding's colour."""
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    ax_acc, ax_r2 = fig.subplots(1, 2)
    colour = colours(probes)
    for name, p in probes.items():
        x = np.arange(len(p["stages"]))
        style = dict(color=colour[name], ls=line_style(name), marker="o", ms=4, label=name)
        ax_acc.plot(x, p["accuracy"].mean(1).cpu().numpy(), **style)
        ax_r2.plot(x, p["r2"].mean(1).cpu().numpy(), **style)
    first = next(iter(probes.values()))
    ax_acc.axhline(float(first["chance"].mean()), color="gray", ls="--", lw=1, label="chance")
    ax_r2.axhline(0, color="gray", ls="--", lw=1)
    stages = [s.replace(" of ", "\nof ") for s in first["stages"]]
    for ax, ylabel in ((ax_acc, "row and column read correctly"), (ax_r2, "R² of (row, col)")):
        ax.set_xticks(range(len(stages)), stages, fontsize=8)
        ax.set(ylabel=ylabel, ylim=(-0.05, 1.02))
        ax.grid(alpha=0.3)
    ax_acc.set_title("probe accuracy (held-out images)", fontsize=10)
    ax_r2.set_title("probe R² (held-out images)", fontsize=10)
    fig.legend(*ax_acc.get_legend_handles_labels(), loc="outside right center", fontsize=8)
    return fig


def position_scores(
    image: Tensor,
    attention: Tensor,
    scores: Tensor,
    table: Tensor,
    grid: Grid,
    *,
    query: int,
    patch_size: int,
    fraction: float | None,
    title: str = "",
) -> Figure:
    """One head seen from patch `query`: its attention on an image, and what position alone does to
    its score.

    Args:
        image: [C, H, W]; attention: [N] the head's attention from `query` over the patches.
        scores: [N, N] the head's logits with one content vector at every position.
        table: [2gh - 1, 2gw - 1] their mean at each offset (`analysis.offset_table`).
        fraction: their variance not explained by the offset (`analysis.offset_dependence`), or
            None where they do not vary with position at all.
    """
    fig = Figure(figsize=(10.5, 3.3), layout="constrained")
    left, middle, right = fig.subplots(1, 3)
    r, c = divmod(query, grid[1])
    attention_overlay(
        image, attention, patch_size=patch_size, query=query, ax=left, title=f"attention from ({r}, {c})"
    )
    row = scores[query].detach().cpu().float().reshape(grid).numpy()
    im = middle.imshow(row, cmap="viridis", interpolation="nearest")
    middle.add_patch(square(c - 0.5, r - 0.5, 1))
    middle.set(title="same content everywhere: score from the query", xticks=[], yticks=[])
    middle.title.set_fontsize(9)
    fig.colorbar(im, ax=middle, shrink=0.8)
    said = "no variation with position" if fraction is None else f"not by offset: {_value_text(fraction)}"
    offset_table(table - table.mean(), title=f"mean by offset (centred); {said}", ax=right)
    right.title.set_fontsize(9)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
