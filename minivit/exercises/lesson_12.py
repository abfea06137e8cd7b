"""Checks for lesson 12 (RoPE as a family: generators, commutators, directions)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from minivit.exercises.core import Wrong, differs, exercise, expect, function, number, same, seeded, tensor

_J = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=torch.float64)  # exp(phi J) turns a pair by phi


def _turned(encoding, x: torch.Tensor, grid) -> torch.Tensor:
    """x [Dh] at every patch of `grid`, turned as `encoding` turns queries (head 0, block 0): [N, Dh]."""
    n = grid[0] * grid[1]
    q = x.float().expand(1, encoding.heads, n, len(x))
    with torch.no_grad():
        return encoding.rotate(q, q, grid, 0)[0][0, 0].double()


def _exp_turned(gens: torch.Tensor, x: torch.Tensor, grid) -> torch.Tensor:
    """x turned by exp(r A_row + c A_col) at every patch (r, c): [N, Dh]."""
    from minivit.posenc import grid_coords

    rc = grid_coords(grid, dtype=torch.float64)
    return torch.linalg.matrix_exp(torch.einsum("na,aij->nij", rc, gens)) @ x.double()


@exercise(
    "12.1",
    "the generators of any 2-D RoPE",
    hint="return a tensor [2, Dh, Dh]: A_row, then A_col, each block-diagonal in 2×2 blocks rate · J",
)
def _rope_generators(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(encoding, grid)")
    g = torch.Generator().manual_seed(0)
    grid = (4, 5)
    cases = (("rope-axial", 16, 1, {}), ("rope-mixed", 16, 2, {}), ("rope-spiral", 24, 1, {"directions": 3}))
    for name, dim, heads, options in cases:
        with seeded(0):
            enc = build(name, dim=dim, heads=heads, depth=1, grid=grid, **options)
        dh = dim // heads
        gens = tensor(f(enc, grid), "return the generators, a tensor [2, Dh, Dh]", (2, dh, dh))
        expect(
            same(gens.transpose(-1, -2), -gens, atol=1e-6, rtol=0),
            f"with {name} your generators are not skew-symmetric (A^T = −A)",
            "each 2×2 block is rate · J with J = [[0, −1], [1, 0]]; zero outside the blocks",
        )
        x = torch.randn(dh, generator=g, dtype=torch.float64)
        want = _turned(enc, x, grid)
        if same(_exp_turned(gens.flip(0), x, grid), want, atol=1e-4, rtol=1e-4) and not same(
            _exp_turned(gens, x, grid), want, atol=1e-4, rtol=1e-4
        ):
            raise Wrong(
                f"with {name} your generators turn q as the encoding does once their order is swapped",
                "A_row first: the generator the row index multiplies, then A_col",
            )
        if same(_exp_turned(-gens, x, grid), want, atol=1e-4, rtol=1e-4) and not same(
            _exp_turned(gens, x, grid), want, atol=1e-4, rtol=1e-4
        ):
            raise Wrong(
                f"with {name} your generators turn every pair the wrong way",
                "rotate_pairs turns (x_2i, x_2i+1) by exp(angle J) with J = [[0, −1], [1, 0]]: "
                "check the sign",
            )
        got = _exp_turned(gens, x, grid)
        expect(
            same(got, want, atol=1e-4, rtol=1e-4),
            f"with {name}, exp(r A_row + c A_col) q differs from encoding.rotate: " + differs(got, want),
            "exp(r A_row + c A_col) must turn each pair by the angle the encoding gives it at (r, c) "
            "(encoding.angles(grid, 0)): how does that angle grow with r, and with c?",
        )
        comm = (gens[0] @ gens[1] - gens[1] @ gens[0]).abs().max().item()
        expect(comm < 1e-9, f"with {name} your generators do not commute", "use 2×2 blocks rate · J only")
    return (
        "exp(r A_row + c A_col) turns q as rope-axial, rope-mixed and rope-spiral do at every patch, and "
        "each pair of generators commutes: one family, block-diagonal generators"
    )


def _near(x: torch.Tensor, y: torch.Tensor, rel: float) -> bool:
    """Whether x is within rel · |y| of y (Frobenius norms)."""
    return bool((x - y).norm() <= rel * y.norm())


def _unit_skew(size: int, g: torch.Generator) -> torch.Tensor:
    a = torch.randn(size, size, generator=g, dtype=torch.float64)
    a = a - a.T
    return a / a.norm()


@exercise(
    "12.2",
    "the leading term of exp(tA) exp(tB) − exp(t(A + B))",
    hint="return a matrix of the shape of A: a power of t times a product of A and B",
)
def _leading_term(answer) -> str:
    f = function(answer, "(a, b, t)")
    g = torch.Generator().manual_seed(0)
    expm = torch.linalg.matrix_exp
    for size in (4, 8):
        a, b = _unit_skew(size, g), _unit_skew(size, g)
        commutator = a @ b - b @ a
        for t in (1e-2, 1e-3):
            gap = expm(t * a) @ expm(t * b) - expm(t * (a + b))
            got = tensor(f(a.clone(), b.clone(), t), "return a matrix", (size, size))
            if got.abs().max() < 1e-12:
                raise Wrong(
                    f"at t = {t:g} your term is zero, the gap is {gap.norm():.3g}",
                    "the terms in t cancel (both are I + t(A + B) + ...); compare the terms in t²",
                )
            rel = ((got - gap).norm() / gap.norm()).item()
            if _near(got, 2 * gap, 0.05):
                raise Wrong(
                    f"at t = {t:g} your term is twice the gap",
                    "e^{tA} e^{tB} has t²(A² + 2AB + B²)/2 and e^{t(A+B)} has t²(A + B)²/2: mind the half",
                )
            if _near(got, -gap, 0.05):
                raise Wrong(
                    f"at t = {t:g} your term is the gap with the opposite sign",
                    "(A + B)² = A² + AB + BA + B²: what is left is AB − BA, in that order",
                )
            expect(
                rel < 0.05 * (t / 1e-2),
                f"at t = {t:g} your term differs from the gap by {rel:.1%} of its size",
                "expand both exponentials to t²: the difference is a number times t² times a commutator",
            )
        twice = tensor(f(a.clone(), b.clone(), 2e-3), "return a matrix", (size, size))
        once = tensor(f(a.clone(), b.clone(), 1e-3), "return a matrix", (size, size))
        # float32 answers are right too: 1e-5 is well above its rounding, well below the t³ term's
        # share at t = 1e-3 (about t)
        expect(
            _near(twice, 4 * once, 1e-5),
            "doubling t does not make your term 4 times larger",
            "the leading term alone: t² times a matrix, without the higher powers of t",
        )
        expect(
            _near(once, 1e-6 / 2 * commutator, 1e-5),
            "your term is not the leading term",
            "the t² term of the difference only",
        )
    return "the gap is t²/2 (AB − BA) to O(t³): zero exactly when A and B commute, which is what RoPE's do"


@exercise(
    "12.3",
    "the Spiral RoPE group that stays still along the diagonal",
    hint="return a group index 0 .. K − 1, or None",
)
def _diagonal_group(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(K)")
    found = {}
    for k in range(2, 13):
        enc = build("rope-spiral", dim=4 * k, heads=1, depth=1, grid=(5, 5), directions=k)  # 2 pairs a group
        angles = enc.angles((5, 5), 0).double().view(25, k, 2)  # (patch, group, pair)
        still = [grp for grp in range(k) if angles[[0, 6, 12, 18, 24], grp].abs().max() < 1e-6]  # (d, d)
        want = still[0] if still else None
        got = f(k)
        if want is None and got is not None:
            raise Wrong(
                f"for K = {k} you answer group {got}, but no group of {k} stays still along (d, d)",
                f"the directions are kπ/K: for K = {k} no group points at 135° (there is then no group to "
                "name: return None)",
            )
        if want is not None and got != want:
            near = k // 4 if k % 4 == 0 else None
            if got == near:
                raise Wrong(
                    f"for K = {k} group {got} is the one at 45°: it turns with r + c, "
                    "which grows along (d, d)",
                    "you want the group that turns with r − c",
                )
            raise Wrong(
                f"for K = {k} you answer {got!r}; the group that stays still along (d, d) is another",
                "group k turns with c cos(kπ/K) + r sin(kπ/K): when is that zero for r = c?",
            )
        found[k] = want
    have = [k for k, grp in found.items() if grp is not None]
    return (
        f"of K = 2 .. 12, only K = {', '.join(map(str, have))} have a group at 135° (k = 3K/4): axial RoPE "
        "(K = 2) has none, and neither do 6 or 10 directions, which miss 135°"
    )


def _pope_score(q, k, offset, theta, delta, x_key=(2.0, 1.0)) -> float:
    """PoPE's score of q at x_key + offset against k at x_key, by the package's `polar`."""
    from minivit.posenc.pope import polar

    x_k = torch.tensor(x_key, dtype=torch.float64)
    x_q = x_k + torch.as_tensor(offset, dtype=torch.float64)
    return (polar(q, theta @ x_q) @ polar(k, theta @ x_k + delta)).item()


@exercise(
    "12.8",
    "PoPE's score from its formula",
    hint="return a number: Σ_c softplus(q_c) softplus(k_c) cos(θ_c · (x_q − x_k) − δ_c)",
)
def _pope(answer) -> str:
    from minivit.posenc.pope import pope_frequencies

    f = function(answer, "(q, k, offset, theta, delta)")
    g = torch.Generator().manual_seed(0)
    form = "return the score, one number"
    for dh in (8, 16):
        freqs = pope_frequencies(dh, 100.0)  # (Dh/2,)
        zero = torch.zeros_like(freqs)
        # (Dh, 2), each channel's turn per row and per column: the first half turns with the column
        theta = torch.cat([torch.stack([zero, freqs], 1), torch.stack([freqs, zero], 1)])
        for offset in ((1.0, -2.0), (0.0, 0.0), (-3.0, 1.0)):
            q, k = torch.randn(2, dh, generator=g, dtype=torch.float64)
            delta = -2 * torch.pi * torch.rand(dh, generator=g, dtype=torch.float64)
            off = torch.tensor(offset, dtype=torch.float64)
            want = _pope_score(q, k, off, theta, delta)
            got = number(f(q.clone(), k.clone(), off.clone(), theta.clone(), delta.clone()), form)
            if abs(got - want) <= 1e-6 + 1e-5 * abs(want):
                continue
            where = f"for Dh = {dh} at offset ({offset[0]:g}, {offset[1]:g})"

            def near(value: float, got: float = got) -> bool:
                return abs(got - value) <= 1e-6 + 1e-5 * abs(value)

            turn = theta @ off
            sp = F.softplus(q) * F.softplus(k)
            if near((q * k * (turn - delta).cos()).sum().item()):
                raise Wrong(
                    f"{where} your channels' lengths are q_c and k_c themselves",
                    "PoPE gives content no angle: each channel's length is softplus of it, never negative",
                )
            if near((sp * (turn + delta).cos()).sum().item()):
                raise Wrong(
                    f"{where} your phase enters with the wrong sign (or your offset is the key's place minus "
                    "the query's)",
                    "the key carries the phase: its angle is θ_c · x_k + δ_c, so the difference is "
                    "θ_c · (x_q − x_k) − δ_c",
                )
            if near(want / (2 * dh) ** 0.5):
                raise Wrong(
                    f"{where} you divide by √(2 Dh)",
                    "that scaling belongs to attention; the exercise asks for the score s itself",
                )
            raise Wrong(
                f"{where} you give {got:.4g}, the score is {want:.4g}",
                "θ_c · (x_q − x_k) is the dot product of channel c's rates (per row, per column) with the "
                "offset; each channel adds softplus(q_c) softplus(k_c) cos(that − δ_c)",
            )
    return (
        "with δ = 0 every channel's term is largest at offset 0, whatever q and k: content sets how much a "
        "channel counts, the phase δ where it looks"
    )
