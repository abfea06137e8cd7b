"""Figures for the lessons: pure functions, data in, matplotlib Figure out (testable headless).

Figures are made without pyplot, so nothing global is left open: a notebook shows a returned figure
once, and a slider can redraw it as often as it likes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

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
