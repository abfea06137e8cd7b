"""The rotary family (lesson 12): axial RoPE's generators changed by a part that does not commute
(LieRE) or by one change of basis (STRING), and Spiral RoPE's score by number of directions."""

from __future__ import annotations

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor

from minivit import analysis, viz
from minivit.checks import check_whole
from minivit.posenc.base import grid_coords
from minivit.posenc.rope import axial_frequencies, group_frequencies, spiral_directions
from minivit.widgets.base import check_grid, explorer, slider
from minivit.widgets.guards import check_positions, check_width

_J = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=torch.float64)  # exp(phi J) turns a pair by phi
FAMILY_CHANGES = {
    "add a part that does not commute (LieRE)": "add",
    "change the basis (STRING)": "basis",
}
_COLOURS = {"add": viz.ENCODING_COLOURS["liere"], "basis": viz.ENCODING_COLOURS["string"]}


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
    """The share of the scores' variance left within offsets (0: offset-only) at strengths 0, 0.05, ..., 1."""
    key = (change, head_dim, tuple(grid), seed)
    if key not in _SHARES:
        q, k = torch.randn(
            2, head_dim, generator=torch.Generator().manual_seed(seed + 2), dtype=torch.float64
        )
        strengths = torch.linspace(0, 1, 21, dtype=torch.float64)
        shares = [
            analysis.offset_dependence(
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
    on the offset alone); right, the share of the scores' variance left within offsets (0: the score
    is offset-only, the measure of lessons 02, 05 and 11), against the strength, for both changes, in
    LieRE's and STRING's colours."""
    grid = _check_family(head_dim, grid)
    a = family_generators(strength, change, head_dim=head_dim, seed=seed)
    q, k = torch.randn(2, head_dim, generator=torch.Generator().manual_seed(seed + 2), dtype=torch.float64)
    s = generator_scores(a, q, k, grid)
    gw = grid[1]
    steps = range(min(grid) - 1)  # queries (i, i) with a key one step down-right inside the grid
    fig = Figure(figsize=(9, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2)
    for (dr, dc), label, grey in (
        ((1, 1), "key at (i + 1, i + 1): along the line", "0.1"),
        ((0, 1), "key at (i, i + 1): across it", "0.55"),
    ):
        scores = [s[i * gw + i, (i + dr) * gw + i + dc].item() for i in steps]
        left.plot(list(steps), scores, "o-", color=grey, label=label)
    left.set(xlabel="query at (i, i)", ylabel="score q . k", title="one offset, queries along the diagonal")
    left.legend(fontsize=8)
    high = 0.0
    for name, value in FAMILY_CHANGES.items():
        strengths, shares = _family_shares(value, head_dim, grid, seed)
        high = max(high, shares.max().item())
        right.plot(
            strengths.numpy(),
            shares.numpy(),
            color=_COLOURS[value],
            label=name,
            lw=2 if value == change else 1,
        )
    share = analysis.offset_dependence(s, grid)["fraction"].item()
    right.plot([strength], [share], "ko")
    comm = (a[0] @ a[1] - a[1] @ a[0]).norm() / (a[0].norm() * a[1].norm())
    right.set(
        xlabel="strength", ylabel="variance within offsets (0: offset-only)",
        ylim=(-0.01, max(0.1, high) + 0.02),
        title=f"within offsets {share:.3f}, commutator {comm:.2f}",
    )  # fmt: skip
    right.legend(fontsize=8, loc="upper left")
    return fig


def _check_family(head_dim, grid) -> tuple[int, int]:
    check_width("head_dim", head_dim, multiple=4)  # axial RoPE: a quarter of the channels per direction
    grid = check_grid(grid)
    check_positions(grid)
    return grid


def family_explorer(head_dim: int = 16, grid: tuple[int, int] = (6, 6)) -> W.VBox:
    """Controls: how strongly axial RoPE's generators are changed, and how (a part that does not
    commute, or a change of basis)."""
    grid = _check_family(head_dim, grid)
    return explorer(
        lambda strength, change: family_view(strength=strength, change=change, head_dim=head_dim, grid=grid),
        {
            "strength": slider(0.5, 0.0, 1.0, "strength", step=0.05),
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
    check_width("head_dim", head_dim, multiple=2)
    check_whole("directions", directions, 1, head_dim // 2)
    check_whole("radius", radius, 1, 256)
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
