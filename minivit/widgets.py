"""Sliders for the lessons: thin wiring of ipywidgets to the figures in `viz.py`.

Each explorer has a plain function that draws one state (tested headless) and a widget that calls it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor, nn

from minivit import viz
from minivit.data import shuffle_patches


@torch.no_grad()
def shuffle_view(models: Mapping[str, nn.Module], image: Tensor, *, seed: int, patch_size: int) -> Figure:
    """Shuffle the patches of `image` [C, H, W] with `seed`; show every model's answer before and after."""
    n = (image.shape[-2] // patch_size) * (image.shape[-1] // patch_size)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    shuffled = shuffle_patches(image[None], patch_size, perm)[0]
    outputs = {}
    for name, model in models.items():
        model.eval()
        probs = model(torch.stack([image, shuffled])).softmax(-1)  # (2, K)
        outputs[name] = (probs[0], probs[1])
    return viz.shuffle_comparison(image, shuffled, outputs, patch_size=patch_size)


def figure_image(fig: Figure) -> bytes:
    """A figure as PNG bytes, for an ipywidgets Image that a slider updates."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def shuffle_explorer(models: Mapping[str, nn.Module], images: Tensor, *, patch_size: int) -> W.VBox:
    """Sliders: which image and which shuffle; shows each model's probabilities before and after."""
    image = W.IntSlider(0, 0, len(images) - 1, description="image", continuous_update=False)
    seed = W.IntSlider(0, 0, 99, description="shuffle seed", continuous_update=False)
    view = W.Image(format="png")

    def draw(*_):
        fig = shuffle_view(models, images[image.value], seed=seed.value, patch_size=patch_size)
        view.value = figure_image(fig)

    for w in (image, seed):
        w.observe(draw, names="value")
    draw()
    return W.VBox([W.HBox([image, seed]), view])
