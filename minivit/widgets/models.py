"""What a trained model does: its answers to an image and to its patches shuffled, every head's
attention at a softmax temperature, its answers and attention at another image size, and one head's
scores with the same content at every position."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor, nn
from torch.utils.data import TensorDataset

from minivit import analysis, viz
from minivit.data import shuffle_patches
from minivit.widgets.base import explorer, slider
from minivit.widgets.guards import check_images, check_index, check_models, check_vit


@torch.no_grad()
def shuffle_view(models: Mapping[str, nn.Module], image: Tensor, *, seed: int, patch_size: int) -> Figure:
    """Shuffle the patches of `image` [C, H, W] with `seed`; show every model's answer before and after."""
    check_models("models", models)
    check_images("image", image[None] if isinstance(image, Tensor) else image, patch_size)
    n = (image.shape[-2] // patch_size) * (image.shape[-1] // patch_size)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    shuffled = shuffle_patches(image[None], patch_size, perm)[0]
    outputs = {}
    for name, model in models.items():
        model.eval()
        device = next(model.parameters()).device  # a model trained on a GPU takes its images there
        probs = model(torch.stack([image, shuffled]).to(device)).softmax(-1).cpu()  # (2, K)
        outputs[name] = (probs[0], probs[1])
    return viz.shuffle_comparison(image, shuffled, outputs, patch_size=patch_size)


def shuffle_explorer(models: Mapping[str, nn.Module], images: Tensor, *, patch_size: int) -> W.VBox:
    """Sliders: which image and which shuffle; shows each model's probabilities before and after."""
    check_models("models", models)
    check_images("images", images, patch_size)
    return explorer(
        lambda index, seed: shuffle_view(models, images[index], seed=seed, patch_size=patch_size),
        {"index": slider(0, 0, len(images) - 1, "image"), "seed": slider(0, 0, 99, "shuffle seed")},
    )


TEMPERATURES = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0)


@torch.no_grad()
def attention_view(
    model: nn.Module, image: Tensor, *, query: int, temperature: float = 1.0, layer: int = 0
) -> Figure:
    """Every head's attention from patch `query` in block `layer`, at softmax temperature T."""
    check_vit("model", model)
    check_index("layer", layer, model.config.depth, "blocks of the model")
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
    check_vit("model", model)
    check_index("layer", layer, model.config.depth, "blocks of the model")
    check_images("images", images)
    n = (images.shape[-2] // model.config.patch_size) * (images.shape[-1] // model.config.patch_size)
    return explorer(
        lambda index, query, temperature: attention_view(
            model, images[index], query=query, temperature=temperature, layer=layer
        ),
        {
            "index": slider(0, 0, len(images) - 1, "image"),
            "query": slider(n // 2, 0, n - 1, "query patch"),
            "temperature": W.SelectionSlider(  # spaced as ratios: T = 20 is as far as a lesson goes
                options=TEMPERATURES, value=1.0, description="temperature", continuous_update=False
            ),
        },
    )


@torch.no_grad()
def resolution_view(
    models: Mapping[str, nn.Module],
    data_at: Callable[[int], TensorDataset],
    *,
    size: int,
    index: int,
    classes: Sequence[str] | None = None,
) -> Figure:
    """One test image rendered at `size`, and each model's answer there with the attention its last
    block pays to every patch (averaged over queries and heads)."""
    images, labels = data_at(size).tensors[:2]
    image, label = images[index], int(labels[index])
    name = (lambda k: classes[k]) if classes else str
    fig = Figure(figsize=(2.3 * len(models), 2.8), layout="constrained")
    axes = fig.subplots(1, len(models), squeeze=False)[0]
    for ax, (variant, model) in zip(axes, models.items(), strict=True):
        model.eval()
        probs = model(image[None]).softmax(-1)[0]
        pred = int(probs.argmax())
        received = model.attention_maps(image[None])[-1][0].mean(0).mean(0)  # (P+N,)
        received = received[model.config.num_prefix_tokens :]
        mark = "✓" if pred == label else "✗"
        viz.attention_overlay(
            image,
            received,
            patch_size=model.config.patch_size,
            ax=ax,
            title=f"{variant}\n{mark} {name(pred)} ({probs[pred]:.2f})",
        )
    fig.suptitle(f"{size}x{size} px, answer {name(label)}", fontsize=10)
    return fig


def resolution_explorer(
    models: Mapping[str, nn.Module],
    data_at: Callable[[int], TensorDataset],
    sizes: Sequence[int],
    *,
    train_size: int,
    classes: Sequence[str] | None = None,
    count: int = 20,
) -> W.VBox:
    """Sliders: test image size (from `sizes`) and which test image."""
    cache: dict[int, TensorDataset] = {}

    def at(size: int) -> TensorDataset:
        if size not in cache:
            cache[size] = data_at(size)
        return cache[size]

    return explorer(
        lambda size, index: resolution_view(models, at, size=size, index=index, classes=classes),
        {
            "size": W.SelectionSlider(
                options=list(sizes),
                value=train_size,
                description="test size (px)",
                continuous_update=False,
                style={"description_width": "initial"},
            ),
            "index": slider(0, 0, count - 1, "image"),
        },
    )


@torch.no_grad()
def inside_view(
    models: Mapping[str, nn.Module],
    images: Tensor,
    *,
    encoding: str,
    block: int,
    head: int,
    query: int,
    index: int = 0,
) -> Figure:
    """Head `head` of block `block` of `models[encoding]`, seen from patch `query` of `images[index]`
    [C, H, W]: its attention on the image, and its scores with the content the query patch brings to
    that block placed at every position (what position alone does to the score)."""
    if encoding not in models:
        raise ValueError(f"no model for encoding {encoding!r}; known: {', '.join(models)}")
    model = models[encoding].eval()
    image = images[index][None]
    p = model.config.num_prefix_tokens
    tokens = analysis.block_tokens(model, image)
    grid = tokens["grid"]
    weights = model.attention_maps(image)[block][0, head, p:, p:]  # (N, N)
    content = tokens["content"][block][0, p + query]  # (D,)
    scores = analysis.same_content_scores(model, content, block, grid)[0, head]  # (N, N)
    d = analysis.offset_dependence(scores, grid)
    return viz.position_scores(
        images[index],
        weights[query],
        scores,
        analysis.offset_table(scores, grid),
        grid,
        query=query,
        patch_size=model.config.patch_size,
        fraction=d["fraction"].item() if d["varies"] else None,
        title=f"{encoding}, block {block}, head {head}",
    )


def inside_explorer(models: Mapping[str, nn.Module], images: Tensor, encoding: str | None = None) -> W.VBox:
    """Sliders: encoding (starting at `encoding`, else the first), block, head, query patch and image,
    over trained models of one shape."""
    names = list(models)
    if encoding is not None and encoding not in models:
        raise ValueError(
            f"encoding {encoding!r} is not among the models ({', '.join(names)}); pick one of those"
        )
    config = models[names[0]].config
    n = config.grid[0] * config.grid[1]
    return explorer(
        lambda encoding, block, head, query, index: inside_view(
            models, images, encoding=encoding, block=block, head=head, query=query, index=index
        ),
        {
            "encoding": W.Dropdown(options=names, value=encoding or names[0], description="encoding"),
            "block": slider(0, 0, config.depth - 1, "block"),
            "head": slider(0, 0, config.heads - 1, "head"),
            "query": slider(n // 2 + config.grid[1] // 2, 0, n - 1, "query patch"),
            "index": slider(0, 0, len(images) - 1, "image"),
        },
    )
