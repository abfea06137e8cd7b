"""Checks for lessons 09 (capstone), 10 (position without a grid) and 11 (looking inside)."""

from __future__ import annotations

import functools
from fractions import Fraction

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
    whole,
)

# --- lesson 09 ------------------------------------------------------------------------------------


def _rule(config) -> tuple[float, float]:
    """6 x parameters x tokens, and attention's 12 T^2 D L, for one training image of `config`."""
    from minivit import ViT

    with seeded(0):
        params = sum(p.numel() for p in ViT(config).parameters())
    tokens = config.grid[0] * config.grid[1]
    return 6 * params * tokens, 12 * tokens**2 * config.dim * config.depth


@exercise("09.6", "the FLOPs of a training step, by the rule", hint="return a number")
def _flops(answer) -> str:
    from minivit import ViTConfig

    f = function(answer, "(config)")
    configs = [
        ViTConfig(image_size=32, patch_size=4, num_classes=10, dim=64, depth=2, heads=2, position="sincos2d"),
        ViTConfig(image_size=32, patch_size=2, num_classes=10, dim=32, depth=1, heads=2, position="learned"),
        ViTConfig(
            image_size=24, patch_size=8, num_classes=4, dim=48, depth=3, heads=3, position="rope-axial"
        ),
    ]
    for config in configs:
        rest, attention = _rule(config)
        got = number(f(config), "return the FLOPs per training image, a number")
        tokens = config.grid[0] * config.grid[1]
        if abs(got - rest) <= 0.01 * rest and attention > 0.05 * rest:
            raise Wrong(
                f"with {tokens} tokens you give {got:.4g}, which leaves out attention's own products",
                "q·kᵀ and weights·v multiply activations by activations: no parameter counts them",
            )
        near = {  # (part of the parameters' term, part of attention's): the forward pass alone is 1/3
            (a, b): abs(got - a * rest - b * attention) <= 0.01 * (a * rest + b * attention)
            for a in (1 / 3, 1)
            for b in (0, 1 / 3, 1)
        }
        if near[(1, 1 / 3)] and not near[(1, 1)]:
            raise Wrong(
                f"with {tokens} tokens you give {got:.4g}: attention's term is the forward pass's alone",
                "a training step is a forward and a backward pass, and the backward costs twice the forward: "
                "the same factor 3 that turns 2 P T into 6 P T applies to attention's products",
            )
        if near[(1 / 3, 1)] or near[(1 / 3, 1 / 3)] or near[(1 / 3, 0)]:
            raise Wrong(
                f"with {tokens} tokens you give {got:.4g}: the parameters' term is that of the forward pass "
                "alone",
                "a forward pass costs 2 FLOPs per parameter and token (a multiply and an add); the backward "
                "costs twice that: 6 per parameter and token in a training step",
            )
        expect(
            abs(got - rest - attention) <= 0.01 * (rest + attention),
            f"for {tokens} tokens of width {config.dim} in {config.depth} blocks you give {got:.4g}",
            "tokens per image = (image size / patch size)², parameters = every parameter of ViT(config)",
        )
    from minivit.experiments import capstone

    counted = capstone.train_flops(configs[0])
    rest, attention = _rule(configs[0])
    return (
        f"the rule is within {abs((rest + attention) / counted - 1):.1%} of FlopCounterMode's count for the "
        "first model: every weight once per token, times 6, plus attention's products"
    )


@exercise(
    "09.7",
    "the targets of a mixed batch",
    hint="return a tensor [B, classes]: λ on each image's own label, 1 − λ on its partner's",
)
def _mixed_targets(answer) -> str:
    import torch.nn.functional as F

    f = function(answer, "(labels, lam, classes)")
    g = torch.Generator().manual_seed(0)
    for b, lam, classes, top in ((8, 0.64, 10, 6), (7, 0.3, 4, 4), (2, 0.9, 3, 3)):
        labels = torch.randint(top, (b,), generator=g)  # the first batch holds none of the top 4 classes
        own = F.one_hot(labels, classes).double()
        want = lam * own + (1 - lam) * own.flip(0)
        got = f(labels.clone(), lam, classes)
        if isinstance(got, torch.Tensor) and tuple(got.shape) == (b, int(labels.max()) + 1) != (b, classes):
            raise Wrong(
                f"for {classes} classes your targets have {got.shape[1]} columns: one more than the batch's "
                "largest label",
                "one_hot(labels) alone makes labels.max() + 1 columns, and a batch need not hold the last "
                "class: give it the number of classes",
            )
        got = tensor(got, "return a tensor [B, classes]", (b, classes))
        expect(
            same(got.sum(1), torch.ones(b)),
            f"a row sums to {got.sum(1)[0].item():.4g}",
            "each target is a distribution over the classes",
        )
        rolled = lam * own + (1 - lam) * own.roll(1, 0)
        expect(
            not same(got, rolled) or same(rolled, want),
            "each image's partner is the image before it",
            "the partner of image i is image B − 1 − i: the batch reversed, as timm's mixup pairs them",
        )
        expect(
            same(got, want),
            f"with λ = {lam:g}, " + differs(got, want, "target"),
            "λ on the image's own label and 1 − λ on its partner's label (the batch reversed)",
        )
    return "λ on the own label, 1 − λ on the reversed batch's: a partner of the same class leaves one label"


@exercise("09.8", "the token count at which attention costs as much as the rest", hint="answer a number")
def _break_even(answer) -> str:
    from minivit.experiments import capstone

    t = number(answer, "answer a number of tokens")
    config = capstone.SETTINGS["cifar10"].config("sincos2d", image_size=32, in_channels=3, num_classes=10)
    rest, attention = _rule(config)
    tokens = config.grid[0] * config.grid[1]
    right = tokens * rest / attention  # 6 P T = 12 T^2 D L at T = P / (2 D L)
    if abs(t - right) <= 0.02 * right:
        return (
            f"about {right:.0f} tokens (a {right**0.5:.0f}×{right**0.5:.0f} grid): at the model's 64 tokens "
            f"attention is {attention / (rest + attention):.0%} of the work, as the count found"
        )
    ratio = (12 * t**2 * config.dim * config.depth) / (rest / tokens * t) if t > 0 else 0.0
    raise Wrong(
        f"at {t:g} tokens attention's 12 T² D L is {ratio:.2f} times the 6 × parameters × tokens of the rest",
        "the parameters do not change with the token count (sincos2d has no table): solve 6 P T = 12 T² D L",
    )


# --- lesson 10 ------------------------------------------------------------------------------------


@exercise("10.4", "the σ = 0.02 seed whose k-means groups miss the modules", hint="answer a seed")
def _bad_seed(answer) -> str:
    from minivit.experiments import recorded

    seed = whole(answer, "answer the seed, a whole number")
    runs = {r["seed"]: r for r in recorded("network.json")["runs"] if r["arm"] == "0.02"}
    expect(seed in runs, f"there is no σ = 0.02 run with seed {seed}", f"the seeds: {sorted(runs)}")

    def margin(r):
        return r["recovery"]["ari"] - r["recovery"]["ari_null"][1]

    r = runs[seed]
    expect(
        margin(r) == min(margin(x) for x in runs.values()),
        f"seed {seed}'s ARI {r['recovery']['ari']:.2f} is {margin(r):+.2f} above its null's 95th percentile",
        "compare each σ = 0.02 run's run['recovery']['ari'] with run['recovery']['ari_null'][1]",
    )
    return (
        f"seed {seed}: ARI {r['recovery']['ari']:.2f}, no more than its null's 95th percentile, though "
        f"within − between is {r['recovery']['within_between']:.2f}: alike vectors, not in 4 round clusters"
    )


@exercise("10.5", "within − between", hint="return a number")
def _within_between(answer) -> str:
    from minivit import analysis

    f = function(answer, "(similarity, modules)")
    g = torch.Generator().manual_seed(0)
    for n, modules in ((12, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]), (7, [1, 0, 1, 0, 0, 2, 2])):
        vectors = torch.randn(n, 5, generator=g)
        sim = analysis.cosine_similarity(vectors)  # ones on the diagonal
        mod = torch.tensor(modules)
        want = analysis.within_between(sim, mod)
        got = number(f(sim.clone(), mod.clone()), "return a number")
        same_ = mod[:, None] == mod[None, :]
        with_self = (sim[same_].mean() - sim[~same_].mean()).item()
        if abs(got - with_self) < 1e-6:
            raise Wrong(
                f"you give {got:.4f}, which counts each token's similarity with itself as within",
                "leave out the diagonal: two *different* tokens of one module",
            )
        expect(
            abs(got - want) < 1e-6,
            f"for {n} tokens you give {got:.4f}, within − between is {want:.4f}",
            "mean similarity over pairs of different tokens of one module, minus the mean over pairs of two "
            "modules",
        )
    return "the within − between of analysis.module_recovery: near 0 for a table blind to the modules"


@exercise("10.6", "an order that sorts the tokens by module", hint="return a tensor of token indices [N]")
def _sort_order(answer) -> str:
    f = function(answer, "(modules)")
    g = torch.Generator().manual_seed(0)
    for n, k in ((32, 4), (9, 3), (5, 5)):
        modules = torch.randint(k, (n,), generator=g)
        returned = f(modules.clone())
        hint = "return indices (as argsort does), not the sorted modules: sim[order][:, order] is then sorted"
        order = indices(returned, hint, n)
        expect(
            torch.equal(order.sort().values, torch.arange(n)),
            f"for {n} tokens the answer is not an order of the tokens 0..{n - 1}",
            hint,
        )
        laid = modules[order]
        runs = int((laid.diff() != 0).sum()) + 1  # stretches of one module
        expect(
            runs == len(modules.unique()),
            f"for {n} tokens, modules[order] splits a module: {laid.tolist()[:12]}",
            "token order[0] comes first: every token of one module must sit next to the others of its "
            "module, one module after another",
        )
    return "sorted by module the table's similarity shows its blocks on the diagonal, as in the reveal"


# --- lesson 11 ------------------------------------------------------------------------------------


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
            abs(got - float(want)) < 1e-9,
            f"on a {g}×{g} layout you give {got:.4f}",
            "the model answers alike for every cell a mirror or a turn of the square maps the shape's cell "
            "to; count those classes of cells (on 4×4: corners, edges, centre) and guess once per class",
        )
    return "3/16 on 4×4 and 6/25 on 5×5: one right answer per class of cells that the mirrors and turns mix"


@exercise("11.6", "the share of the score variance left within offsets", hint="return a number")
def _offset_fraction(answer) -> str:
    from minivit import analysis
    from minivit.posenc import grid_coords

    f = function(answer, "(scores, grid)")
    g = torch.Generator().manual_seed(0)
    results = []
    for grid in ((4, 4), (3, 5)):
        n = grid[0] * grid[1]
        rc = grid_coords(grid, dtype=torch.long)
        off = rc[:, None, :] - rc[None, :, :]  # (N, N, 2)
        index = (off[..., 0] + grid[0] - 1) * (2 * grid[1] - 1) + off[..., 1] + grid[1] - 1  # (N, N)
        by_offset = torch.randn(int(index.max()) + 1, generator=g, dtype=torch.float64)[index]  # offset only
        absolute = torch.randn(n, n, generator=g, dtype=torch.float64)
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
                "is s̄_offset",
            )
            results.append(want)
    expected = (16 * 16 - 49) / (16 * 16 - 1)  # random scores: each of the 49 offset groups fits one mean
    return (
        f"0 for scores of the offset alone, {results[1]:.2f} for this draw of random ones on 4×4 (about "
        f"{expected:.2f} on average: the 49 offsets' means fit part of any 256 scores): the lesson's "
        "offset-only test"
    )
