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
from torch.utils.data import TensorDataset

from minivit import analysis, viz
from minivit.augment import Augment
from minivit.data import shuffle_patches
from minivit.posenc import alibi_slopes, relative_offsets, sincos_2d
from minivit.posenc.base import grid_coords
from minivit.posenc.rope import axial_frequencies
from minivit.posenc.spiral import group_frequencies, spiral_directions


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


def relative_view(table: Tensor, grid: tuple[int, int], *, clip: int, head: int, query: int) -> Figure:
    """A relative-bias table [H, 2gh-1, 2gw-1] seen through clipping at `clip`: the entries a head
    uses (left) and the bias from patch `query` to every patch (right)."""
    rh, rw = grid[0] - 1, grid[1] - 1
    dy = torch.arange(-rh, rh + 1).clamp(-clip, clip) + rh  # clipped offset -> row of the table
    dx = torch.arange(-rw, rw + 1).clamp(-clip, clip) + rw
    seen = table[head][dy][:, dx]  # (2gh-1, 2gw-1): outer offsets share the entries at +-clip
    off = relative_offsets(grid)
    bias = seen[off[..., 0] + rh, off[..., 1] + rw]  # (N, N)
    fig = Figure(figsize=(8, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2)
    lim = float(table.abs().max()) or 1.0  # one scale for every head and clip: sizes compare
    viz.offset_table(seen, title=f"head {head}: bias by offset, clip {clip}", ax=left, lim=lim)
    b = bias[query].reshape(grid).numpy()
    im = right.imshow(b, cmap="RdBu_r", vmin=-lim, vmax=lim)
    r, c = divmod(query, grid[1])
    right.add_patch(viz.square(c - 0.5, r - 0.5, 1))
    right.set(title=f"bias from patch ({r}, {c})", xticks=[], yticks=[])
    fig.colorbar(im, ax=right, shrink=0.8)
    return fig


def relative_explorer(table: Tensor, grid: tuple[int, int]) -> W.VBox:
    """Sliders: clip distance, head and query patch, over a trained relative-bias table."""
    n = grid[0] * grid[1]
    return explorer(
        lambda clip, head, query: relative_view(table, grid, clip=clip, head=head, query=query),
        {
            "clip": _slider(max(grid) - 1, 0, max(grid) - 1, "clip"),
            "head": _slider(0, 0, table.shape[0] - 1, "head"),
            "query": _slider(n // 2, 0, n - 1, "query patch"),
        },
    )


def rope_view(*, base: float, index: int, angle: float, head_dim: int = 32, radius: int = 7) -> Figure:
    """RoPE's score q . k as a function of the 2-D offset between query and key (q = k = ones).

    Left: one channel pair, frequency base^(-4 index / Dh) in direction `angle` (degrees): a plane
    wave. Right: all pairs, half along `angle` and half perpendicular, as mixed RoPE starts; at
    angle 0 this is axial RoPE.
    """
    mag = axial_frequencies(head_dim, base).float()  # (Dh/4,)
    a = torch.tensor(angle * torch.pi / 180)
    fx = torch.cat([mag * a.cos(), mag * (a + torch.pi / 2).cos()])  # (Dh/2,)
    fy = torch.cat([mag * a.sin(), mag * (a + torch.pi / 2).sin()])
    d = torch.arange(-radius, radius + 1, dtype=torch.float32)
    dy, dx = torch.meshgrid(d, d, indexing="ij")
    phase = dx[..., None] * fx + dy[..., None] * fy  # (2R+1, 2R+1, Dh/2): rotation of each pair
    single = phase[..., index].cos()  # the score of one pair with q = k = (1, 0)
    total = phase.cos().sum(-1) / phase.shape[-1]
    fig = Figure(figsize=(8, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2)
    f = mag[index % len(mag)].item()
    viz.offset_table(single, title=f"pair {index}: |f| = {f:.3f}, {angle:g} deg", ax=left)
    viz.offset_table(total, title=f"all pairs, base {base:g} (mean score)", ax=right)
    return fig


def rope_explorer(head_dim: int = 32) -> W.VBox:
    """Sliders: base, frequency index and direction angle of RoPE's frequencies."""
    return explorer(
        lambda base, index, angle: rope_view(base=base, index=index, angle=angle, head_dim=head_dim),
        {
            "base": W.SelectionSlider(
                options=[2, 10, 100, 1000, 10000], value=100, description="base", continuous_update=False
            ),
            "index": _slider(0, 0, head_dim // 4 - 1, "frequency index"),
            "angle": _slider(0, 0, 180, "angle (deg)", step=5),
        },
    )


def alibi_view(*, heads: int, head: int, query: int, grid: tuple[int, int] = (8, 8)) -> Figure:
    """ALiBi-2D: the slopes of `heads` heads (Press et al.) and head `head`'s bias from patch `query`,
    on the colour scale of the steepest head, so a shallow head looks as flat as it is."""
    head = min(head, heads - 1)
    slopes = alibi_slopes(heads)
    distances = analysis.grid_distances(grid)
    bias = -slopes[head] * distances[query].reshape(grid)
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    left.bar(range(heads), slopes, color=["tab:orange" if h == head else "tab:blue" for h in range(heads)])
    left.set(xlabel="head", ylabel="slope m", yscale="log", title=f"{heads} heads: slopes")
    low = -max(slopes) * float(distances.max())
    im = right.imshow(bias.numpy(), cmap="magma", vmin=low, vmax=0.0, interpolation="nearest")
    r, c = divmod(query, grid[1])
    right.add_patch(viz.square(c - 0.5, r - 0.5, 1))
    right.set(title=f"head {head}: bias -{slopes[head]:.3g} x distance", xticks=[], yticks=[])
    fig.colorbar(im, ax=right, shrink=0.8)
    return fig


def alibi_explorer(grid: tuple[int, int] = (8, 8)) -> W.VBox:
    """Sliders: number of heads, head and query patch, drawing ALiBi-2D's bias over the grid."""
    n = grid[0] * grid[1]
    return explorer(
        lambda heads, head, query: alibi_view(heads=heads, head=head, query=query, grid=grid),
        {
            "heads": _slider(8, 1, 16, "heads"),
            "head": _slider(0, 0, 15, "head"),
            "query": _slider(n // 2 + grid[1] // 2, 0, n - 1, "query patch"),
        },
    )


def init_scale_view(
    runs: Sequence[Mapping], *, sigma: str, seed: int, block: int, name: str | None = None
) -> Figure:
    """A recorded run of the σ sweep (`minivit.experiments.init_scale`): its trained table of one
    block as similarity maps at their place on the 4x4 grid (left) and mapped onto the grid by
    Procrustes alignment (right), each score with its null where the run has one (`grid`)."""
    (run,) = [r for r in runs if r["encoding"] == sigma and r["seed"] == seed]
    table = torch.tensor(run["tables"][block])
    grid = (4, 4)
    score, aligned = analysis.procrustes(table, grid_coords(grid))
    fig = Figure(figsize=(8.5, 3.9), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.2, 1])
    nulls = run["grid"][block] if "grid" in run else None  # the same table against the cells shuffled
    similar = "each cell's similarity to the others"
    if nulls:
        similar += (
            f"\nagainst closeness on the grid: {nulls['structure']:.2f} "
            f"(shuffled: 95% ≤ {nulls['structure_null'][1]:.2f})"
        )
    viz.similarity_grid(table, grid, fig=left, title=similar, itself=False)
    title = f"aligned to the grid: {score:.2f}"
    if nulls:
        title += f"\n(cells shuffled: 95% at or below {nulls['procrustes_null'][1]:.2f})"
    # the best fit shrinks the table by its score; drawn at the grid's size, its shape shows
    centre = aligned.mean(0)
    viz.procrustes_layout(
        (aligned - centre) / max(score, 1e-6) + centre, grid, ax=right.subplots(), title=title
    )
    acc = run["accuracy"]
    scores = f"train {acc['train']:.2f}, held-out {acc['test']:.2f}, kept apart {acc['apart']:.2f}"
    where = f"σ = {sigma}, seed {seed}, block {block}"
    fig.suptitle((f"{name}: " if name else "") + f"{where}: {scores}", fontsize=10)
    return fig


def init_scale_explorer(
    runs: Sequence[Mapping] | Mapping[str, Sequence[Mapping]],
    *,
    sweep: str | None = None,
    sigma: str | None = None,
    seed: int | None = None,
    block: int = 0,
    sweep_label: str = "sweep",
) -> W.VBox:
    """Sliders: σ (from the recorded sweep), seed and block, starting at the given ones (default:
    the smallest σ, the first seed, the first block). Given several sweeps by name ({name: runs}),
    a first slider, named `sweep_label`, picks the sweep (default: the first)."""
    sweeps = dict(runs) if isinstance(runs, Mapping) else {"": runs}
    sweep = next(iter(sweeps)) if sweep is None else sweep
    if sweep not in sweeps:
        raise ValueError(f"no sweep {sweep!r}; the sweeps are {list(sweeps)}")
    tabled = [r for rs in sweeps.values() for r in rs if "tables" in r]
    sigmas = sorted({r["encoding"] for r in tabled}, key=float)
    seeds = sorted({r["seed"] for r in tabled})
    depth = len(tabled[0]["tables"])
    sigma = sigmas[0] if sigma is None else sigma
    seed = seeds[0] if seed is None else seed
    if sigma not in sigmas or seed not in seeds or not 0 <= block < depth:
        raise ValueError(
            f"no recorded table for σ={sigma!r}, seed={seed!r}, block={block!r}; the sweep has σ in "
            f"{sigmas}, seeds {seeds} and blocks 0-{depth - 1}"
        )
    controls = {
        "sigma": W.SelectionSlider(options=sigmas, value=sigma, description="σ", continuous_update=False),
        "seed": W.SelectionSlider(options=seeds, value=seed, description="seed", continuous_update=False),
        "block": _slider(block, 0, depth - 1, "block"),
    }
    if len(sweeps) == 1:
        return explorer(
            lambda sigma, seed, block: init_scale_view(runs, sigma=sigma, seed=seed, block=block), controls
        )
    pick = W.SelectionSlider(
        options=list(sweeps), value=sweep, description=sweep_label, continuous_update=False
    )
    return explorer(
        lambda sweep, sigma, seed, block: init_scale_view(
            sweeps[sweep], sigma=sigma, seed=seed, block=block, name=f"{sweep_label} {sweep}"
        ),
        {"sweep": pick, **controls},
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
            "index": _slider(0, 0, count - 1, "image"),
        },
    )


MIXES = ("mixup", "CutMix", "none")


def augment_view(
    images: Tensor,
    labels: Tensor,
    num_classes: int,
    *,
    magnitude: float,
    alpha: float,
    mix: str,
    seed: int,
    erasing: float = 0.25,
    classes: Sequence[str] | None = None,
) -> Figure:
    """`images` [n, C, H, W] through crop, flip and 2 RandAugment operations at `magnitude`, then
    `mix` ("mixup", "CutMix" or "none") with Beta(alpha, alpha), then random erasing."""
    if mix not in MIXES:
        raise ValueError(f"unknown mix {mix!r}; known: {', '.join(MIXES)}")
    augment = Augment(
        crop=images.shape[-1] // 8,
        flip=True,
        randaugment=2,
        magnitude=magnitude,
        mixup=alpha if mix == "mixup" else 0.0,
        cutmix=alpha if mix == "CutMix" else 0.0,
        erasing=erasing,
    )
    out, targets = augment(images, labels, num_classes, torch.Generator().manual_seed(seed))
    return viz.augmentations(images, out, targets, classes)


def augment_explorer(
    images: Tensor, labels: Tensor, num_classes: int, classes: Sequence[str] | None = None
) -> W.VBox:
    """Sliders: RandAugment's magnitude, the mixing α, mixup or CutMix (or neither), the random draw."""
    return explorer(
        lambda **kw: augment_view(images, labels, num_classes, classes=classes, **kw),
        {
            "magnitude": _slider(9.0, 0.0, 10.0, "magnitude", step=1.0),
            "alpha": _slider(0.8, 0.2, 2.0, "α", step=0.2),
            "mix": W.ToggleButtons(options=MIXES, value="mixup", description="mix"),
            "seed": _slider(0, 0, 20, "draw"),
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
            "block": _slider(0, 0, config.depth - 1, "block"),
            "head": _slider(0, 0, config.heads - 1, "head"),
            "query": _slider(n // 2 + config.grid[1] // 2, 0, n - 1, "query patch"),
            "index": _slider(0, 0, len(images) - 1, "image"),
        },
    )


def network_view(
    snapshots: Mapping[str, Sequence[tuple[int, Tensor]]], modules: Tensor, *, run: str, step: int
) -> Figure:
    """One run's table at one of its training snapshots (by step): similarity in the token order and
    sorted by module, with its within − between similarity."""
    table = dict(snapshots[run])[step]
    score = analysis.within_between(analysis.cosine_similarity(table), modules)
    return viz.module_similarity(table, modules, title=f"{run}, step {step}", score=score)


def network_explorer(snapshots: Mapping[str, Sequence[tuple[int, Tensor]]], modules: Tensor) -> W.VBox:
    """Controls: which run (its σ), which training step (the steps every run has a snapshot at)."""
    runs = list(snapshots)
    steps = sorted(set.intersection(*({step for step, _ in snapshots[r]} for r in runs)))
    if not steps:
        raise ValueError(
            "the runs share no snapshot step; keep them at the same steps (train_one(every=...))"
        )
    return explorer(
        lambda run, step: network_view(snapshots, modules, run=run, step=step),
        {
            "run": W.ToggleButtons(options=runs, value=runs[0], description="table"),
            "step": W.SelectionSlider(
                options=steps, value=steps[-1], description="step", continuous_update=False
            ),
        },
    )


# --- lesson 12: the rotary family ------------------------------------------------------------------

_J = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=torch.float64)  # exp(phi J) turns a pair by phi
FAMILY_CHANGES = {
    "add a part that does not commute (LieRE)": "add",
    "change the basis (STRING)": "basis",
}


def _random_skew(size: int, seed: int) -> Tensor:
    """A random skew-symmetric matrix [size, size] (float64): A - A^T of a standard normal A."""
    a = torch.randn(size, size, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return a - a.T


def family_generators(strength: float, change: str, *, head_dim: int = 16, seed: int = 0) -> Tensor:
    """Axial RoPE's generators (A_row, A_col) [2, Dh, Dh], base 100, changed by `strength` in [0, 1].

    change="add": A_col + strength * D, D skew-symmetric and random with the norm of A_col (the
    generators no longer commute); change="basis": P^T A P for both, P = exp(strength * S), S
    skew-symmetric and random (they still commute, as STRING's do)."""
    f = axial_frequencies(head_dim, 100.0)  # (Dh/4,) float64
    zero = torch.zeros_like(f)
    col = torch.block_diag(*(x * _J for x in torch.cat([f, zero])))
    row = torch.block_diag(*(x * _J for x in torch.cat([zero, f])))
    if change == "add":
        d = _random_skew(head_dim, seed)
        return torch.stack([row, col + strength * d * col.norm() / d.norm()])
    if change == "basis":
        p = torch.linalg.matrix_exp(strength * _random_skew(head_dim, seed + 1))
        return torch.stack([p.T @ row @ p, p.T @ col @ p])
    raise ValueError(f"unknown change {change!r}; known: {', '.join(FAMILY_CHANGES.values())}")


def generator_scores(generators: Tensor, q: Tensor, k: Tensor, grid: tuple[int, int]) -> Tensor:
    """q . k after R(x) = exp(x_r A_row + x_c A_col) at every patch x of `grid` (rows and columns
    counted in patches): generators [2, Dh, Dh], q and k [Dh] the same at every patch -> [N, N]."""
    rc = grid_coords(grid, dtype=generators.dtype)  # (N, 2)
    rot = torch.linalg.matrix_exp(torch.einsum("na,aij->nij", rc, generators))  # (N, Dh, Dh)
    return (rot @ q) @ (rot @ k).T  # (N, N)


_SHARES: dict = {}  # (change, head_dim, grid, seed) -> the curve of _family_shares


def _family_shares(change: str, head_dim: int, grid: tuple[int, int], seed: int) -> tuple[Tensor, Tensor]:
    """The offset-only share (1 - within-offset fraction) of the scores at strengths 0, 0.05, ..., 1."""
    key = (change, head_dim, tuple(grid), seed)
    if key not in _SHARES:
        q, k = torch.randn(
            2, head_dim, generator=torch.Generator().manual_seed(seed + 2), dtype=torch.float64
        )
        strengths = torch.linspace(0, 1, 21, dtype=torch.float64)
        shares = [
            1
            - analysis.offset_dependence(
                generator_scores(family_generators(s, change, head_dim=head_dim, seed=seed), q, k, grid), grid
            )["fraction"].item()
            for s in strengths.tolist()
        ]
        _SHARES[key] = (strengths, torch.tensor(shares))
    return _SHARES[key]


def family_view(
    *, strength: float, change: str, head_dim: int = 16, grid: tuple[int, int] = (6, 6), seed: int = 0
) -> Figure:
    """Axial RoPE's generators changed by `strength` (see `family_generators`): left, the scores of
    one q and k at two offsets, for queries along the grid's diagonal (flat lines: the score depends
    on the offset alone); right, the share of the scores' variance that the offset explains, against
    the strength, for both changes."""
    a = family_generators(strength, change, head_dim=head_dim, seed=seed)
    q, k = torch.randn(2, head_dim, generator=torch.Generator().manual_seed(seed + 2), dtype=torch.float64)
    s = generator_scores(a, q, k, grid)
    gw = grid[1]
    steps = range(min(grid) - 1)  # queries (i, i) with a key one step down-right inside the grid
    fig = Figure(figsize=(9, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2)
    for (dr, dc), label in (
        ((1, 1), "key at (i + 1, i + 1): along the line"),
        ((0, 1), "key at (i, i + 1): across it"),
    ):
        left.plot(
            list(steps), [s[i * gw + i, (i + dr) * gw + i + dc].item() for i in steps], "o-", label=label
        )
    left.set(xlabel="query at (i, i)", ylabel="score q . k", title="one offset, queries along the diagonal")
    left.legend(fontsize=8)
    low = 1.0
    for name, value in FAMILY_CHANGES.items():
        strengths, shares = _family_shares(value, head_dim, grid, seed)
        low = min(low, shares.min().item())
        right.plot(strengths.numpy(), shares.numpy(), label=name, lw=2 if value == change else 1)
    share = 1 - analysis.offset_dependence(s, grid)["fraction"].item()
    right.plot([strength], [share], "ko")
    comm = (a[0] @ a[1] - a[1] @ a[0]).norm() / (a[0].norm() * a[1].norm())
    right.set(
        xlabel="strength", ylabel="offset-only share", ylim=(min(0.9, float(low)) - 0.02, 1.01),
        title=f"strength {strength:.2f}: share {share:.3f}, commutator {comm:.2f}",
    )  # fmt: skip
    right.legend(fontsize=8, loc="lower left")
    return fig


def family_explorer(head_dim: int = 16, grid: tuple[int, int] = (6, 6)) -> W.VBox:
    """Controls: how strongly axial RoPE's generators are changed, and how (a part that does not
    commute, or a change of basis)."""
    return explorer(
        lambda strength, change: family_view(strength=strength, change=change, head_dim=head_dim, grid=grid),
        {
            "strength": _slider(0.5, 0.0, 1.0, "strength", step=0.05),
            "change": W.Dropdown(options=list(FAMILY_CHANGES.items()), value="add", description="change"),
        },
    )


def spiral_scores(directions: int, *, head_dim: int = 48, radius: int = 5, base: float = 100.0) -> Tensor:
    """Spiral RoPE's score for q = k = ones, pair by pair, as a function of the 2-D offset (key minus
    query) up to `radius`: [K, m, 2R + 1, 2R + 1] (direction, pair within its group, row, column
    offset); summed over the first two dims, the score of the whole head."""
    pairs = head_dim // 2
    if pairs % directions:
        raise ValueError(f"{directions} directions do not split the {pairs} pairs of a head of {head_dim}")
    d = torch.arange(-radius, radius + 1, dtype=torch.float64)
    dr, dc = torch.meshgrid(d, d, indexing="ij")  # (2R+1, 2R+1) each
    units = spiral_directions(directions)  # (K, 2) = (row, col)
    along = dr[..., None] * units[:, 0] + dc[..., None] * units[:, 1]  # (2R+1, 2R+1, K)
    phase = along[..., None] * group_frequencies(pairs // directions, base)  # (2R+1, 2R+1, K, m)
    return (2 * phase.cos()).permute(2, 3, 0, 1)  # (1, 1) . R(phase) (1, 1) = 2 cos(phase)


def spiral_view(*, directions: int, head_dim: int = 48, radius: int = 5) -> Figure:
    """Spiral RoPE with K = `directions` (K = 2 is axial RoPE), q = k = ones: left, the whole head's
    score against the 2-D offset; right, the pairs of the direction nearest 135 degrees, which turn
    with row - column (at 135 degrees exactly they are constant along the diagonal)."""
    s = spiral_scores(directions, head_dim=head_dim, radius=radius)  # (K, m, 2R+1, 2R+1)
    whole = s.sum(dim=(0, 1))
    angles = torch.arange(directions) * 180 / directions
    group = int((angles - 135).abs().argmin())
    at = lambda dr, dc: whole[radius + dr, radius + dc].item()  # noqa: E731
    fig = Figure(figsize=(8, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2)
    viz.offset_table(
        whole,
        title=f"K = {directions}: all pairs; s(0, 5) = {at(0, 5):.1f}, s(3, 4) = {at(3, 4):.1f}",
        ax=left,
    )
    viz.offset_table(s[group].sum(0), title=f"the {s.shape[1]} pairs at {angles[group]:g} degrees", ax=right)
    return fig


def spiral_explorer(head_dim: int = 48) -> W.VBox:
    """Control: the number of directions K of Spiral RoPE (those that split the head's pairs evenly)."""
    ks = [k for k in range(2, head_dim // 2 + 1) if (head_dim // 2) % k == 0][:6]
    return explorer(
        lambda directions: spiral_view(directions=directions, head_dim=head_dim),
        {
            "directions": W.SelectionSlider(
                options=ks, value=ks[0], description="directions K", continuous_update=False
            )
        },
    )
