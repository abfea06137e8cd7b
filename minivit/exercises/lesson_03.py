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
