"""Figures for the lessons: pure functions, data in, matplotlib Figure out (testable headless).

Figures are made without pyplot, so nothing global is left open: a notebook shows a returned figure
once, and a slider can redraw it as often as it likes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
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


def similarity_grid(table: Tensor, grid: Grid, *, title: str = "", fig=None, itself: bool = True) -> Figure:
    """Every position's similarity map, each drawn at its own place on the grid (as in the ViT paper);
    colours span the table's lowest similarity to 1. `itself=False` leaves each position's own cell
    blank and spans the colours over the other similarities only, so that weak structure shows."""
    gh, gw = grid
    if fig is None:
        fig = Figure(figsize=(0.55 * gw + 0.6, 0.55 * gh + 0.5), layout="constrained")
    axes = fig.subplots(gh, gw, squeeze=False)
    full = cosine_similarity(table)
    if not itself:
        full = full.masked_fill(torch.eye(len(full), dtype=torch.bool, device=full.device), float("nan"))
    others = full[~full.isnan()]
    sim = full.reshape(gh * gw, gh, gw).cpu().numpy()
    low, high = float(others.min()), 1.0 if itself else float(others.max())
    for i, ax in enumerate(axes.flat):
        ax.imshow(sim[i], cmap="viridis", vmin=low, vmax=high, interpolation="nearest")
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


def lst_puzzles(
    cells: Tensor,
    answers: Sequence[int] | Tensor | None = None,
    *,
    titles: Sequence[str] | None = None,
    ncols: int = 6,
) -> Figure:
    """Latin square puzzles [n, 16] (0 blank, 1-4 shown, 5 the query) as 4x4 grids; the query cell
    is marked "?" (with its answer 1-4 underneath when `answers` are given)."""
    n = len(cells)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(1.5 * ncols, 1.75 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.axis("off")
        if i >= n:
            continue
        grid = cells[i].view(4, 4).tolist()
        shade = np.array([[0.93 if v == 5 else 1.0 for v in row] for row in grid])
        ax.imshow(shade, cmap="gray", vmin=0, vmax=1, extent=(-0.5, 3.5, 3.5, -0.5))
        for k in range(5):
            ax.plot([k - 0.5, k - 0.5], [-0.5, 3.5], color="black", lw=0.6)
            ax.plot([-0.5, 3.5], [k - 0.5, k - 0.5], color="black", lw=0.6)
        for r, row in enumerate(grid):
            for c, v in enumerate(row):
                if v == 5:
                    ax.text(c, r, "?", ha="center", va="center", fontsize=11, color="tab:red", weight="bold")
                elif v:
                    ax.text(c, r, str(v), ha="center", va="center", fontsize=10)
        title = titles[i] if titles is not None else ""
        if answers is not None:
            title = (title + "\n" if title else "") + f"answer {int(answers[i]) + 1}"
        ax.set_title(title, fontsize=8)
    return fig


def init_scale_sweep(
    summary: Mapping[str, Mapping[str, float]],
    published: Mapping[str, Sequence[float]],
    runs: Sequence[Mapping] = (),
    *,
    reference: str = "sincos2d",
) -> Figure:
    """Accuracy against the initial scale σ of a learned table, on held-out and kept-apart puzzles:
    our mean ± std over seeds (dots: single runs) next to the published means; the fixed 2-D
    sinusoid as horizontal lines."""
    sigmas = [k for k in summary if k != reference]
    x = np.array([float(s) for s in sigmas])
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (split, column, title) in zip(
        axes, [("test", 0, "held-out generated puzzles"), ("apart", 1, "puzzles kept apart")], strict=True
    ):
        mean = np.array([summary[s][split] for s in sigmas])
        std = np.array([summary[s][split + "_std"] for s in sigmas])
        ax.errorbar(x, mean, yerr=std, marker="o", capsize=3, color="tab:blue", label="ours (mean ± std)")
        for r in runs:
            if r["encoding"] != reference:
                ax.plot(float(r["encoding"]), r["accuracy"][split], ".", color="tab:blue", alpha=0.35)
        pub = [published[s][column] for s in sigmas if s in published]
        if pub:  # no empty legend entry when there is nothing published to draw
            ax.plot(
                [float(s) for s in sigmas if s in published],
                pub,
                "s--",
                color="tab:orange",
                label="Ito et al. 2024",
            )
        if reference in summary:
            ax.axhline(summary[reference][split], color="tab:green", lw=1, label="2-D sinusoid (ours)")
        if reference in published:
            ax.axhline(
                published[reference][column],
                color="tab:green",
                lw=1,
                ls="--",
                label="2-D sinusoid (published)",
            )
        ax.axhline(0.25, color="gray", lw=0.8, ls=":", label="chance")
        ax.set(xlabel="initial scale σ of the learned tables", title=title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy")
    axes[1].legend(fontsize=8, loc="lower left")
    return fig


def init_scale_curves(
    runs: Sequence[Mapping],
    encodings: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    splits: Mapping[str, str] | None = None,
) -> Figure:
    """Accuracy on each set as training goes (the runs' "evals"), one panel per encoding, one line
    per run and set."""
    splits = splits or {"train": "train", "test": "held-out", "apart": "kept apart"}
    colors = dict(zip(splits, ("tab:gray", "tab:blue", "tab:red"), strict=False))
    fig = Figure(figsize=(3.6 * len(encodings), 3.2), layout="constrained")
    axes = fig.subplots(1, len(encodings), sharey=True, squeeze=False)[0]
    for ax, encoding in zip(axes, encodings, strict=True):
        for n, r in enumerate(x for x in runs if x["encoding"] == encoding and "evals" in x):
            for split, name in splits.items():
                ax.plot(
                    r["evals"]["step"],
                    r["evals"][split],
                    color=colors[split],
                    lw=1.2,
                    alpha=0.8,
                    label=name if n == 0 else None,
                )
        ax.axhline(0.25, color="gray", lw=0.8, ls=":")
        ax.set(xlabel="training step", title=(labels or {}).get(encoding, encoding), ylim=(0, 1.02))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy")
    axes[0].legend(fontsize=8, loc="lower right")
    return fig


def procrustes_layout(aligned: Tensor, grid: Grid, *, title: str = "", ax=None) -> Figure:
    """A table mapped onto the grid by Procrustes alignment (`analysis.procrustes`): each position
    as a point, neighbours on the grid joined, the true grid in grey behind it."""
    if ax is None:
        fig = Figure(figsize=(3.4, 3.4), layout="constrained")
        ax = fig.subplots()
    gh, gw = grid
    pts = aligned.detach().cpu().numpy().reshape(gh, gw, 2)
    true = np.stack(np.meshgrid(np.arange(gh), np.arange(gw), indexing="ij"), -1).astype(float)
    for p, style in ((true, dict(color="0.8", lw=1)), (pts, dict(color="tab:blue", lw=1.2))):
        for r in range(gh):
            ax.plot(p[r, :, 1], p[r, :, 0], **style)
        for c in range(gw):
            ax.plot(p[:, c, 1], p[:, c, 0], **style)
    ax.scatter(pts[..., 1].ravel(), pts[..., 0].ravel(), c=np.arange(gh * gw), cmap="viridis", zorder=3, s=25)
    ax.set_aspect("equal")
    ax.invert_yaxis()
    ax.set(xlabel="column", ylabel="row", title=title)
    return ax.figure


def agreement_scatter(
    runs: Sequence[Mapping],
    *,
    x: str = "agreement_with_sincos",
    split: str = "apart",
    reference: str = "sincos2d",
) -> Figure:
    """Each run's attention agreement with the 2-D sinusoid model against its accuracy, coloured by σ."""
    fig = Figure(figsize=(5, 3.6), layout="constrained")
    ax = fig.subplots()
    sigmas = sorted({r["encoding"] for r in runs if r["encoding"] != reference}, key=float)
    colors = {s: c for s, c in zip(sigmas, np.linspace(0.1, 0.9, len(sigmas)), strict=True)}
    for s in sigmas:
        rs = [r for r in runs if r["encoding"] == s]
        ax.scatter(
            [r[x] for r in rs],
            [r["accuracy"][split] for r in rs],
            color=_cmap("plasma")(colors[s]),
            label=f"σ = {s}",
        )
    ax.set(xlabel="attention agreement with the 2-D sinusoid model", ylabel=f"accuracy ({split})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _cmap(name: str):
    import matplotlib

    return matplotlib.colormaps[name]


def resolution_sweep(
    panels: Mapping[str, tuple[Mapping[str, Mapping], int]], *, ylabel: str = "accuracy"
) -> Figure:
    """Accuracy against test image size, one panel per task: {title: (summary, train_size)} with
    summary {variant: {"sizes": [...], "mean": [...], "std": [...]}}; a band of ± std over seeds, the
    training size marked."""
    fig = Figure(figsize=(4.6 * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    variants = list(dict.fromkeys(v for summary, _ in panels.values() for v in summary))
    colors = {v: _cmap("tab10")(i % 10) for i, v in enumerate(variants)}
    for ax, (title, (summary, train_size)) in zip(axes, panels.items(), strict=True):
        for variant, s in summary.items():
            x, m = np.array(s["sizes"]), np.array(s["mean"])
            sd = np.array(s.get("std", np.zeros_like(m)))
            dashed = "interp" in variant or "antialias" in variant
            ax.plot(x, m, "o-" if not dashed else "o--", ms=3, color=colors[variant], label=variant)
            if sd.any():
                ax.fill_between(x, m - sd, m + sd, color=colors[variant], alpha=0.15)
        ax.axvline(train_size, color="gray", lw=1, ls=":")
        ax.set(xlabel="test image size (px)", title=title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    return fig


def _mixed_title(target: Tensor, classes: Sequence[str] | None) -> str:
    """A target's classes with their weights, largest first: "3 .62 + 7 .38"."""
    weights, labels = target.sort(descending=True)
    parts = []
    for w, c in zip(weights.tolist(), labels.tolist(), strict=True):
        if w < 0.005 or len(parts) == 2:
            break
        name = classes[c] if classes else str(c)
        parts.append(name if w > 0.995 else f"{name} {w:.2f}")
    return " + ".join(parts)


def augmentations(
    images: Tensor, augmented: Tensor, targets: Tensor, classes: Sequence[str] | None = None
) -> Figure:
    """Originals [n, C, H, W] above their augmented versions, each titled with its target's classes
    and weights (mixup and CutMix give two)."""
    n = len(images)
    fig = Figure(figsize=(1.5 * n, 3.4), layout="constrained")
    axes = fig.subplots(2, n, squeeze=False)
    for i in range(n):
        for row, (batch, title) in enumerate(
            ((images, None), (augmented, _mixed_title(targets[i], classes)))
        ):
            ax = axes[row, i]
            ax.imshow(_hwc(batch[i]), cmap="gray" if batch.shape[1] == 1 else None, vmin=0, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
            if title:
                ax.set_title(title, fontsize=8)
    axes[0, 0].set_ylabel("original", fontsize=9)
    axes[1, 0].set_ylabel("augmented", fontsize=9)
    return fig


def capstone(result: Mapping) -> Figure:
    """Every encoding of a capstone run: training loss against step, and test accuracy against
    training speed (images/s)."""
    fig = Figure(figsize=(11, 3.8), layout="constrained")
    ax_loss, ax_speed = fig.subplots(1, 2)
    colors = {r["encoding"]: _cmap("tab10")(i % 10) for i, r in enumerate(result["rows"])}
    for r in result["rows"]:
        loss = np.asarray(r["loss"])
        k = max(1, len(loss) // 20)
        smooth = np.convolve(loss, np.ones(k) / k, mode="valid")
        ax_loss.plot(r["loss_step"][k - 1 :], smooth, color=colors[r["encoding"]], label=r["encoding"])
        ax_speed.scatter(r["images_per_second"], r["test_accuracy"], color=colors[r["encoding"]], s=40)
        ax_speed.annotate(
            r["encoding"],
            (r["images_per_second"], r["test_accuracy"]),
            xytext=(5, 3),
            textcoords="offset points",
            fontsize=8,
        )
    ax_loss.set(xlabel="step", ylabel="training loss (smoothed)", title="training")
    ax_loss.legend(fontsize=8)
    ax_speed.set(xlabel="training images / s", ylabel="test accuracy", title="accuracy and speed")
    ax_speed.grid(alpha=0.3)
    fig.suptitle(f"{result['description']} · {result['device']} ({result['precision']})", fontsize=10)
    return fig


# --- looking inside trained models --------------------------------------------------------------------


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
    `analysis.logit_terms` (content.content, content.position, ...), shares summing to 1 per head."""
    fig = Figure(figsize=(4.2 * len(shares) + 1.6, 3.2), layout="constrained")
    axes = fig.subplots(1, len(shares), squeeze=False, sharey=True)[0]
    colors = _cmap("tab10")
    for ax, (name, by_term) in zip(axes, shares.items(), strict=True):
        bottom = None
        for k, (term, share) in enumerate(by_term.items()):
            s = share.detach().cpu().double().numpy()
            heads = np.arange(len(s))
            ax.bar(heads, s, 0.8, bottom=bottom, color=colors(k), label=term.replace("_", " · "))
            bottom = s if bottom is None else bottom + s
        ax.set(xlabel="head", title=name, ylim=(0, 1))
        ax.set_xticks(heads)
    axes[0].set_ylabel("share of how the logits vary over keys")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    return fig


def probe_stages(probes: Mapping[str, Mapping]) -> Figure:
    """Linear probes of (row, col) at each stage of each model (`analysis.position_probe` results):
    accuracy of the one-hot read-out and R^2 of the coordinates, mean of row and column, with chance."""
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    ax_acc, ax_r2 = fig.subplots(1, 2)
    colors = _cmap("tab10")
    for k, (name, p) in enumerate(probes.items()):
        x = np.arange(len(p["stages"]))
        style = dict(color=colors(k % 10), marker="o", ms=4, label=name)
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


def attention_distances(distances: Mapping[str, Tensor], *, uniform: float) -> Figure:
    """Mean attention distance of every head, one panel per block: {model: [L, H]} in patches, with
    the distance of uniform attention (every key alike) as a dashed line."""
    names = list(distances)
    layers = next(iter(distances.values())).shape[0]
    fig = Figure(figsize=(4.6 * layers, 3.4), layout="constrained")
    axes = fig.subplots(1, layers, squeeze=False, sharey=True)[0]
    for block, ax in enumerate(axes):
        for i, name in enumerate(names):
            d = distances[name][block].detach().cpu().numpy()
            ax.scatter(np.full(len(d), i), d, s=18, alpha=0.8)
        ax.axhline(uniform, color="gray", ls="--", lw=1, label="uniform attention")
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_title(f"block {block}: one dot per head", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean attention distance (patches)")
    axes[0].legend(fontsize=8)
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


def _module_lines(ax, modules: Sequence[int]) -> None:
    """Thin lines between the modules of a matrix whose rows are sorted by module."""
    counts = np.bincount(np.asarray(modules))
    for edge in np.cumsum(counts)[:-1]:
        ax.axhline(edge - 0.5, color="white", lw=0.8)
        ax.axvline(edge - 0.5, color="white", lw=0.8)


def _matrix(ax, m: np.ndarray, title: str, cmap: str, vmin: float, vmax: float):
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    return im


def network(
    weights: Tensor, modules: Tensor, traces: Tensor, *, nodes_shown: int = 6, steps: int = 150
) -> Figure:
    """A simulated network (`minivit.data.network`): its connections in the token order and sorted by
    module, the correlation of the nodes' traces sorted by module, and a few traces coloured by
    module."""
    order = np.argsort(modules.numpy(), kind="stable")
    w = weights.abs().numpy()
    corr = np.corrcoef(traces.numpy().T)
    fig = Figure(figsize=(12, 3.2), layout="constrained")
    axes = fig.subplots(1, 4, width_ratios=[1, 1, 1, 1.6])
    top = float(w.max())
    _matrix(axes[0], w, "connections, token order", "Greys", 0, top)
    _matrix(axes[1], w[order][:, order], "connections, sorted by module", "Greys", 0, top)
    _module_lines(axes[1], modules[order])
    im = _matrix(axes[2], corr[order][:, order], "correlation of the traces", "RdBu_r", -1, 1)
    _module_lines(axes[2], modules[order])
    fig.colorbar(im, ax=axes[2], shrink=0.8)
    colours = [_cmap("tab10")(k % 10) for k in range(int(modules.max()) + 1)]
    shown = [int(i) for k in range(2) for i in np.flatnonzero(modules.numpy() == k)[: nodes_shown // 2]]
    for rank, i in enumerate(shown):
        axes[3].plot(traces[:steps, i].numpy() + 3 * rank, color=colours[int(modules[i])], lw=0.8)
    axes[3].set(title=f"{len(shown)} nodes of 2 modules (colour: module)", xlabel="time step", yticks=[])
    return fig


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
    _matrix(axes[0], sim, "token order", "viridis", -1, 1)
    im = _matrix(axes[1], sim[order][:, order], "sorted by module", "viridis", -1, 1)
    _module_lines(axes[1], modules[order])
    fig.colorbar(im, ax=axes[1], shrink=0.8, label="cosine similarity")
    if score is not None:
        title = f"{title}: within − between {score:.2f}" if title else f"within − between {score:.2f}"
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def network_sweep(
    summary: Mapping[str, Mapping], runs: Sequence[Mapping], labels: Mapping[str, str]
) -> Figure:
    """The recorded network sweep (`minivit.experiments.network`), the arms along the x axis of three
    panels: error on
    held-out steps as a fraction of the variance, and how well the table recovers the modules
    (within − between similarity, with its permutation null's 95th percentile; adjusted Rand
    index). Bars: mean over seeds; dots: single seeds."""
    arms = list(summary)
    x = np.arange(len(arms))
    fig = Figure(figsize=(12, 3.4), layout="constrained")
    axes = fig.subplots(1, 3)
    for ax, split, title in (
        (axes[0], "later", "later steps of the same run"),
        (axes[0], "rerun", "a second run, fresh noise"),
    ):
        offset = -0.2 if split == "later" else 0.2
        ax.bar(
            x + offset, [summary[a][f"unexplained_{split}"] for a in arms], width=0.4, label=title, alpha=0.7
        )
        for r in runs:
            ax.plot(arms.index(r["arm"]) + offset, r["unexplained"][split], ".", color="k", alpha=0.4, ms=4)
    axes[0].set_ylabel("error / variance")
    axes[0].set_title("masked nodes, held out (lower is better)", fontsize=10)
    axes[0].legend(fontsize=8, loc="lower left")
    for ax, measure, title in (
        (axes[1], "within_between", "within − between similarity"),
        (axes[2], "ari", "adjusted Rand index (k-means)"),
    ):
        has = [a for a in arms if measure in summary[a]]
        xs = [arms.index(a) for a in has]
        ax.bar(xs, [summary[a][measure] for a in has], width=0.6, color="tab:green", alpha=0.7)
        for r in runs:
            if "recovery" in r:
                ax.plot(arms.index(r["arm"]), r["recovery"][measure], ".", color="k", alpha=0.4, ms=4)
                top = r["recovery"][measure + "_null"][1]
                ax.plot(arms.index(r["arm"]) + np.array([-0.3, 0.3]), [top, top], color="tab:red", lw=0.8)
        ax.set_title(title, fontsize=10)
        ax.axhline(0, color="gray", lw=0.6)
        ax.plot([], [], color="tab:red", lw=0.8, label="each run's null, 95th percentile")
        ax.legend(fontsize=8, loc="upper center")
    for ax in axes:
        ax.set_xticks(x, [labels[a] for a in arms], rotation=45, ha="right", fontsize=8)
        ax.grid(alpha=0.3, axis="y")
    return fig
