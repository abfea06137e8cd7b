"""Checks for lesson 08 (resolution)."""

from __future__ import annotations

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
    tensor,
)


@exercise("08.5", "positions after position interpolation", hint="return a tensor [new] of positions")
def _interpolated(answer) -> str:
    from minivit.posenc import build

    f = function(answer, "(trained, new)")
    for trained, new in ((3, 6), (4, 6), (7, 16), (5, 5), (6, 3)):
        enc = build("rope-axial", dim=16, heads=1, depth=1, grid=(trained, trained), interpolate=True)
        want = enc.positions((new, new))[:new, 1].double()  # the columns of the first row
        got = tensor(
            f(trained, new), "one position per row (or column) of the new grid: a tensor [new]", (new,)
        )
        stretched = torch.arange(new, dtype=torch.float64) * (trained - 1) / max(new - 1, 1)
        expect(
            not same(got, stretched) or same(stretched, want),
            f"for {trained} → {new} your last position is {got[-1].item():g}, exactly the last trained one",
            "Chen et al. scale by L/L′ (trained / new), not (L − 1)/(L′ − 1)",
        )
        expect(
            same(got, want),
            f"for {trained} → {new}, " + differs(got, want, "position"),
            "each new position is multiplied by the trained size over the new size",
        )
    return (
        "3 → 6 gives 0, 0.5, …, 2.5: the last position lands past the trained 2, which interpolation "
        "was meant to avoid"
    )


def _relation_labels(layout: torch.Tensor, cells: int) -> torch.Tensor:
    """Each scene's relation label from its layout [n, cells²]: 0 left of, 1 right of, 2 above, 3 below."""
    circle = (layout == 1).long().argmax(1)
    square = (layout == 0).long().argmax(1)
    rc, cc, rs, cs = circle // cells, circle % cells, square // cells, square % cells
    return torch.where(rc == rs, torch.where(cc < cs, 0, 1), torch.where(rc < rs, 2, 3))


@exercise("08.6", "the relation labels of the transposed scenes", hint="return a tensor of labels [n]")
def _transposed_labels(answer) -> str:
    from minivit.data import relation
    from minivit.posenc import build

    f = function(answer, "(labels)")
    data = relation(64, seed=0)
    transposed = data.layout.view(-1, 3, 3).transpose(1, 2).reshape(-1, 9)
    want = _relation_labels(transposed, 3)
    got = indices(f(data.labels.clone()), "return one label per scene, a tensor [n]", len(want))
    mirrored = torch.where(data.labels < 2, 1 - data.labels, data.labels)
    expect(
        not torch.equal(got, mirrored),
        "these are the labels of the left-right mirror",
        "swapping rows with columns turns a row into a column: where does 'left of' go?",
    )
    wrong = (got != want).nonzero().reshape(-1).tolist()
    if wrong:
        i = wrong[0]
        raise Wrong(
            f"scene {i} ({data.classes[data.labels[i]]}) gets label {got[i].item()}",
            "draw a 'left of' and an 'above' scene and transpose them: the first column turns into the first "
            "row",
        )
    t = torch.arange(36).view(6, 6).T.reshape(-1)
    bias = build("alibi2d", dim=16, heads=2, depth=1, grid=(6, 6)).attn_bias((6, 6), 0)
    unchanged = torch.equal(bias[:, t][:, :, t], bias)
    return (
        f"left ↔ above, right ↔ below; alibi2d's bias is {'unchanged' if unchanged else 'changed'} by the "
        "transpose, so with the mirrors every answer looks like every other"
    )


@exercise(
    "08.7",
    "resampling a table with a class token's row",
    hint="return a tensor [1 + gh'·gw', D]: the class token's row first, then the resized grid",
)
def _resample_with_cls(answer) -> str:
    import torch.nn.functional as F

    from minivit.posenc import resample

    f = function(answer, "(table, old_grid, new_grid)")
    g = torch.Generator().manual_seed(0)
    resizes = set()
    for old, new in (((3, 3), (6, 6)), ((6, 6), (4, 4)), ((2, 4), (5, 3))):
        table = torch.randn(1 + old[0] * old[1], 8, generator=g)
        # DeiT resizes without antialiasing, timm's resample_abs_pos_embed with it by default: both pass
        wants = {
            aa: resample(table, old, new, num_prefix_tokens=1, antialias=aa).double() for aa in (False, True)
        }
        want = wants[False]
        got = tensor(
            f(table.clone(), old, new), "the class token's row, then one row per new patch", tuple(want.shape)
        )
        expect(
            same(got[0], table[0].double()),
            f"for {old} → {new} the class token's row changed",
            "the class token's row is not on the grid: keep it apart and put it back first",
        )
        image = table[1:].T.reshape(1, 8, *old)
        corners = F.interpolate(image, size=new, mode="bicubic", align_corners=True).reshape(8, -1).T.double()
        expect(
            not same(got[1:], corners),
            f"for {old} → {new} your resize aligns the corners",
            "DeiT, timm and minivit resize with align_corners=False",
        )
        linear = F.interpolate(image, size=new, mode="bilinear").reshape(8, -1).T.double()
        expect(
            not same(got[1:], linear, atol=1e-5),
            f"for {old} → {new} your resize is bilinear",
            "DeiT and timm resize bicubically: mode='bicubic'",
        )
        matches = [aa for aa, w in wants.items() if same(got, w, atol=1e-5)]
        expect(
            bool(matches),
            f"for {old} → {new}, " + differs(got, want, "entry"),
            "reshape the patch rows to (1, D, gh, gw), resize bicubically with align_corners=False "
            "(with or without antialias), flatten back to [gh'·gw', D]",
        )
        resizes.update(matches)
    how = "with antialiasing, timm's default" if resizes == {True} else "without antialiasing, as DeiT does"
    return (
        "the class token's row passes through as it is; the grid's rows are resized as an image with one "
        f"channel per dimension ({how})"
    )


@exercise(
    "08.8",
    "the share of patches a recomputed encoding meets at an unseen coordinate",
    hint="return a number from 0 to 1: the patches of the new grid whose row or column lies past the "
    "trained grid's, over all its patches",
)
def _unseen_share(answer) -> str:
    f = function(answer, "(trained, new)")
    form = "return the share, a number from 0 to 1"
    for trained, new in (
        ((3, 3), (6, 6)),
        ((3, 5), (4, 4)),
        ((4, 4), (2, 2)),
        ((2, 6), (5, 3)),
        ((4, 4), (4, 7)),
    ):
        got = number(f(trained, new), form)
        (th, tw), (nh, nw) = trained, new
        want = 1 - min(th, nh) * min(tw, nw) / (nh * nw)
        if abs(got - want) <= 1e-6:
            continue
        where = f"from {th}×{tw} to {nh}×{nw}"
        both = max(0, 1 - th / nh) * max(0, 1 - tw / nw)
        expect(
            abs(got - both) > 1e-6,
            f"{where} you give {got:.4f}, the patches whose row and column are both new",
            "one new coordinate is enough: a patch in a new column meets a column the model never saw, "
            "whatever its row",
        )
        expect(
            got >= -1e-9,
            f"{where} you give {got:.4f}, a negative share",
            "on a smaller grid every coordinate was seen in training",
        )
        raise Wrong(
            f"{where} you give {got:.4f}, the share is {want:.4f}",
            "a patch (r, c) of the new grid was seen in training when r < trained rows and c < trained "
            "columns; count the others",
        )
    return (
        "from 3×3 to 6×6, three patches in four meet a row or a column the model never saw; position "
        "interpolation puts every one back inside the trained range"
    )
