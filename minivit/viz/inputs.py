"""What goes into a model: images (with their patch boundaries), the same image with its patches
shuffled and each model's answer to both, augmented images, Latin square puzzles, and a simulated
network's connections and traces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from minivit.viz.base import cmap, colours, hwc, matrix, module_lines


def _patch_lines(ax, size: tuple[int, int], patch_size: int) -> None:
    h, w = size
    for x in range(patch_size, w, patch_size):
        ax.axvline(x - 0.5, color="white", lw=0.5, alpha=0.5)
    for y in range(patch_size, h, patch_size):
        ax.axhline(y - 0.5, color="white", lw=0.5, alpha=0.5)


def _panels(n: int, ncols: int, width: float, height: float) -> tuple[Figure, list]:
    """A figure of `n` panels in rows of `ncols`, each `width` x `height` inches, their axes off;
    returns the figure and the first `n` axes."""
    nrows = -(-n // ncols)
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False).flat)
    for ax in axes:
        ax.axis("off")
    return fig, axes[:n]


def show_images(
    images: Tensor,
    labels: Sequence[int] | Tensor | None = None,
    classes: Sequence[str] | None = None,
    *,
    ncols: int = 8,
    patch_size: int | None = None,
) -> Figure:
    """A grid of images [n, C, H, W], titled with their labels; patch boundaries if `patch_size`."""
    fig, axes = _panels(len(images), ncols, 1.6, 1.8)
    for i, ax in enumerate(axes):
        ax.imshow(hwc(images[i]), interpolation="nearest")
        if patch_size:
            _patch_lines(ax, images.shape[-2:], patch_size)
        if labels is not None:
            label = int(labels[i])
            ax.set_title(classes[label] if classes else str(label), fontsize=8)
    return fig


def shuffle_comparison(
    image: Tensor,
    shuffled: Tensor,
    outputs: Mapping[str, tuple[Tensor, Tensor]],
    *,
    patch_size: int,
    classes: Sequence[str] | None = None,
) -> Figure:
    """An image, its patches shuffled, and each model's class probabilities for both, in the model's
    encoding's colour (hatched and lighter: the shuffled image).

    Args:
        image, shuffled: [C, H, W].
        outputs: {model name: (probabilities for image [K], probabilities for shuffled [K])}.
    """
    n = len(outputs)
    fig = Figure(figsize=(3.2 * (2 + n), 3.2), layout="constrained")
    axes = fig.subplots(1, 2 + n, gridspec_kw={"width_ratios": [1, 1] + [1.6] * n})
    for ax, img, title in ((axes[0], image, "image"), (axes[1], shuffled, "patches shuffled")):
        ax.imshow(hwc(img), interpolation="nearest")
        _patch_lines(ax, img.shape[-2:], patch_size)
        ax.set_title(title)
        ax.axis("off")
    colour = colours(outputs)
    for ax, (name, (p0, p1)) in zip(axes[2:], outputs.items(), strict=True):
        k = np.arange(len(p0))
        ax.bar(k - 0.2, p0.detach().cpu().numpy(), 0.4, color=colour[name], label="image")
        ax.bar(
            k + 0.2,
            p1.detach().cpu().numpy(),
            0.4,
            color=colour[name],
            alpha=0.45,
            hatch="//",
            edgecolor="white",
            label="shuffled",
        )
        change = (p0 - p1).abs().max().item()
        ax.set_title(f"{name}: max change {change:.1e}", fontsize=10)
        ax.set(ylim=(0, 1), xlabel="class", ylabel="probability")
        ax.set_xticks(k, [str(i) for i in k] if classes is None else list(range(len(k))))
        ax.legend(fontsize=8)
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
            ax.imshow(hwc(batch[i]), cmap="gray" if batch.shape[1] == 1 else None, vmin=0, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
            if title:
                ax.set_title(title, fontsize=8)
    axes[0, 0].set_ylabel("original", fontsize=9)
    axes[1, 0].set_ylabel("augmented", fontsize=9)
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
    fig, axes = _panels(len(cells), min(ncols, len(cells)), 1.5, 1.75)
    for i, ax in enumerate(axes):
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
    matrix(axes[0], w, "connections, token order", "Greys", 0, top)
    matrix(axes[1], w[order][:, order], "connections, sorted by module", "Greys", 0, top)
    module_lines(axes[1], modules[order])
    im = matrix(axes[2], corr[order][:, order], "correlation of the traces", "RdBu_r", -1, 1)
    module_lines(axes[2], modules[order])
    fig.colorbar(im, ax=axes[2], shrink=0.8)
    colours = [cmap("tab10")(k % 10) for k in range(int(modules.max()) + 1)]
    shown = [int(i) for k in range(2) for i in np.flatnonzero(modules.numpy() == k)[: nodes_shown // 2]]
    for rank, i in enumerate(shown):
        axes[3].plot(traces[:steps, i].numpy() + 3 * rank, color=colours[int(modules[i])], lw=0.8)
    axes[3].set(title=f"{len(shown)} nodes of 2 modules (colour: module)", xlabel="time step", yticks=[])
    return fig
