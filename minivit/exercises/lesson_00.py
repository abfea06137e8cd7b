"""Checks for lesson 00 (why position)."""

from __future__ import annotations

import torch

from minivit.exercises.core import (
    Wrong,
    exercise,
    expect,
    function,
    kind,
    number,
    seeded,
    tensor,
    whole,
)


@exercise(
    "00.2",
    "the largest change of the pooled output under a shuffle of the patches",
    hint="shuffle the images with shuffle_patches(images, model.config.patch_size, perm), then compare "
    "model.features of the two; read the patch size from the model, it is not always 8",
)
def _pooled_change(answer) -> str:
    from minivit import ViT, ViTConfig
    from minivit.data import odd_one_out, shuffle_patches

    f = function(answer, "(model, images, perm)")
    base = ViTConfig(image_size=24, patch_size=8, num_classes=9, dim=32, depth=2, heads=2, position="none")
    cases = {
        "no-position": base,
        "class-token": base.with_(pool="cls"),
        "sincos2d": base.with_(position="sincos2d"),
        "patch-4 no-position": base.with_(patch_size=4),
    }
    images = odd_one_out(4, seed=0).images
    changes = {}
    with seeded(0):
        for name, config in cases.items():
            model = ViT(config).eval()
            n = config.grid[0] * config.grid[1]
            perm = torch.randperm(n)
            with torch.no_grad():
                shuffled = shuffle_patches(images, config.patch_size, perm)
                want = (model.features(shuffled) - model.features(images)).abs().max().item()
            got = number(f(model, images, perm), "return one number: the largest absolute change")
            expect(
                abs(got - want) <= 1e-6 + 1e-3 * want,
                f"for the {name} model it returns {got:.3g}, but the pooled output changes by {want:.3g}",
                "shuffle_patches(images, model.config.patch_size, perm) rearranges the patches; the change "
                "is the largest absolute difference of model.features over every entry",
            )
            changes[name] = want
    return (
        f"the pooled output moves by {changes['sincos2d']:.2g} with sincos2d and by less than 1e-5 "
        "without position, with mean pooling or a class token (which attends to a set too)"
    )


@exercise(
    "00.3",
    "the grid of patches and patches per cell at patch size 4",
    hint="answer ((rows, cols), patches_per_cell)",
)
def _grid_at_patch_4(answer) -> str:
    form = "answer a pair ((rows, cols), patches_per_cell), e.g. ((3, 3), 1) for patch size 8"
    expect(
        isinstance(answer, (tuple, list)) and len(answer) == 2,
        f"the answer is {kind(answer)}, not a pair",
        form,
    )
    grid, per_cell = answer
    expect(isinstance(grid, (tuple, list)) and len(grid) == 2, "the grid is not a pair (rows, cols)", form)
    rows, cols = whole(grid[0], form), whole(grid[1], form)
    expect(
        (rows, cols) != (3, 3),
        "(3, 3) is the grid of patch size 8",
        "a 24-pixel side holds 24 / patch_size patches",
    )
    expect(
        (rows, cols) == (6, 6), f"a 24×24 image does not make a {rows}×{cols} grid", "24 / patch_size a side"
    )
    per_cell = whole(per_cell, form)
    expect(
        per_cell == 4,
        f"a cell does not hold {per_cell} patches",
        "the shapes sit in a 3×3 layout of cells on the 24-pixel image: how wide is a cell, how many "
        "patches fit across it, and how many down?",
    )
    return "6×6 patches, 4 to a cell: each shape is cut into 4 patches, and a shuffle can take it apart"


HOOKS = {  # what each hook of PositionalEncoding does with a patch's place, and why a shuffle shows it
    "add_to_tokens": "adds to each token something that depends on its place: shuffled content meets "
    "other additions",
    "attn_bias": "biases attention by where the two patches are: a shuffle moves two patches apart, "
    "and the bias between them changes",
    "rotate": "turns queries and keys by their place: a shuffle changes the turns between them",
}
WHY = {  # hints sharper than the hook's own; any other encoding gets its hook's (see `why`)
    "peg": "peg's convolution reads each patch's neighbours and the zero padding at the border; "
    "a shuffle changes both",
    "learned": "a learned table adds one vector per place: shuffled content meets other vectors",
    "relative": "a bias by offset changes when a shuffle moves two patches apart",
    "string": "STRING is RoPE after a change of basis: a shuffle changes the angles between queries and keys",
}


def hooks(name: str) -> list[str]:
    """The hooks of PositionalEncoding that encoding `name` overrides: how it uses position."""
    from minivit import REGISTRY
    from minivit.posenc.base import PositionalEncoding

    cls = REGISTRY[name]
    return [h for h in HOOKS if getattr(cls, h) is not getattr(PositionalEncoding, h)]


def invariant() -> set[str]:
    """The encodings whose pooled output no shuffle changes: those that override no hook, so that
    every part of the model treats the tokens alike (tests check it on models of every encoding)."""
    from minivit import REGISTRY

    return {name for name in REGISTRY if not hooks(name)}


def why(name: str) -> str:
    """The hint for an answer that calls encoding `name` blind to a shuffle, read from its hooks, so
    that a new encoding needs no entry here."""
    if name in WHY:
        return WHY[name]
    return f"{name} " + "; it also ".join(HOOKS[h] for h in hooks(name))


@exercise(
    "00.5",
    "the encodings whose pooled output ignores a shuffle",
    hint="answer a set of names from minivit.REGISTRY",
)
def _invariant_encodings(answer) -> str:
    from minivit import REGISTRY

    form = 'answer a set of names from minivit.REGISTRY, e.g. {"learned", "peg"}'
    expect(
        isinstance(answer, (set, frozenset, list, tuple)),
        f"the answer is {kind(answer)}, not a set of names",
        form,
    )
    names = set(answer)
    unknown = sorted(str(n) for n in names - set(REGISTRY))
    expect(not unknown, f"{', '.join(unknown)} is not an encoding", f"the encodings: {', '.join(REGISTRY)}")
    expect(
        "none" in names,
        "the model without an encoding is missing",
        "without an encoding every part of the model treats tokens alike, and mean pooling averages them",
    )
    extra = [n for n in REGISTRY if n in names - invariant()]
    if extra:
        raise Wrong(f"{extra[0]} changes the pooled output when the patches are shuffled", why(extra[0]))
    return (
        "only none: every other encoding, peg's padded convolution too, gives a shuffled image other tokens"
    )


@exercise(
    "00.6",
    "shuffle_patches by hand",
    hint="cut the images into a (gh, gw) grid of p×p patches, list them in raster order, take them in the "
    "order perm gives and put them back",
)
def _shuffle_by_hand(answer) -> str:
    from minivit.data import shuffle_patches

    f = function(
        answer,
        "(images, patch_size, perm)",
        refuse=(
            shuffle_patches,
            "shuffle_patches",
            "the exercise asks you to write it: reshape to (B, C, gh, p, gw, p), bring the patch axes "
            "together, index them with perm, then undo the reshape",
        ),
    )
    g = torch.Generator().manual_seed(0)
    form = "return the shuffled images, a tensor [B, C, H, W] like `images`"
    for b, c, h, w, p in ((2, 3, 24, 24, 8), (1, 2, 12, 20, 4), (3, 1, 8, 6, 2)):
        images = torch.randn(b, c, h, w, generator=g)
        gh, gw = h // p, w // p
        perm = torch.randperm(gh * gw, generator=g)
        want = shuffle_patches(images, p, perm)
        got = tensor(f(images.clone(), p, perm.clone()), form, (b, c, h, w))
        if torch.allclose(got, want.double()):
            continue
        where = f"on a {gh}×{gw} grid of {p}-pixel patches"
        if torch.allclose(got, shuffle_patches(images, p, perm.argsort()).double()):
            raise Wrong(
                f"{where} your patch i lands at place perm[i]: the inverse shuffle",
                "patch perm[i] of the input lands at place i: out[i] = in[perm[i]], a gather",
            )
        patches = images.reshape(b, c, gh, p, gw, p).permute(0, 2, 4, 1, 3, 5).reshape(b, gh * gw, -1)
        out = got.float().reshape(b, c, gh, p, gw, p).permute(0, 2, 4, 1, 3, 5).reshape(b, gh * gw, -1)
        place = next(i for i in range(gh * gw) if not torch.allclose(out[:, i], patches[:, perm[i]]))
        r, col = divmod(place, gw)
        raise Wrong(
            f"{where}, place {place} (row {r}, column {col}) does not hold input patch {int(perm[place])}",
            "a patch is a p×p block of pixels; the grid is read row by row (raster order), with "
            f"H // p = {gh} rows and W // p = {gw} columns here",
        )
    return "your shuffle is shuffle_patches: patch perm[i] lands at place i, on grids that are not square too"
