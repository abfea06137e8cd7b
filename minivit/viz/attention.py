"""Attention drawn over the image it looks at: one row over the patches, every head from one query
patch, and each head's mean attention distance."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from minivit.viz.base import colours, hwc, square


def attention_overlay(
    image: Tensor,
    weights: Tensor,
    *,
    patch_size: int,
    query: int | None = None,
    ax=None,
    title: str | None = None,
):
    """Draw an image with one attention row [N] over its patches (brighter: more attention)."""
    gh, gw = image.shape[-2] // patch_size, image.shape[-1] // patch_size
    if ax is None:
        fig = Figure(figsize=(3.2, 3.2), layout="constrained")
        ax = fig.subplots()
    ax.imshow(hwc(image), interpolation="nearest")
    heat = weights.detach().cpu().reshape(gh, gw).numpy()
    ax.imshow(
        heat,
        cmap="magma",
        alpha=0.6,
        extent=(-0.5, image.shape[-1] - 0.5, image.shape[-2] - 0.5, -0.5),
        vmin=0,
        vmax=max(float(heat.max()), 1e-6),
        interpolation="nearest",
    )
    if query is not None:
        r, c = divmod(query, gw)
        ax.add_patch(square(c * patch_size - 0.5, r * patch_size - 0.5, patch_size))
    ax.set_title(title or "attention", fontsize=9)
    ax.axis("off")
    return ax.figure


def attention_heads(
    image: Tensor, weights: Tensor, query: int, *, patch_size: int, title: str = ""
) -> Figure:
    """Each head's attention from patch `query`: weights [H, N, N] drawn over the image, and as bars."""
    heads, n = weights.shape[0], weights.shape[-1]
    fig = Figure(figsize=(3.0 * (heads + 1), 3.2), layout="constrained")
    axes = fig.subplots(1, heads + 1, gridspec_kw={"width_ratios": [1] * heads + [1.4]})
    for h in range(heads):
        attention_overlay(
            image,
            weights[h, query],
            patch_size=patch_size,
            query=query,
            ax=axes[h],
            title=f"head {h}: query patch {query}",
        )
    bars = axes[-1]
    width = 0.8 / heads
    for h in range(heads):
        bars.bar(np.arange(n) + h * width, weights[h, query].detach().cpu().numpy(), width, label=f"head {h}")
    bars.set(xlabel="key patch", ylabel="attention weight", ylim=(0, 1))
    bars.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def attention_distances(distances: Mapping[str, Tensor], *, uniform: float) -> Figure:
    """Mean attention distance of every head, one panel per block: {model: [L, H]} in patches, with
    the distance of uniform attention (every key alike) as a dashed line; each model in its encoding's
    colour."""
    names = list(distances)
    colour = colours(names)
    layers = next(iter(distances.values())).shape[0]
    fig = Figure(figsize=(4.6 * layers, 3.4), layout="constrained")
    axes = fig.subplots(1, layers, squeeze=False, sharey=True)[0]
    for block, ax in enumerate(axes):
        for i, name in enumerate(names):
            d = distances[name][block].detach().cpu().numpy()
            ax.scatter(np.full(len(d), i), d, s=18, alpha=0.8, color=colour[name])
        ax.axhline(uniform, color="gray", ls="--", lw=1, label="uniform attention")
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_title(f"block {block}: one dot per head", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean attention distance (patches)")
    axes[0].legend(fontsize=8)
    return fig
