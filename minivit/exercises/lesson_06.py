"""Checks for lesson 06 (ALiBi)."""

from __future__ import annotations

import math

import torch

from minivit.exercises.core import (
    Wrong,
    exercise,
    expect,
    function,
    indices,
    kind,
    not_none,
    number,
    same,
    seeded,
    tensor,
)


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


def _window_distance(grid, radius: float) -> float:
    """The mean distance of uniform attention over the patches within `radius` of each query."""
    from minivit import analysis

    d = analysis.grid_distances(grid).double()
    near = d <= radius + 1e-9
    return ((d * near).sum(1) / near.sum(1)).mean().item()


@exercise("06.5", "the mean attention distance of uniform attention within a radius", hint="return a number")
def _uniform_distance(answer) -> str:
    from minivit import analysis

    f = function(answer, "(grid, radius)")
    for grid, radius in (
        ((3, 3), 1.0),
        ((4, 4), 1.5),
        ((5, 3), 2.0),
        ((4, 4), math.inf),
        ((2, 5), 0.5),
        ((6, 6), 2.5),
    ):
        want = _window_distance(grid, radius)
        got = number(f(grid, radius), "return a number")
        d = analysis.grid_distances(grid).double()
        near = d <= radius + 1e-9
        others = near & (d > 0)
        if (
            others.any()
            and abs(got - ((d * others).sum(1) / others.sum(1).clamp_min(1)).mean().item()) < 1e-6
        ):
            raise Wrong(
                f"on grid {grid} with radius {radius:g} you give {got:.4f}, the mean over other patches only",
                "uniform attention attends to the query's own patch too, at distance 0",
            )
        if abs(got - (d * near).sum().item() / near.sum().item()) < 1e-6 and abs(got - want) > 1e-6:
            raise Wrong(
                f"on grid {grid} with radius {radius:g} you give {got:.4f}, a mean over all pairs in reach",
                "each query spreads its attention over its own window: a corner's window holds fewer "
                "patches than a centre's, and each query's weights sum to 1; average per query, then over "
                "the queries",
            )
        expect(
            abs(got - want) < 1e-6,
            f"on grid {grid} with radius {radius:g} you give {got:.4f}, the distance is {want:.4f}",
            "each query attends alike to every patch within `radius` of it (Euclidean distance in "
            "patches, its own patch included); average the distance over its window, then over the queries",
        )
    return (
        f"{_window_distance((3, 3), math.inf):.2f} patches on 3×3 with no limit (the lesson's yardstick), "
        f"{_window_distance((14, 14), 1.5):.2f} on 14×14 within 1.5: a head that looks next door has a "
        "distance near 1, whatever the grid"
    )


def _symmetries(grid) -> set[tuple[int, ...]]:
    """The permutations of a grid's patches that keep every distance: its mirrors and turns."""
    gh, gw = grid
    cells = torch.arange(gh * gw).view(gh, gw)
    maps = [cells, cells.flip(0), cells.flip(1), cells.flip(0, 1)]
    if gh == gw:
        maps += [cells.T, cells.T.flip(0), cells.T.flip(1), cells.T.flip(0, 1)]
    return {tuple(m.reshape(-1).tolist()) for m in maps}


@exercise(
    "06.6",
    "every shuffle of the patches that keeps all distances",
    hint="return a list of permutations, each a tensor [gh·gw] as shuffle_patches takes it",
)
def _distance_keeping(answer) -> str:
    f = function(answer, "(grid)")
    form = "return a list of permutations, each a tensor [gh·gw] of patch indices"
    for grid in ((4, 4), (3, 5), (1, 4), (2, 2)):
        gh, gw = grid
        n = gh * gw
        got = f(grid)
        not_none(got, "a list of permutations", form)
        if isinstance(got, torch.Tensor) and got.ndim == 2:
            got = list(got)
        expect(
            isinstance(got, (list, tuple, set, frozenset)),
            f"for grid {grid} the answer is {kind(got)}, not a list of permutations",
            form,
        )
        perms = [tuple(indices(p, form, n).tolist()) for p in got]
        d = torch.cdist(*(2 * [torch.cartesian_prod(torch.arange(gh), torch.arange(gw)).double()]))
        for p in perms:
            expect(
                sorted(p) == list(range(n)),
                f"for grid {grid}, {list(p)} is not a permutation of 0..{n - 1}",
                "each patch once: patch perm[i] of the input lands at place i",
            )
            t = torch.tensor(p)
            moved = (d[t][:, t] - d).abs().gt(1e-9).nonzero()
            if len(moved):
                i, j = (int(x) for x in moved[0])
                raise Wrong(
                    f"for grid {grid}, {list(p)} takes places {i} and {j} from patches {d[i, j]:.3g} apart "
                    f"to {d[t[i], t[j]]:.3g}",
                    "a quarter turn or a transpose fits only a square grid"
                    if gh != gw
                    else "keep every distance: the mirrors and the turns of the grid",
                )
        expect(
            len(set(perms)) == len(perms),
            f"for grid {grid} your list holds one permutation twice",
            "list each once: on a grid of one row the top-bottom mirror moves nothing, and the half turn is "
            "the left-right mirror",
        )
        want = _symmetries(grid)
        expect(
            set(perms) == want,
            f"for grid {grid} you list {len(perms)} permutations; {len(want)} keep every distance",
            "the identity too, both mirrors, and the turns the grid allows (a square: four turns and the two "
            "diagonal mirrors)",
        )
    return (
        "8 on a square grid, 4 on another, 2 on a single row: an alibi2d model with mean pooling answers a "
        "scene and each of these rearrangements alike"
    )
