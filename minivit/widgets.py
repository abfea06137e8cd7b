"""Sliders for the lessons: thin wiring of ipywidgets to the figures in `viz.py`.

Each explorer has a plain function that draws one state (tested headless) and a widget that calls it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor, nn

from minivit import analysis, viz
from minivit.data import shuffle_patches
from minivit.posenc import sincos_2d


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


def explorer(view: Callable[..., Figure], controls: Mapping[str, W.ValueWidget]) -> W.VBox:
    """Sliders wired to a figure: `view(**{name: control.value})` redrawn whenever a control moves."""
    image = W.Image(format="png")

    def draw(*_):
        image.value = figure_image(view(**{name: c.value for name, c in controls.items()}))

    for c in controls.values():
        c.observe(draw, names="value")
    draw()
    return W.VBox([W.HBox(list(controls.values())), image])


def _slider(value, lo, hi, description, step=1, **kw) -> W.ValueWidget:
    klass = W.IntSlider if isinstance(step, int) and isinstance(value, int) else W.FloatSlider
    return klass(
        value=value,
        min=lo,
        max=hi,
        step=step,
        description=description,
        continuous_update=False,
        style={"description_width": "initial"},
        **kw,
    )


def shuffle_explorer(models: Mapping[str, nn.Module], images: Tensor, *, patch_size: int) -> W.VBox:
    """Sliders: which image and which shuffle; shows each model's probabilities before and after."""
    return explorer(
        lambda index, seed: shuffle_view(models, images[index], seed=seed, patch_size=patch_size),
        {"index": _slider(0, 0, len(images) - 1, "image"), "seed": _slider(0, 0, 99, "shuffle seed")},
    )


@torch.no_grad()
def attention_view(
    model: nn.Module, image: Tensor, *, query: int, temperature: float = 1.0, layer: int = 0
) -> Figure:
    """Every head's attention from patch `query` in block `layer`, at softmax temperature T."""
    weights = model.eval().attention_maps(image[None])[layer][0]  # (H, N, N)
    p = getattr(model.config, "num_prefix_tokens", 0)
    weights = analysis.with_temperature(weights[:, p:, p:], temperature)
    return viz.attention_heads(
        image,
        weights,
        query,
        patch_size=model.config.patch_size,
        title=f"block {layer}, temperature {temperature:g}",
    )


def attention_explorer(model: nn.Module, images: Tensor, *, layer: int = 0) -> W.VBox:
    """Sliders: image, query patch and softmax temperature; shows every head's attention."""
    n = (images.shape[-2] // model.config.patch_size) * (images.shape[-1] // model.config.patch_size)
    return explorer(
        lambda index, query, temperature: attention_view(
            model, images[index], query=query, temperature=temperature, layer=layer
        ),
        {
            "index": _slider(0, 0, len(images) - 1, "image"),
            "query": _slider(n // 2, 0, n - 1, "query patch"),
            "temperature": _slider(1.0, 0.1, 3.0, "temperature", step=0.1),
        },
    )


def sincos_view(*, dim: int, base: float, position: int, grid: tuple[int, int] = (8, 8)) -> Figure:
    """The 2-D sinusoidal table for `grid` at width `dim` and `base`, and one position's similarity map."""
    table = sincos_2d(grid, dim, base)
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    viz.encoding_heatmap(table, ax=left, title=f"sincos2d, dim {dim}, base {base:g}: rows | columns")
    viz.similarity_map(table, grid, position, ax=right)
    return fig


def sincos_explorer(grid: tuple[int, int] = (8, 8)) -> W.VBox:
    """Sliders: embedding width, base and position for the 2-D sinusoidal encoding."""
    return explorer(
        lambda dim, base, position: sincos_view(dim=dim, base=base, position=position, grid=grid),
        {
            "dim": _slider(64, 8, 256, "dim", step=8),
            "base": W.SelectionSlider(
                options=[10, 100, 1000, 10000, 100000],
                value=10000,
                description="base",
                continuous_update=False,
            ),
            "position": _slider(grid[0] * grid[1] // 2 + grid[1] // 2, 0, grid[0] * grid[1] - 1, "position"),
        },
    )


def learned_view(
    snapshots: Mapping[str, Sequence[tuple[int, Tensor]]],
    grid: tuple[int, int],
    *,
    init: str,
    snapshot: int,
    position: int,
) -> Figure:
    """A learned table from a run's snapshots: one position's similarity map, and every position's."""
    step, table = snapshots[init][snapshot]
    score = analysis.structure_score(table, grid)
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1, 1.3])
    viz.similarity_map(table, grid, position, ax=left.subplots())
    viz.similarity_grid(table, grid, fig=right)
    fig.suptitle(f"init {init}, step {step}: structure score {score:.2f}", fontsize=10)
    return fig


def learned_explorer(snapshots: Mapping[str, Sequence[tuple[int, Tensor]]], grid: tuple[int, int]) -> W.VBox:
    """Sliders: which initialisation, which training snapshot, which position."""
    inits = list(snapshots)
    count = len(snapshots[inits[0]])
    return explorer(
        lambda init, snapshot, position: learned_view(
            snapshots, grid, init=init, snapshot=snapshot, position=position
        ),
        {
            "init": W.ToggleButtons(options=inits, value=inits[0], description="init"),
            "snapshot": _slider(count - 1, 0, count - 1, "snapshot"),
            "position": _slider(0, 0, grid[0] * grid[1] - 1, "position"),
        },
    )
