"""Figures for the lessons: pure functions, data in, matplotlib Figure out (testable headless).

Figures are made without pyplot, so nothing global is left open: a notebook shows a returned figure
once, and a slider can redraw it as often as it likes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from minivit.analysis import cosine_similarity
from minivit.posenc.base import Grid
from minivit.train import History


def _hwc(image: Tensor) -> np.ndarray:
    """[C, H, W] tensor in [0, 1] -> [H, W, C] array for imshow."""
    return image.detach().cpu().permute(1, 2, 0).clamp(0, 1).numpy()


def _patch_lines(ax, size: tuple[int, int], patch_size: int) -> None:
    h, w = size
    for x in range(patch_size, w, patch_size):
        ax.axvline(x - 0.5, color="white", lw=0.5, alpha=0.5)
    for y in range(patch_size, h, patch_size):
        ax.axhline(y - 0.5, color="white", lw=0.5, alpha=0.5)


def show_images(
    images: Tensor,
    labels: Sequence[int] | Tensor | None = None,
    classes: Sequence[str] | None = None,
    *,
    ncols: int = 8,
    patch_size: int | None = None,
) -> Figure:
    """A grid of images [n, C, H, W], titled with their labels; patch boundaries if `patch_size`."""
    n = len(images)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(1.6 * ncols, 1.8 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.axis("off")
        if i >= n:
            continue
        ax.imshow(_hwc(images[i]), interpolation="nearest")
        if patch_size:
            _patch_lines(ax, images.shape[-2:], patch_size)
        if labels is not None:
            label = int(labels[i])
            ax.set_title(classes[label] if classes else str(label), fontsize=8)
    return fig


def plot_history(histories: Mapping[str, History], *, chance: float | None = None) -> Figure:
    """Training loss and held-out accuracy against step, one line per run."""
    fig = Figure(figsize=(10, 3.5), layout="constrained")
    ax_loss, ax_acc = fig.subplots(1, 2)
    for name, h in histories.items():
        k = max(1, len(h.loss) // 50)  # smooth the per-batch loss over ~2% of the run
        smooth = np.convolve(h.loss, np.ones(k) / k, mode="valid")
        (line,) = ax_loss.plot(h.step[k - 1 :], smooth, label=name)
        if h.eval_accuracy:
            ax_acc.plot(h.eval_step, h.eval_accuracy, "o-", color=line.get_color(), label=name)
    if chance is not None:
        ax_acc.axhline(chance, color="gray", ls="--", lw=1, label="chance")
    ax_loss.set(xlabel="step", ylabel="training loss", title="loss")
    ax_acc.set(xlabel="step", ylabel="held-out accuracy", ylim=(0, 1.02), title="accuracy")
    ax_acc.legend(loc="upper left", fontsize=8)
    ax_loss.legend(fontsize=8)
    return fig


def shuffle_comparison(
    image: Tensor,
    shuffled: Tensor,
    outputs: Mapping[str, tuple[Tensor, Tensor]],
    *,
    patch_size: int,
    classes: Sequence[str] | None = None,
) -> Figure:
    """An image, its patches shuffled, and each model's class probabilities for both.

    Args:
        image, shuffled: [C, H, W].
        outputs: {model name: (probabilities for image [K], probabilities for shuffled [K])}.
    """
    n = len(outputs)
    fig = Figure(figsize=(3.2 * (2 + n), 3.2), layout="constrained")
    axes = fig.subplots(1, 2 + n, gridspec_kw={"width_ratios": [1, 1] + [1.6] * n})
    for ax, img, title in ((axes[0], image, "image"), (axes[1], shuffled, "patches shuffled")):
        ax.imshow(_hwc(img), interpolation="nearest")
        _patch_lines(ax, img.shape[-2:], patch_size)
        ax.set_title(title)
        ax.axis("off")
    for ax, (name, (p0, p1)) in zip(axes[2:], outputs.items(), strict=True):
        k = np.arange(len(p0))
        ax.bar(k - 0.2, p0.detach().cpu().numpy(), 0.4, label="image")
        ax.bar(k + 0.2, p1.detach().cpu().numpy(), 0.4, label="shuffled")
        change = (p0 - p1).abs().max().item()
        ax.set_title(f"{name}: max change {change:.1e}", fontsize=10)
        ax.set(ylim=(0, 1), xlabel="class", ylabel="probability")
        ax.set_xticks(k, [str(i) for i in k] if classes is None else list(range(len(k))))
        ax.legend(fontsize=8)
    return fig


__all__ = ["plot_history", "show_images", "shuffle_comparison"]


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
    ax.imshow(_hwc(image), interpolation="nearest")
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


def square(x: float, y: float, size: float):
    """An outline around one patch (for marking the query or the chosen position)."""
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), size, size, fill=False, edgecolor="cyan", lw=2)


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


def similarity_grid(table: Tensor, grid: Grid, *, title: str = "", fig=None) -> Figure:
    """Every position's similarity map, each drawn at its own place on the grid (as in the ViT paper);
    colours span the table's lowest similarity to 1."""
    gh, gw = grid
    if fig is None:
        fig = Figure(figsize=(0.55 * gw + 0.6, 0.55 * gh + 0.5), layout="constrained")
    axes = fig.subplots(gh, gw, squeeze=False)
    full = cosine_similarity(table)
    sim = full.reshape(gh * gw, gh, gw).cpu().numpy()
    for i, ax in enumerate(axes.flat):
        ax.imshow(sim[i], cmap="viridis", vmin=float(full.min()), vmax=1, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
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


def offset_table(values: Tensor, *, title: str = "", ax=None, cmap: str = "RdBu_r") -> Figure:
    """A function of the 2-D offset, values [2R_h + 1, 2R_w + 1], drawn with (0, 0) in the middle."""
    if ax is None:
        fig = Figure(figsize=(3.6, 3.2), layout="constrained")
        ax = fig.subplots()
    v = values.detach().cpu().float().numpy()
    rh, rw = (v.shape[0] - 1) // 2, (v.shape[1] - 1) // 2
    lim = float(np.abs(v).max()) or 1.0
    im = ax.imshow(
        v,
        cmap=cmap,
        vmin=-lim,
        vmax=lim,
        extent=(-rw - 0.5, rw + 0.5, rh + 0.5, -rh - 0.5),
        interpolation="nearest",
    )
    ax.set(xlabel="column offset dx", ylabel="row offset dy", title=title)
    ax.figure.colorbar(im, ax=ax, shrink=0.8)
    return ax.figure


def bias_maps(bias: Tensor, grid: Grid, query: int, *, title: str = "") -> Figure:
    """Each head's attention-logit bias from patch `query` to every patch: bias [H, N, N] on the grid."""
    heads = bias.shape[0]
    fig = Figure(figsize=(2.6 * heads + 0.6, 2.8), layout="constrained")
    axes = fig.subplots(1, heads, squeeze=False)[0]
    b = bias[:, query].detach().cpu().float().reshape(heads, *grid).numpy()
    r, c = divmod(query, grid[1])
    for h, ax in enumerate(axes):
        im = ax.imshow(b[h], cmap="magma", interpolation="nearest")
        ax.add_patch(square(c - 0.5, r - 0.5, 1))
        ax.set_title(f"head {h}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        fig.colorbar(im, ax=ax, shrink=0.7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def rope_frequencies(before: Tensor, after: Tensor, *, layer: int = 0) -> Figure:
    """Mixed RoPE's 2-D frequencies (f_x, f_y) of block `layer`, one panel per head: before training
    (light) and after (dark). freqs: [L, 2, H, Dh/2]."""
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
                color="tab:blue",
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


def head_tables(tables: Tensor, *, title: str = "head") -> Figure:
    """One offset table per head, tables [H, 2R_h + 1, 2R_w + 1], side by side."""
    heads = tables.shape[0]
    fig = Figure(figsize=(3.3 * heads, 3.0), layout="constrained")
    for h, ax in enumerate(fig.subplots(1, heads, squeeze=False)[0]):
        offset_table(tables[h], title=f"{title} {h}", ax=ax)
    return fig
