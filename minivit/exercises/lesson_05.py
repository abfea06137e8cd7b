"""Checks for lesson 05 (RoPE)."""

from __future__ import annotations

import math

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
)


@exercise("05.3", "the NTK-aware base", hint="return the new base as a number")
def _ntk_base(answer) -> str:
    f = function(answer, "(base, s, d)")
    for base, s, d in ((10000.0, 4.0, 64), (100.0, 2.0, 16), (10.0, 8.0, 32)):
        new = number(f(base, s, d), "return the new base, a number")
        expect(new > 0, f"base {new:g} is not positive", "a base is a positive number above 1")
        i = torch.arange(d // 2, dtype=torch.float64)
        old_f, new_f = base ** (-2 * i / d), new ** (-2 * i / d)
        slower = (old_f[-1] / new_f[-1]).item()
        expect(
            abs(slower - s) <= 1e-6 * s,
            f"with base {new:.6g} (d = {d}, s = {s:g}) the slowest pair turns {slower:.4g} times slower, "
            f"not {s:g}",
            "the slowest pair's frequency is base^(−(d − 2)/d), not 1/base: write it for the new base "
            "and ask that it be the old one divided by s",
        )
    return (
        "the fastest pair is unchanged, the slowest turns s times slower, and the pairs between by "
        "s^(2i/(d − 2)): interpolated where the angles are small, extrapolated where they turn fast"
    )


@exercise(
    "05.4",
    "an unrotated class token's score against a key at every patch",
    hint="return a tensor [N]: rotate only the key, with encoding.rotate",
)
def _cls_scores(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(encoding, q, k, grid)")
    g = torch.Generator().manual_seed(0)
    spans = []
    for name, dim, grid in (("rope-axial", 16, (6, 6)), ("rope1d", 8, (3, 4)), ("rope-mixed", 16, (4, 5))):
        with seeded(0):
            enc = build(name, dim=dim, heads=1, depth=1, grid=grid)
        q, k = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
        n = grid[0] * grid[1]
        keys = k.expand(1, 1, n, dim)
        with torch.no_grad():
            _, rotated = enc.rotate(keys, keys, grid, 0)
            want = (rotated[0, 0] @ q).double()  # (N,)
        got = tensor(
            f(enc, q.clone(), k.clone(), grid), "return the score for each patch, a tensor [N]", (n,)
        )
        if (got.max() - got.min()).item() < 1e-5 * got.abs().max().item() + 1e-9:
            raise Wrong(
                f"with {name} your scores are the same at every patch",
                "the class token is never rotated: rotate only the key, and score it against q as it is",
            )
        expect(
            same(got, want, atol=1e-4, rtol=1e-4),
            f"with {name}, " + differs(got, want, "score"),
            "rotate the key placed at every patch as encoding.rotate does, and take its dot product with q",
        )
        spans.append((got.max() - got.min()).item())
    return (
        f"the score spans {spans[0]:.2f} over the 6×6 grid with rope-axial: through an unrotated class "
        "token a RoPE model sees where a patch is"
    )


@exercise("05.5", "axial RoPE's score for q = k = ones, in closed form", hint="return a number")
def _axial_closed_form(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(dr, dc, base)")
    grid, dh = (6, 6), 16
    ones = torch.ones(1, 1, 36, dh)
    for base in (100.0, 10.0):
        enc = build("rope-axial", dim=dh, heads=1, depth=1, grid=grid, base=base)
        qr, kr = enc.rotate(ones, ones, grid, 0)
        s = (qr @ kr.transpose(-2, -1))[0, 0].double()  # (36, 36)
        for dr, dc in ((0, 0), (0, 1), (1, 0), (2, -3), (-5, 4), (5, 5), (3, 0)):
            i = (max(0, -dr), max(0, -dc))
            j = (i[0] + dr, i[1] + dc)
            want = s[i[0] * 6 + i[1], j[0] * 6 + j[1]].item()
            got = number(f(dr, dc, base), "return the score, a number")
            if abs(2 * got - want) < 1e-4 and abs(want) > 1e-3:
                raise Wrong(
                    f"at offset ({dr}, {dc}), base {base:g}, you give {got:.4f}, half the score {want:.4f}",
                    "each pair holds two channels: what is (1, 1)·R(θ)(1, 1)?",
                )
            expect(
                abs(got - want) < 1e-4,
                f"at offset ({dr}, {dc}), base {base:g}, you give {got:.4f}, the score is {want:.4f}",
                "axial RoPE turns Dh/4 = 4 pairs with the column and 4 with the row, at the frequencies "
                "base^(−4i/Dh) (`axial.freqs`); score one pair first",
            )
    return (
        "s(Δr, Δc) = 2Σcos(θ_i Δr) + 2Σcos(θ_i Δc), a row part plus a column part; draw it at both "
        "bases to see how far it falls off on the 6×6 grid"
    )


@exercise(
    "05.6",
    "RoPE's score in closed form",
    hint="return a number: Re Σ_j q_j conj(k_j) e^(−i·offset·θ_j), pair j = channels (2j, 2j + 1)",
)
def _rope_score(answer) -> str:
    from minivit.posenc.rope import rotate_pairs

    f = function(
        answer,
        "(q, k, offset, base)",
        refuse=(
            rotate_pairs,
            "rotate_pairs (encoding.rotate calls it)",
            "the exercise asks for the score from the formula: write each pair (2j, 2j + 1) as a complex "
            "number, with θ_j = base^(−2j/d)",
        ),
    )
    g = torch.Generator().manual_seed(0)
    form = "return the score, one number"
    for d, base in ((8, 10000.0), (16, 100.0)):
        theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
        for offset in (3, -2, 0, 7):
            q, k = torch.randn(2, d, generator=g, dtype=torch.float64)
            m = 5  # any query position: the score depends on the offset alone
            want = (rotate_pairs(q, m * theta) @ rotate_pairs(k, (m + offset) * theta)).item()
            got = number(f(q.clone(), k.clone(), offset, base), form)
            if abs(got - want) <= 1e-6 + 1e-5 * abs(want):
                continue
            where = f"for d = {d}, base {base:g} at offset {offset}"
            mirrored = (rotate_pairs(q, (m + offset) * theta) @ rotate_pairs(k, m * theta)).item()
            if offset != 0 and abs(got - mirrored) <= 1e-6 + 1e-5 * abs(mirrored):
                raise Wrong(
                    f"{where} you give the score of the key at offset {-offset}",
                    "the key sits at n = m + offset: the query's turn e^(imθ) times the conjugate of the "
                    "key's e^(inθ) leaves e^(−i(n − m)θ)",
                )
            parallel = sum(
                ((q[2 * j] * k[2 * j] + q[2 * j + 1] * k[2 * j + 1]) * math.cos(offset * theta[j])).item()
                for j in range(d // 2)
            )
            if offset != 0 and abs(got - parallel) <= 1e-6 + 1e-5 * abs(parallel):
                raise Wrong(
                    f"{where} your score leaves out the sine terms",
                    "q_j conj(k_j) is a complex number: its imaginary part, times sin(offset·θ_j), counts "
                    "wherever a pair of q and the pair of k are not parallel",
                )
            raise Wrong(
                f"{where} you give {got:.4g}; the rotated q and k score {want:.4g}",
                "pair j is channels (2j, 2j + 1) as q_{2j} + i·q_{2j+1}, turning by θ_j = base^(−2j/d) per "
                "position",
            )
    return (
        "Re Σ q_j conj(k_j) e^(−i·offset·θ_j): the same at every query position, and not even in the offset, "
        "so RoPE tells left from right"
    )
