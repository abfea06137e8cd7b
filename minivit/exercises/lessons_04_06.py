"""Checks for lessons 04 (relative position bias), 05 (RoPE) and 06 (ALiBi)."""

from __future__ import annotations

import math

import torch

from minivit.exercises.core import (
    Wrong,
    differs,
    exercise,
    expect,
    function,
    indices,
    number,
    same,
    seeded,
    tensor,
)

# --- lesson 04 ------------------------------------------------------------------------------------


def _reach(steps: int = 600, lr: float = 3e-3) -> float:
    from minivit.train import default_warmup, lr_at

    return sum(lr_at(step, steps=steps, lr=lr, warmup=default_warmup(steps)) for step in range(steps))


@exercise("04.1", "the learning-rate scale whose reach is ln 15", hint="answer a number")
def _scale_for_reach(answer) -> str:
    scale = number(answer, "answer the scale as a number, e.g. 2.5")
    reach, target = _reach(), math.log(15)
    if abs(scale * reach - target) <= 0.01 * target:
        return (
            f"about {scale:.1f}×: the lesson's 10× gives the table three times the reach it needs to "
            "hand one key of 16 half a query's attention"
        )
    if abs(scale - target / (600 * 3e-3)) < 0.05:
        raise Wrong(
            f"at {scale:.2f}× the reach is {scale * reach:.2f}, not ln 15 = {target:.2f}",
            "the warmup and the cosine decay keep the rate below 3e-3 over most of the run: sum lr_at "
            "over the 600 steps",
        )
    raise Wrong(
        f"at {scale:g}× the reach is {scale * reach:.2f}, not ln 15 = {target:.2f}",
        "the reach at 1× is the sum of lr_at over the run, printed above; the scale multiplies it",
    )


def _read_swapped(table: torch.Tensor, grid, clip: int) -> torch.Tensor:
    """The clipped bias with the table's row and column axes read the other way round."""
    from minivit.posenc import grid_coords

    rc = grid_coords(grid, dtype=torch.long)
    off = (rc[:, None, :] - rc[None, :, :]).clamp(-clip, clip) + clip  # (N, N, 2)
    return table.double()[:, off[..., 1], off[..., 0]]


@exercise(
    "04.3",
    "a clipped relative bias, by hand",
    hint="return a tensor [H, N, N]; clamp each offset to [−clip, clip] before you index the table",
)
def _clipped_bias(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(table, grid, clip)")
    g = torch.Generator().manual_seed(0)
    for grid, clip, heads in (((4, 4), 1, 2), ((3, 5), 2, 1), ((5, 2), 3, 2)):
        enc = build("relative", dim=8 * heads, heads=heads, depth=1, grid=grid, clip=clip)
        table = torch.randn(heads, 2 * clip + 1, 2 * clip + 1, generator=g)
        with torch.no_grad():
            enc.table[0] = table
            want = enc.attn_bias(grid, 0).double()
        got = tensor(f(table.clone(), grid, clip), "return the bias [H, N, N]", tuple(want.shape))
        expect(
            not same(got, want.transpose(-1, -2)) or same(want, want.transpose(-1, -2)),
            f"on grid {grid} your bias is the lesson's read mirrored (key minus query)",
            "Swin's offset is the query's position minus the key's: (r_i − r_j, c_i − c_j)",
        )
        expect(
            not same(got, _read_swapped(table, grid, clip)) or same(got, want),
            f"on grid {grid} your bias reads the table's axes the other way round",
            "the table's first axis is the row offset, its second the column offset",
        )
        expect(
            same(got, want),
            f"on grid {grid} with clip {clip}, " + differs(got, want, "bias"),
            "index 0 of each table axis is offset −clip and index 2·clip offset +clip; print one query's "
            "row of your bias on a small grid and find the offsets that read the wrong entry",
        )
    return (
        "every pair reads the entry of its clipped offset: with clip = 1 an offset of 2 or 3 reads the "
        "entry of 1, so the circle and the square get one bias whatever the distance between them"
    )


@exercise("04.6", "a non-zero table that is no encoding at all", hint="answer a tensor [2, 7, 7]")
def _no_encoding_table(answer) -> str:
    from minivit import ViT, ViTConfig

    t = tensor(answer, "answer a table [heads, 2gh − 1, 2gw − 1] = [2, 7, 7]", (2, 7, 7))
    expect(bool(torch.isfinite(t).all()), "the table holds NaN or infinity", "use finite numbers")
    expect(
        bool((t != 0).any()),
        "the table is all zeros: that one is in the lesson",
        "what can be added to every score of a query's row without changing its softmax?",
    )
    config = ViTConfig(image_size=16, patch_size=4, num_classes=4, heads=2, position="relative")
    with seeded(0):
        model = ViT(config).eval()
        plain = ViT(config.with_(position="none")).eval()
        plain.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("pos.")})
        x = torch.rand(4, 3, 16, 16)
    with torch.no_grad():
        model.pos.table.copy_(t.float().expand_as(model.pos.table))
        gap = (model(x) - plain(x)).abs().max().item()
    expect(
        gap < 1e-5,
        f"with your table in every block the output differs from the one without position by up to {gap:.3g}",
        "the softmax of a row ignores a shift that is the same for every key of that query; which tables "
        "give every pair of a head the same bias?",
    )
    return (
        "a table with one value per head shifts every score of a row alike: the softmax ignores it, and "
        "the model has no position"
    )


# --- lesson 05 ------------------------------------------------------------------------------------


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


# --- lesson 06 ------------------------------------------------------------------------------------


@exercise(
    "06.1", "the permutation that mirrors a grid left to right", hint="return a tensor [gh·gw] of indices"
)
def _mirror_perm(answer) -> str:
    from minivit import ViT, ViTConfig
    from minivit.data import relation, shuffle_patches

    f = function(answer, "(grid)")
    for gh, gw in ((6, 6), (3, 5), (4, 2)):
        image = torch.arange(gh * gw, dtype=torch.float32).view(1, 1, gh, gw)  # one pixel a patch
        perm = indices(f((gh, gw)), "a tensor [gh·gw] for the grid it is given: every patch once", gh * gw)
        expect(
            bool((perm.sort().values == torch.arange(gh * gw)).all()),
            f"for grid ({gh}, {gw}) the answer is not a permutation of 0..{gh * gw - 1}",
            "patch perm[i] of the input lands at place i: every patch once",
        )
        moved = shuffle_patches(image, 1, perm)
        expect(
            not torch.equal(moved, image.flip(-2)) or gh == 1,
            f"for grid ({gh}, {gw}) your permutation mirrors top to bottom",
            "mirror left to right: patch (r, c) takes the place of (r, gw − 1 − c)",
        )
        expect(
            torch.equal(moved, image.flip(-1)),
            f"for grid ({gh}, {gw}) the patches do not land mirrored",
            "patch (r, c) of the mirrored grid is patch (r, gw − 1 − c) of the original",
        )
    images = relation(8, image_size=24, seed=3).images
    perm = indices(f((6, 6)), "return a tensor [gh·gw] of patch indices", 36)
    change = {}
    for position in ("alibi2d", "rope-axial"):
        with seeded(0):
            model = ViT(
                ViTConfig(image_size=24, patch_size=4, num_classes=4, heads=4, position=position, pool="cls")
            ).eval()
        with torch.no_grad():
            for p in model.parameters():
                p.normal_(std=0.3, generator=torch.Generator().manual_seed(p.numel()))
            change[position] = (model(shuffle_patches(images, 4, perm)) - model(images)).abs().max().item()
    return (
        f"it mirrors every grid; with pool='cls' the alibi2d model's output moves by {change['alibi2d']:.0e} "
        f"(still blind to the mirror: the class token's zero bias is mirror-symmetric too), "
        f"rope-axial's by {change['rope-axial']:.2f}"
    )


def _prior_distance(grid, heads: int, scale: float = 1.0) -> torch.Tensor:
    from minivit import analysis
    from minivit.posenc import build

    enc = build("alibi2d", dim=8 * heads, heads=heads, depth=1, grid=grid)
    enc.slopes *= scale
    return analysis.mean_attention_distance(enc.attn_bias(grid, 0).softmax(-1)[None], grid).double()


@exercise(
    "06.4", "each head's mean attention distance with the slopes 16× steeper", hint="answer two numbers"
)
def _steeper_slopes(answer) -> str:
    got = tensor(answer, "answer the two heads' distances, head 0 first, e.g. [1.2, 1.4]", (2,))
    if same(got.sort().values, _prior_distance((3, 3), 2).sort().values, atol=5e-3):
        raise Wrong(
            "these are the distances with the slopes as they were",
            "the encoding caches its bias per grid on the first attn_bias call: scale `slopes` before it, "
            "or build a new encoding",
        )
    want = _prior_distance((3, 3), 2, 16.0)  # head 0, head 1
    expect(
        not same(got, want.flip(0), atol=5e-3),
        f"{got[0]:.3f} is head 1's distance and {got[1]:.3f} head 0's: the heads are in the other order",
        "answer [head 0, head 1]: the distances come out of mean_attention_distance in head order",
    )
    expect(
        same(got, want, atol=5e-3),
        f"{got[0]:.3f} and {got[1]:.3f} are not the two heads' distances (to 0.005)",
        "softmax of the bias alone, as prior_distance does, with each slope 16 times larger",
    )
    return (
        f"{want[0]:.2f} and {want[1]:.2f} patches: the steeper head now looks mostly next door; but any "
        "slope "
        "is blind to the mirror, so the relation task stays at chance"
    )


@exercise("06.5", "the mean attention distance of uniform attention", hint="return a number")
def _uniform_distance(answer) -> str:
    from minivit import analysis

    f = function(answer, "(grid)")
    for grid in ((3, 3), (4, 4), (14, 14), (2, 5), (1, 7)):
        d = analysis.grid_distances(grid).double()
        want = d.mean().item()
        got = number(f(grid), "return a number")
        n = d.shape[0]
        if abs(got - want * n / (n - 1)) < 1e-6:
            raise Wrong(
                f"on grid {grid} you give {got:.4f}, the mean over other patches only",
                "uniform attention attends to the query's own patch too, at distance 0",
            )
        expect(
            abs(got - want) < 1e-6,
            f"on grid {grid} you give {got:.4f}, the distance is {want:.4f}",
            "average the Euclidean distance in patches over every (query, key) pair of the grid",
        )
    return "1.45 patches on 3×3, 2.008 on 4×4: the yardstick against which a head is 'nearly uniform'"
