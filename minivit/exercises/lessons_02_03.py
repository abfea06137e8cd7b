"""Checks for lesson 02 (sinusoidal encodings) and lesson 03 (learned embeddings)."""

from __future__ import annotations

import math

import torch

from minivit.exercises.core import (
    Wrong,
    differs,
    exercise,
    expect,
    function,
    kind,
    number,
    same,
    tensor,
    whole,
)

# --- lesson 02 ------------------------------------------------------------------------------------


def _sum_of_cosines(k: int, dim: int, base: float = 10000.0) -> float:
    """PE(p) . PE(p + k) = sum_i cos(k w_i), w_i = base^(-2i/D)."""
    omega = base ** (-2 * torch.arange(dim // 2, dtype=torch.float64) / dim)
    return torch.cos(k * omega).sum().item()


@exercise("02.1", "the first offset where PE·PE rises again, D = 8", hint="answer a whole number")
def _first_rise(answer) -> str:
    k = whole(answer, "answer the offset k as a whole number")
    s = [_sum_of_cosines(i, 8) for i in range(k + 1)] if k >= 1 else []
    expect(k >= 1, f"offset {k} is not above 0", "the offsets to look at are k = 1, 2, 3, ...")
    expect(
        s[k] > s[k - 1],
        f"s({k}) = {s[k]:.3f} is not above s({k - 1}) = {s[k - 1]:.3f}",
        "compute closed_form for D = 8 (omega with D = 8) and compare each offset with the one before",
    )
    first = next(i for i in range(1, k + 1) if s[i] > s[i - 1])
    expect(
        first == k,
        f"s({k}) > s({k - 1}), but s already rose at a smaller offset",
        "look from k = 1 upwards",
    )
    return (
        f"s(k) falls to offset {k - 1} and rises at {k}: similarity is not monotone in the distance "
        "(the fast clocks come round again)"
    )


@exercise("02.2", "the patch most like (0, 7) under the raster encoding", hint="answer (row, col)")
def _raster_neighbour(answer) -> str:
    form = "answer the patch as (row, col), e.g. (3, 4)"
    expect(
        isinstance(answer, (tuple, list)) and len(answer) == 2,
        f"the answer is {kind(answer)}, not a pair (row, col)",
        form,
    )
    r, c = whole(answer[0], form), whole(answer[1], form)
    expect(0 <= r < 8 and 0 <= c < 8, f"({r}, {c}) is not on the 8×8 grid", form)
    expect((r, c) != (0, 6), "(0, 6) is the left neighbour the exercise leaves out", "find the other one")
    expect((r, c) != (0, 7), "(0, 7) is the patch itself", "find another patch")
    k = abs(r * 8 + c - 7)
    expect(
        (r, c) != (1, 7),
        "(1, 7) is the patch below: most similar with sincos2d, but 8 raster steps away here",
        "with the raster index r·8 + c, which patch is one step from (0, 7)?",
    )
    expect(
        k == 1,
        f"({r}, {c}) is {k} raster steps from (0, 7); the most similar patches are closer",
        "the encoding is sincos1d of r·8 + c: similarity depends on the raster offset alone",
    )
    return (
        "(1, 0): the start of the next row is one raster step from the end of this one, as similar as "
        "the left neighbour, though 7 patches away on the image"
    )


@exercise(
    "02.3",
    "the rows of the top-left corner of a table",
    hint="return table rows [size·size, D] in raster order of the corner",
)
def _corner(answer) -> str:
    from minivit.posenc import sincos_2d

    f = function(answer, "(table, grid, size)")
    g = torch.Generator().manual_seed(0)
    for grid, size in (((12, 12), 8), ((12, 10), 4), ((5, 7), 3)):
        table = torch.randn(grid[0] * grid[1], 6, generator=g)
        want = table.view(*grid, 6)[:size, :size].reshape(size * size, 6)
        got = tensor(f(table.clone(), grid, size), "return a tensor [size·size, D]", tuple(want.shape))
        first = table[: size * size]
        expect(
            not same(got, first) or grid[1] == size,
            f"for grid {grid} your corner is the first {size * size} rows of the table",
            "the first rows run along the whole width of the grid; lay the table out as (gh, gw, D) and "
            "cut both axes",
        )
        expect(
            same(got, want),
            f"for grid {grid} and size {size}, " + differs(got, want, "entry"),
            "row r·gw + c of the table is patch (r, c); the corner holds r < size and c < size",
        )
    corner = tensor(f(sincos_2d((12, 12), 64), (12, 12), 8), "return a tensor [size·size, D]")
    expect(
        same(corner, sincos_2d((8, 8), 64).double()),
        "the corner of the 12×12 sincos2d table is not the 8×8 table",
        "row r·gw + c of the table is patch (r, c); the corner holds r < size and c < size",
    )
    return "the 8×8 corner of the 12×12 sincos2d table is the 8×8 table: one formula at the same coordinates"


@exercise(
    "02.4",
    "PE·PE at a 2-D offset from its row and column parts",
    hint="return a number from s_row, s_col and s_same",
)
def _row_plus_column(answer) -> str:
    from minivit.posenc import sincos_2d

    f = function(answer, "(s_row, s_col, s_same)")
    for grid, dim, base in (((8, 8), 64, 10000.0), ((6, 9), 16, 100.0)):
        pe = sincos_2d(grid, dim, base).double().view(*grid, dim)
        for (r, c), (dr, dc) in (((0, 0), (1, 1)), ((2, 3), (3, -2)), ((1, 5), (4, 2)), ((5, 1), (-4, 0))):
            p = pe[r, c]
            s_row, s_col, s_same = (p @ pe[r + dr, c]).item(), (p @ pe[r, c + dc]).item(), (p @ p).item()
            want = (p @ pe[r + dr, c + dc]).item()
            got = number(f(s_row, s_col, s_same), "return a number")
            if abs(got - (s_row + s_col)) < 1e-6 and abs(want - got) > 1e-6:
                raise Wrong(
                    f"at offset ({dr}, {dc}) you predict {got:.3f}, the dot product is {want:.3f}",
                    "write s_row, s_col and s_same each as a row part plus a column part, f(·) + g(·), "
                    "at their own offsets: which parts does s_row + s_col hold that PE·PE at (Δr, Δc) "
                    "does not?",
                )
            expect(
                abs(got - want) < 1e-6 * max(1.0, abs(want)),
                f"at offset ({dr}, {dc}) you predict {got:.3f}, the dot product is {want:.3f}",
                "half the channels encode the row, half the column: PE(p)·PE(q) = f(Δr) + g(Δc); "
                "write s_row, s_col and s_same with f and g",
            )
    return (
        "PE·PE at (Δr, Δc) is a row part plus a column part: a diagonal neighbour is as similar as its "
        "row and column parts add up, for any width and base"
    )


def _lesson_pe() -> torch.Tensor:
    """Lesson 02's 1-D table: D = 32, base 10000, positions 0..63, in float64."""
    p = torch.arange(64, dtype=torch.float64)
    omega = 10000.0 ** (-2 * torch.arange(16, dtype=torch.float64) / 32)
    pe = torch.empty(64, 32, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(p[:, None] * omega), torch.cos(p[:, None] * omega)
    return pe


@exercise("02.5", "an M that scores by signed offset", hint="answer a tensor M [32, 32]")
def _commuting_m(answer) -> str:
    m = tensor(answer, "answer M as a tensor [32, 32]", (32, 32))
    pe = _lesson_pe()
    s = pe @ m @ pe.T  # (64, 64)
    scale = (s.max() - s.min()).item()
    expect(
        scale > 1e-6,
        "every score is the same: M scores nothing",
        "M = 0 is a function of the offset too; give the channel pairs blocks that are not zero",
    )
    for o in range(-63, 64):
        d = torch.diagonal(s, o)
        spread = (d.max() - d.min()).item()
        expect(
            spread <= 1e-6 * scale,
            f"the pairs at offset {o} score from {d.min().item():.3f} to {d.max().item():.3f}",
            "an M made of 2×2 blocks [[a, b], [−b, a]] on the (sin, cos) pairs (channels 2i, 2i+1), zeros "
            "elsewhere, commutes with every shift R_k",
        )
    by_offset = torch.stack([torch.diagonal(s, o).mean() for o in range(-63, 64)])
    asymmetry = ((by_offset - by_offset.flip(0)).abs().max() / by_offset.abs().max()).item()
    expect(
        asymmetry > 1e-3,
        "s(+k) = s(−k) at every offset: the score cannot tell left from right",
        "a block [[a, b], [−b, a]] with b = 0 scores cos(kω) only, which is even; a b ≠ 0 mixes a pair's "
        "sine with its cosine",
    )
    return "every diagonal of PE M PEᵀ is constant and s(+k) ≠ s(−k): a score of the signed offset alone"


# --- lesson 03 ------------------------------------------------------------------------------------


@exercise("03.7", "the spread of a normal cut at ±2σ", hint="answer a number")
def _trunc_spread(answer) -> str:
    x = number(answer, "answer the standard deviation as a multiple of σ, e.g. 0.5")
    phi = math.exp(-2) / math.sqrt(2 * math.pi)  # the standard normal's density at 2
    mass = math.erf(2 / math.sqrt(2))  # P(-2 < z < 2)
    right = math.sqrt(1 - 4 * phi / mass)
    if abs(x - right) <= 0.002:
        return f"{right:.3f} σ: minivit's 0.02 start has a spread of {0.02 * right:.4f}"
    expect(x < 1, f"{x:g} is not below 1", "cutting off the tails removes the values farthest from 0")
    raise Wrong(
        f"{x:g} σ is not the spread of N(0, σ²) cut at ±2σ (to 3 decimals)",
        "draw a million values with torch.nn.init.trunc_normal_(t, std=1.0, a=-2, b=2) and measure t.std()",
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
