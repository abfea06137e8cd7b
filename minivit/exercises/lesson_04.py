"""Checks for lesson 04 (relative position bias)."""

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
    # Every offset of the 7×7 table is some pair's offset on the 4×4 grid, and the queries' sets of
    # offsets overlap: a bias that shifts each row alike is one value per head. Test that structure,
    # not the output of a fresh model, which its small init makes almost blind to any bias.
    for h in range(2):
        spread = (t[h].max() - t[h].min()).item()
        expect(
            spread <= 1e-6 * max(1.0, t[h].abs().max().item()),
            f"head {h}'s table ranges from {t[h].min().item():.3g} to {t[h].max().item():.3g}: a query "
            "gives its keys different biases",
            "the softmax of a row ignores a shift that is the same for every key of that query; which "
            "tables give every pair of a head the same bias?",
        )
    config = ViTConfig(image_size=16, patch_size=4, num_classes=4, heads=2, position="relative")
    with seeded(0):
        model = ViT(config).eval()
        with torch.no_grad():  # sizeable weights, so that any bias would show in the output
            for p in model.parameters():
                p.normal_(std=0.3)
        plain = ViT(config.with_(position="none")).eval()
        plain.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("pos.")})
        x = torch.rand(4, 3, 16, 16)
    with torch.no_grad():
        model.pos.table.copy_(t.float().expand_as(model.pos.table))
        gap = (model(x) - plain(x)).abs().max().item()
    scale = plain(x).abs().max().item()
    expect(
        gap <= 1e-4 * scale,
        f"with your table in every block the output differs from the one without position by up to {gap:.3g}",
        "a very large bias loses digits in float32: a smaller constant does the same",
    )
    return (
        "a table with one value per head shifts every score of a row alike: the softmax ignores it, and "
        f"the model has no position (its output moves by {gap:.0e} on a model with sizeable weights)"
    )


def _pair_counts(grid, clip: int) -> torch.Tensor:
    """How many (query, key) pairs of `grid` read each entry of a table clipped at `clip`."""
    from minivit.posenc import grid_coords

    rc = grid_coords(grid, dtype=torch.long)
    off = (rc[:, None, :] - rc[None, :, :]).clamp(-clip, clip) + clip  # (N, N, 2)
    side = 2 * clip + 1
    flat = (off[..., 0] * side + off[..., 1]).reshape(-1)
    return torch.bincount(flat, minlength=side * side).reshape(side, side).double()


@exercise(
    "04.7",
    "how many pairs of patches read each entry of a clipped table",
    hint="return a tensor [2·clip+1, 2·clip+1] of counts, entry [Δr + clip, Δc + clip]",
)
def _pairs_per_entry(answer) -> str:
    f = function(answer, "(grid, clip)")
    for grid, clip in (((3, 5), 1), ((4, 2), 2), ((2, 7), 3), ((4, 4), 3)):
        side = 2 * clip + 1
        want = _pair_counts(grid, clip)
        got = tensor(f(grid, clip), f"return a tensor [{side}, {side}] of counts", (side, side))
        if same(got, want):
            continue
        where = f"on a {grid[0]}×{grid[1]} grid clipped at {clip}"
        n = grid[0] * grid[1]
        if same(got.sum(), torch.tensor(n * n - n)) or same(got.sum(), torch.tensor((n * n - n) / 2)):
            raise Wrong(
                f"{where} your counts leave out the {n} pairs of a patch with itself",
                "a query attends to its own patch too: offset (0, 0) is read by every patch",
            )
        if same(got.sum(), torch.tensor((n * n + n) / 2)):
            raise Wrong(
                f"{where} you count each pair of patches once",
                "a pair (query, key) and the pair (key, query) are two pairs, at opposite offsets",
            )
        if same(got, want.T.contiguous()) or (
            grid[0] != grid[1] and same(got, _pair_counts(grid[::-1], clip))
        ):
            raise Wrong(
                f"{where} your rows count column offsets",
                "entry [Δr + clip, Δc + clip]: the row offset picks the table's row",
            )
        expect(
            float(got.sum()) == n * n,
            f"{where} your counts add up to {got.sum():g}, not the {n}² = {n * n} pairs",
            "every pair counts somewhere: an offset beyond ±clip is clamped to the table's edge",
        )
        raise Wrong(
            f"{where}, " + differs(got, want, "count"),
            "the pairs at offset (Δr, Δc) are (gh − |Δr|)(gw − |Δc|); clamped offsets add up at the edge",
        )
    return (
        "unclipped, a corner entry is read by one pair of patches and (0, 0) by all N; clipped, the edge "
        "entries gather every farther pair"
    )
