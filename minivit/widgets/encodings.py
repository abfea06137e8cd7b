"""The encodings moved by hand: the 2-D sinusoid's width and base, a relative-bias table seen through a
clip distance, RoPE's base and frequency directions, ALiBi's heads and slopes."""

from __future__ import annotations

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor

from minivit import analysis, viz
from minivit.checks import check_whole
from minivit.posenc import alibi_slopes, relative_offsets, sincos_2d
from minivit.posenc.rope import axial_frequencies
from minivit.widgets.base import check_base, check_grid, check_position, explorer, slider
from minivit.widgets.guards import check_finite, check_index, check_positions, check_table, check_width


def sincos_view(*, dim: int, base: float, position: int, grid: tuple[int, int] = (8, 8)) -> Figure:
    """The 2-D sinusoidal table for `grid` at width `dim` and `base`, and one position's similarity map."""
    grid = check_grid(grid)
    check_positions(grid)
    check_width("dim", dim, least=4)  # sincos_2d names a width not divisible by 4
    check_base(base)
    check_position("position", position, grid)
    table = sincos_2d(grid, dim, base)
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    viz.encoding_heatmap(table, ax=left, title=f"sincos2d, dim {dim}, base {base:g}: rows | columns")
    viz.similarity_map(table, grid, position, ax=right)
    return fig


def sincos_explorer(grid: tuple[int, int] = (8, 8)) -> W.VBox:
    """Sliders: embedding width, base and position for the 2-D sinusoidal encoding."""
    grid = check_grid(grid)
    check_positions(grid)
    return explorer(
        lambda dim, base, position: sincos_view(dim=dim, base=base, position=position, grid=grid),
        {
            "dim": slider(64, 8, 256, "dim", step=8),
            "base": W.SelectionSlider(
                options=[10, 100, 1000, 10000, 100000],
                value=10000,
                description="base",
                continuous_update=False,
            ),
            "position": slider(grid[0] * grid[1] // 2 + grid[1] // 2, 0, grid[0] * grid[1] - 1, "position"),
        },
    )


def relative_view(table: Tensor, grid: tuple[int, int], *, clip: int, head: int, query: int) -> Figure:
    """A relative-bias table [H, 2gh-1, 2gw-1] seen through clipping at `clip`: the entries a head
    uses (left) and the bias from patch `query` to every patch (right)."""
    grid = check_grid(grid)
    check_positions(grid)
    _check_relative(table, grid)
    check_index("head", head, len(table), "heads of the table")
    check_whole("clip", clip, 0)
    check_position("query", query, grid)
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
    grid = check_grid(grid)
    check_positions(grid)
    _check_relative(table, grid)
    n = grid[0] * grid[1]
    return explorer(
        lambda clip, head, query: relative_view(table, grid, clip=clip, head=head, query=query),
        {
            "clip": slider(max(grid) - 1, 0, max(grid) - 1, "clip"),
            "head": slider(0, 0, table.shape[0] - 1, "head"),
            "query": slider(n // 2, 0, n - 1, "query patch"),
        },
    )


def _check_relative(table, grid: tuple[int, int]) -> None:
    rows, cols = 2 * grid[0] - 1, 2 * grid[1] - 1
    check_table(
        "table", table, (None, rows, cols), f"[heads, {rows}, {cols}] for the {grid[0]}x{grid[1]} grid"
    )


def rope_view(*, base: float, index: int, angle: float, head_dim: int = 32, radius: int = 7) -> Figure:
    """RoPE's score q . k as a function of the 2-D offset between query and key (q = k = ones).

    Left: one channel pair, frequency base^(-4 index / Dh) in direction `angle` (degrees): a plane
    wave. Right: all pairs, half along `angle` and half perpendicular, as mixed RoPE starts; at
    angle 0 this is axial RoPE.
    """
    check_width("head_dim", head_dim, multiple=4)  # a quarter of the pairs per direction
    check_index("index", index, head_dim // 2, f"channel pairs of a head of {head_dim}")
    check_finite("angle", angle)
    check_whole("radius", radius, 1, 256)
    check_base(base)
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
    check_width("head_dim", head_dim, multiple=4)
    return explorer(
        lambda base, index, angle: rope_view(base=base, index=index, angle=angle, head_dim=head_dim),
        {
            "base": W.SelectionSlider(
                options=[2, 10, 100, 1000, 10000], value=100, description="base", continuous_update=False
            ),
            "index": slider(0, 0, head_dim // 4 - 1, "frequency index"),
            "angle": slider(0, 0, 180, "angle (deg)", step=5),
        },
    )


def alibi_view(*, heads: int, head: int, query: int, grid: tuple[int, int] = (8, 8)) -> Figure:
    """ALiBi-2D: the slopes of `heads` heads (Press et al.) and head `head`'s bias from patch `query`,
    on the colour scale of the steepest head, so a shallow head looks as flat as it is."""
    grid = check_grid(grid)
    check_positions(grid)
    check_position("query", query, grid)
    slopes = alibi_slopes(heads)  # names a count of heads below 1
    check_whole("heads", heads, 1, 1024)
    check_index("head", head, heads, "heads")
    distances = analysis.grid_distances(grid)
    bias = -slopes[head] * distances[query].reshape(grid)
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    chosen = viz.ENCODING_COLOURS["alibi2d"]  # the chosen head in ALiBi's colour, the others grey
    left.bar(range(heads), slopes, color=[chosen if h == head else "0.75" for h in range(heads)])
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
    grid = check_grid(grid)
    check_positions(grid)
    n = grid[0] * grid[1]
    return explorer(  # the head slider runs to 15: past the heads there are, the last one is shown
        lambda heads, head, query: alibi_view(heads=heads, head=min(head, heads - 1), query=query, grid=grid),
        {
            "heads": slider(8, 1, 16, "heads"),
            "head": slider(0, 0, 15, "head"),
            "query": slider(n // 2 + grid[1] // 2, 0, n - 1, "query patch"),
        },
    )
