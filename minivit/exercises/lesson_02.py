"""Checks for lesson 02 (sinusoidal encodings)."""

from __future__ import annotations

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
    if hasattr(answer, "shape") and hasattr(answer, "tolist") and tuple(answer.shape) == (2,):
        answer = answer.tolist()  # a tensor or an array of two entries is a pair too
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
    expect(bool(torch.isfinite(m).all()), "M holds NaN or infinity", "use finite numbers")
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


def _fast_pairs(dim: int, base: float, size: int) -> int:
    """Pairs of one axis of sincos2d (width dim) whose wavelength is shorter than `size` patches."""
    omega = base ** (-4 * torch.arange(dim // 4, dtype=torch.float64) / dim)  # each axis: dim/2 channels
    return int((2 * torch.pi / omega < size).sum())


@exercise(
    "02.6",
    "the pairs of one axis that repeat within the grid",
    hint="return a whole number: the channel pairs of one axis whose wavelength 2π/ω is shorter than size",
)
def _repeating_pairs(answer) -> str:
    f = function(answer, "(dim, base, size)")
    form = "return a whole number of channel pairs"
    for dim, base, size in ((64, 100.0, 16), (16, 10000.0, 16), (128, 10.0, 10), (32, 10000.0, 100)):
        got = whole(f(dim, base, size), form)
        want = _fast_pairs(dim, base, size)
        if got == want:
            continue
        one_d = base ** (-2 * torch.arange(dim // 2, dtype=torch.float64) / dim)
        if got == int((2 * torch.pi / one_d < size).sum()) != want:
            raise Wrong(
                f"for D = {dim}, base {base:g} and a {size}-patch grid you count the 1-D encoding's pairs",
                f"sincos2d gives each axis half the width: dim/2 = {dim // 2} channels, {dim // 4} pairs, "
                "with ω_i = base^(−2i/(dim/2))",
            )
        if got == 2 * want:
            raise Wrong(
                f"for D = {dim}, base {base:g} and a {size}-patch grid you count both axes",
                "count the pairs of one axis: the rows' and the columns' halves hold the same frequencies",
            )
        raise Wrong(
            f"for D = {dim}, base {base:g} and a {size}-patch grid you count {got} "
            + ("pair" if got == 1 else "pairs"),
            "pair i of one axis turns by ω_i radians per patch: its wavelength is 2π/ω_i patches",
        )
    return (
        "at D = 16 and base 10⁴ one pair of each axis, the fastest (6.3 patches), repeats within a 16-patch "
        "grid; at base 100, D = 64, four do, but 12 slower pairs outweigh them"
    )
