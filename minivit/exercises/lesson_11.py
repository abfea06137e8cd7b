"""Checks for lesson 11 (looking inside)."""

from __future__ import annotations

import functools
from fractions import Fraction

import torch

from minivit.exercises.core import (
    Wrong,
    exercise,
    expect,
    function,
    number,
    seeded,
    whole,
)


def _kinds(grid, kernel_size: int) -> int:
    """Different tokens a zero-padded depthwise convolution makes of identical tokens on `grid`."""
    with seeded(0):
        conv = torch.nn.Conv2d(4, 4, kernel_size, padding=kernel_size // 2, groups=4)
    with torch.no_grad():
        out = conv(torch.ones(1, 4, *grid)).flatten(2)[0].T  # (N, 4)
    return len({tuple(round(v, 5) for v in row) for row in out.tolist()})


@exercise(
    "11.2", "how many kinds of token a zero-padded convolution makes of a blank image", hint="return a number"
)
def _kinds_of_token(answer) -> str:
    f = function(answer, "(grid, kernel_size)")
    for grid, k in (
        ((4, 4), 3),
        ((2, 2), 3),
        ((6, 6), 5),
        ((3, 7), 3),
        ((1, 5), 3),
        ((5, 5), 1),
        ((9, 4), 5),
    ):
        want = _kinds(grid, k)
        got = whole(f(grid, k), "return a whole number")
        expect(
            got == want,
            f"on grid {grid} with a {k}×{k} kernel you give {got}; the convolution makes {want} kinds",
            "a patch's output sums the kernel over the neighbours that lie inside the grid: patches with the "
            "same neighbours inside (the same distances to the borders, up to k // 2) get the same token",
        )
    return "9 kinds on the 4×4 grid from 1: the only position PEG has on a blank image, from its zero padding"


def _symmetries(g: int) -> list:
    """The 8 mirrors and turns of a g x g square, as maps of (r, c)."""
    m = g - 1
    return [
        lambda r, c: (r, c),
        lambda r, c: (r, m - c),
        lambda r, c: (m - r, c),
        lambda r, c: (m - r, m - c),
        lambda r, c: (c, r),
        lambda r, c: (m - c, r),
        lambda r, c: (c, m - r),
        lambda r, c: (m - c, m - r),
    ]


@functools.cache
def _blind_accuracy(g: int) -> Fraction:
    """One answer per class of cells that the mirrors and turns map into each other: classes / cells."""
    classes = {frozenset(s(r, c) for s in _symmetries(g)) for r in range(g) for c in range(g)}
    return Fraction(len(classes), g * g)


@exercise("11.5", "the best accuracy of a mirror-blind model on where", hint="return a number")
def _best_blind(answer) -> str:
    f = function(answer, "(g)")
    for g in range(1, 8):
        want = _blind_accuracy(g)
        got = number(f(g), "return the accuracy, a number from 0 to 1")
        expect(
            abs(got - float(want)) < 1e-6,  # float32 answers too; fractions of g ≤ 7 lie far apart
            f"on a {g}×{g} layout you give {got:.4f}",
            "the model answers alike for every cell a mirror or a turn of the square maps the shape's cell "
            "to; count those classes of cells (on 4×4: corners, edges, centre) and guess once per class",
        )
    return "3/16 on 4×4 and 6/25 on 5×5: one right answer per class of cells that the mirrors and turns mix"


@exercise("11.6", "the share of the score variance left within offsets", hint="return a number")
def _offset_fraction(answer) -> str:
    from minivit import analysis
    from minivit.posenc import grid_coords

    f = function(
        answer,
        "(scores, grid)",
        refuse=(
            analysis.offset_dependence,
            "analysis.offset_dependence",
            "group the pairs by offset and average them yourself",
        ),
    )
    g = torch.Generator().manual_seed(0)
    results = []
    for grid in ((4, 4), (3, 5)):
        n = grid[0] * grid[1]
        rc = grid_coords(grid, dtype=torch.long)
        off = rc[:, None, :] - rc[None, :, :]  # (N, N, 2)
        index = (off[..., 0] + grid[0] - 1) * (2 * grid[1] - 1) + off[..., 1] + grid[1] - 1  # (N, N)
        by_offset = torch.randn(int(index.max()) + 1, generator=g, dtype=torch.float64)[index]  # offset only
        absolute = torch.randn(n, n, generator=g, dtype=torch.float64)
        # scores away from 0 (a mean of 3, a spread of 2), as attention scores are: a share of the mean
        # square, not of the variance, then shows
        by_offset, absolute = 3 + 2 * by_offset, 2 * absolute
        for name, s in (
            ("offset-only", by_offset),
            ("random", absolute),
            ("mixed", by_offset + 0.3 * absolute),
        ):
            want = analysis.offset_dependence(s, grid)["fraction"].item()
            got = number(f(s.clone(), grid), "return the fraction, a number")
            if abs(got - (1 - want)) < 0.01 and abs(want - 0.5) > 0.05:
                raise Wrong(
                    f"for {name} scores you give {got:.3f}: the share the offset explains",
                    "the numerator is what is left within each offset: s_ij minus the mean of its offset",
                )
            expect(
                abs(got - want) <= 0.02 * want + 1e-6,
                f"for {name} scores on grid {grid} you give {got:.4g}",
                "group the pairs (i, j) by their 2-D offset (r_i − r_j, c_i − c_j); the mean over each group "
                "is s̄_offset; the denominator is the scores' variance (about their mean, not about 0)",
            )
            results.append(want)
    expected = (16 * 16 - 49) / (16 * 16 - 1)  # random scores: each of the 49 offset groups fits one mean
    return (
        f"0 for scores of the offset alone, {results[1]:.2f} for this draw of random ones on 4×4 (about "
        f"{expected:.2f} on average: the 49 offsets' means fit part of any 256 scores): the lesson's "
        "offset-only test"
    )
