"""Checks for lesson 03 (learned embeddings)."""

from __future__ import annotations

import math

import torch

from minivit.exercises.core import (
    Wrong,
    exercise,
    expect,
    function,
    number,
    tensor,
)


def _cut_spread(a: float) -> float:
    """The standard deviation of N(0, 1) cut at ±a, not rescaled: √(1 − 2aφ(a) / (Φ(a) − Φ(−a)))."""
    phi = math.exp(-(a**2) / 2) / math.sqrt(2 * math.pi)  # the standard normal's density at a
    mass = math.erf(a / math.sqrt(2))  # P(−a < z < a)
    return math.sqrt(1 - 2 * a * phi / mass)


@exercise("03.7", "the spread of a normal cut at ±aσ", hint="return a number")
def _trunc_spread(answer) -> str:
    f = function(answer, "(a)")
    hint = "draw a million values with torch.nn.init.trunc_normal_(t, std=1.0, a=-a, b=a) and measure t.std()"
    # within 0.005: a million draws measure it to about 0.001
    for a in (2.0, 1.0, 3.0, 0.5, 1.5):
        x = number(f(a), "return the standard deviation as a multiple of σ, e.g. 0.5")
        right = _cut_spread(a)
        if abs(x - right) <= 0.005:
            continue
        if abs(x - right**2) <= 0.005:
            raise Wrong(f"at a = {a:g} you give {x:.4g}: the variance, not the standard deviation", hint)
        expect(
            x < 1,
            f"at a = {a:g}, {x:g} is not below 1",
            "cutting off the tails removes the values farthest from 0",
        )
        raise Wrong(f"at a = {a:g}, {x:g} σ is not the spread of N(0, σ²) cut at ±aσ (to 0.005)", hint)
    return (
        f"{_cut_spread(2):.3f} σ at ±2σ, {_cut_spread(1):.3f} σ at ±1σ: minivit's 0.02 start has a spread of "
        f"{0.02 * _cut_spread(2):.4f}"
    )


@exercise("03.8", "the expected norm of a random position vector", hint="return a number")
def _expected_norm(answer) -> str:
    f = function(answer, "(sigma, dim)")
    for sigma, dim in ((1.0, 64), (0.02, 64), (2.0, 16), (0.1, 160)):
        # E|x| for x ~ N(0, sigma^2 I_dim): sigma sqrt(2) Gamma((dim + 1) / 2) / Gamma(dim / 2)
        want = sigma * math.sqrt(2) * math.exp(math.lgamma((dim + 1) / 2) - math.lgamma(dim / 2))
        got = number(f(sigma, dim), "return a number")
        expect(
            abs(got - want) <= 0.02 * want,
            f"for σ = {sigma:g} at width {dim} you give {got:.4g}; a draw's norm averages {want:.4g}",
            "the squared norm is the sum of dim squared entries, each of mean σ²",
        )
    return (
        "about σ√dim: a σ = 1 table at width 64 has norm 8, a 0.02 table 0.16, beside tokens of norm "
        "about 1 (the init cell)"
    )


def cell_contrast(table: torch.Tensor) -> float:
    """Lesson 03's cell contrast on the 6×6 grid of 3×3 cells of 2×2 patches."""
    from minivit import analysis
    from minivit.posenc import grid_coords

    rc = grid_coords((6, 6)).long()
    cell = (rc[:, 0] // 2) * 3 + rc[:, 1] // 2
    same_cell = cell[:, None] == cell[None, :]
    steps = (analysis.grid_distances((6, 6)) ** 2).round()
    sim = analysis.cosine_similarity(table)
    kinds = [steps == 1, steps == 2]  # one step along a row or column, one step diagonally
    return sum((sim[k & same_cell].mean() - sim[k & ~same_cell].mean()).item() for k in kinds) / len(kinds)


@exercise("03.9", "a table that groups positions by cell", hint="answer a tensor [36, D]")
def _cell_table(answer) -> str:
    t = tensor(answer, "answer a tensor [36, D], one row per position of the 6×6 grid")
    expect(
        t.ndim == 2 and t.shape[0] == 36,
        f"the answer has shape {tuple(t.shape)}, not [36, D]",
        "one row per position of the 6×6 grid, in raster order",
    )
    expect(bool(torch.isfinite(t).all()), "the table holds NaN or infinity", "use finite numbers")
    contrast = cell_contrast(t.float())
    expect(
        contrast > 0.5,
        f"its cell contrast is {contrast:.2f}, not above 0.5",
        "pairs inside a cell must be more alike than pairs the same step apart across a boundary (a "
        "smooth layout scores 0): the 4 positions of a cell are the patches (r, c) with the same "
        "(r // 2, c // 2)",
    )
    return (
        f"cell contrast {contrast:.2f}: positions grouped by the 9 cells, as what training adds to the "
        "zeros and 0.02 tables on this task"
    )


@exercise(
    "03.10",
    "the structure score by hand",
    hint="return a number: the correlation, over the pairs of distinct positions, of cosine similarity "
    "with minus the distance on the grid",
)
def _structure_by_hand(answer) -> str:
    from minivit import analysis
    from minivit.posenc import grid_coords, sincos_2d

    f = function(
        answer,
        "(table, grid)",
        refuse=(
            analysis.structure_score,
            "analysis.structure_score",
            "the exercise asks you to write it: cosine similarities and grid distances of every pair "
            "of distinct positions, then their Pearson correlation",
        ),
    )
    g = torch.Generator().manual_seed(0)
    form = "return one number, the correlation"
    cases = []
    for grid in ((4, 4), (3, 5)):
        n = grid[0] * grid[1]
        rc = grid_coords(grid)
        scale = torch.rand(n, 1, generator=g) * 3 + 0.2  # rows of different lengths: cosine, not dot product
        cases += [
            (
                grid,
                "a table with a layout",
                scale
                * (
                    torch.cat([rc, torch.ones(n, 1)], 1) @ torch.randn(3, 8, generator=g)
                    + 0.5 * torch.randn(n, 8, generator=g)
                ),
            ),
            (grid, "a random table", scale * torch.randn(n, 8, generator=g)),
            (grid, "the sinusoid", sincos_2d(grid, 16, 10.0)),
        ]
    for grid, name, table in cases:
        want = analysis.structure_score(table, grid)
        got = number(f(table.clone(), grid), form)
        if abs(got - want) <= 1e-4:
            continue
        n = grid[0] * grid[1]
        sim = analysis.cosine_similarity(table).double().reshape(-1)
        dist = -analysis.grid_distances(grid).double().reshape(-1)
        with_self = torch.corrcoef(torch.stack([sim, dist]))[0, 1].item()
        expect(
            abs(got - with_self) > 1e-4,
            f"for {name} on a {grid[0]}×{grid[1]} grid you give {got:.4f}: the pairs of a position with "
            "itself are in",
            "over the pairs of distinct positions: a position with itself has similarity 1 at distance 0, "
            f"and the {n} such pairs pull the correlation up",
        )
        expect(
            abs(got + want) > 1e-4,
            f"for {name} on a {grid[0]}×{grid[1]} grid you give {got:.4f}, the score's opposite",
            "correlate similarity with minus the distance: near positions alike scores above 0",
        )
        raise Wrong(
            f"for {name} on a {grid[0]}×{grid[1]} grid you give {got:.4f}, the score is {want:.4f}",
            "cosine similarity (each row divided by its length) and the Euclidean distance in patches "
            "between every two distinct positions; then Pearson's r of the two lists",
        )
    return (
        "a Pearson correlation over the pairs: it rewards similarity that falls off smoothly with distance, "
        "whatever the rows' lengths"
    )
