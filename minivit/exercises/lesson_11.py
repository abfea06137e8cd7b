"""Checks for lesson 11 (looking inside)."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import torch

from minivit.exercises.core import (
    Wrong,
    differs,
    exercise,
    expect,
    function,
    number,
    same,
    seeded,
    tensor,
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


@exercise(
    "11.7",
    "the mean attention distance of a model with a class token",
    hint="return a tensor [H]: per head, the distance to the patches each patch query attends to, its "
    "weights over the patches summing to 1, averaged over queries and images",
)
def _attention_distance(answer) -> str:
    from minivit import analysis

    f = function(
        answer,
        "(weights, grid)",
        refuse=(
            analysis.mean_attention_distance,
            "analysis.mean_attention_distance",
            "the exercise asks you to write it: drop the class token's row and column, renormalise, weigh "
            "the grid distances",
        ),
    )
    g = torch.Generator().manual_seed(0)
    for b, h, grid in ((3, 2, (4, 4)), (2, 3, (3, 5))):
        n = grid[0] * grid[1]
        logits = 2 * torch.randn(b, h, 1 + n, 1 + n, generator=g, dtype=torch.float64)
        logits[..., 0] += 2.0  # the class token draws much of the weight
        weights = logits.softmax(-1)
        want = analysis.mean_attention_distance(weights, grid, num_prefix_tokens=1).double()
        got = tensor(f(weights.clone(), grid), "return one distance per head, a tensor [H]", (h,))
        if same(got, want, atol=1e-5):
            continue
        where = f"on a {grid[0]}×{grid[1]} grid with a class token"
        d = analysis.grid_distances(grid).double()
        kept = (weights[..., 1:, 1:] * d).sum(-1).mean(dim=(0, 2))
        if same(got, kept, atol=1e-5):
            raise Wrong(
                f"{where} your distances are too short: a query's weights over the patches sum to under 1",
                "drop the class token as a key, then renormalise each query's weights over the patches",
            )
        raise Wrong(
            f"{where}, " + differs(got, want, "head"),
            "the class token is no patch: leave out its row (as a query) and its column (as a key); the "
            "patches are in raster order, (r, c) at 1 + r·gw + c; Euclidean distance in patches",
        )
    return (
        "the class token left out as a query and as a key: with uniform attention a head scores the grid's "
        "mean distance, 2.008 patches on 4×4"
    )


@exercise(
    "11.8",
    "the four terms of a score",
    hint="return a tensor [4, N, N]: content·content, content·position, position·content, "
    "position·position, each divided by √Dh",
)
def _four_terms(answer) -> str:
    f = function(answer, "(c, e, wq, wk)")
    g = torch.Generator().manual_seed(0)
    names = ("content·content", "content·position", "position·content", "position·position")
    for n, d, dh in ((5, 8, 4), (7, 12, 6)):
        c, e = torch.randn(2, n, d, generator=g, dtype=torch.float64)
        wq, wk = torch.randn(2, dh, d, generator=g, dtype=torch.float64)
        parts = ((c, c), (c, e), (e, c), (e, e))  # (query's part, key's part)
        want = torch.stack([(a @ wq.T) @ (b @ wk.T).T for a, b in parts]) / math.sqrt(dh)
        got = tensor(f(c.clone(), e.clone(), wq.clone(), wk.clone()), "return a tensor [4, N, N]", (4, n, n))
        if same(got, want):
            continue
        where = f"for {n} tokens of width {d} and Dh = {dh}"
        if same(got, want * math.sqrt(dh)):
            raise Wrong(
                f"{where} your terms are √Dh times too large", "divide each term by √Dh, as the score is"
            )
        if same(got, want * math.sqrt(dh / d)):
            raise Wrong(
                f"{where} your terms are divided by √D, the model's width",
                "the score divides by √Dh, one head's width: wq.shape[0]",
            )
        if same(got[[0, 2, 1, 3]], want):
            raise Wrong(
                f"{where} your content·position and position·content are swapped",
                "content·position is the query's content against the key's position: q(c_i)·k(e_j)",
            )
        if same(got.transpose(1, 2), want):
            raise Wrong(
                f"{where} your terms are transposed",
                "row i is the query, column j the key: entry (i, j) is q(x_i)·k(x_j)",
            )
        term = next(t for t in range(4) if not same(got[t], want[t]))
        raise Wrong(
            f"{where}, the {names[term]} term: " + differs(got[term], want[term]),
            "q(x) = x @ wq.T and k(x) = x @ wk.T; each term is q(one part) @ k(other part).T / √Dh",
        )
    return (
        "the four add up to (q(c + e) · k(c + e)) / √Dh, since q and k are linear; the mixed terms pair "
        "one token's content with another's position"
    )
