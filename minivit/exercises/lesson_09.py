"""Checks for lesson 09 (the capstone)."""

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
        sums = got.sum(1)
        row = int((sums - 1).abs().nan_to_num(float("inf")).argmax())
        expect(
            same(sums, torch.ones(b)),
            f"row {row} sums to {sums[row].item():.4g}, not 1",
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


def _cutmix_weight(h: int, w: int, lam: float, cy: int, cx: int) -> float:
    """The own label's weight after CutMix pastes its box at (cy, cx), cut off at the border."""
    bh, bw = round(h * math.sqrt(1 - lam)), round(w * math.sqrt(1 - lam))
    y0, y1 = max(cy - bh // 2, 0), min(cy + bh - bh // 2, h)
    x0, x1 = max(cx - bw // 2, 0), min(cx + bw - bw // 2, w)
    return 1 - (y1 - y0) * (x1 - x0) / (h * w)


@exercise(
    "09.9",
    "the own label's weight after CutMix",
    hint="return a number: 1 − (the pasted box's area after cutting it at the border) / (H · W)",
)
def _cutmix(answer) -> str:
    f = function(answer, "(H, W, lam, cy, cx)")
    form = "return the weight of the image's own label, one number"
    for h, w, lam, cy, cx in (
        (32, 32, 0.64, 16, 16),
        (32, 32, 0.3, 2, 30),
        (24, 40, 0.5, 0, 0),
        (28, 28, 0.9, 27, 5),
    ):
        got = number(f(h, w, lam, cy, cx), form)
        want = _cutmix_weight(h, w, lam, cy, cx)
        if abs(got - want) <= 1e-6:
            continue
        where = f"with λ = {lam:g} and the box's centre at ({cy}, {cx}) of a {h}×{w} image"
        if abs(got - lam) <= 1e-6:
            bh, bw = round(h * math.sqrt(1 - lam)), round(w * math.sqrt(1 - lam))
            cut = cy - bh // 2 < 0 or cy + bh - bh // 2 > h or cx - bw // 2 < 0 or cx + bw - bw // 2 > w
            raise Wrong(
                f"{where} you give the drawn λ",
                "the box is cut off where it passes the border: the weight comes from the area actually "
                "pasted"
                if cut
                else f"the box's sides are whole pixels, here {bh} by {bw}: the weight comes from the area "
                "actually pasted",
            )
        expect(
            abs(got - (1 - want)) > 1e-6,
            f"{where} you give {got:.4f}, the partner's weight",
            "the box holds the partner's pixels; the own label keeps the rest of the image",
        )
        raise Wrong(
            f"{where} you give {got:.4f}, the own label's weight is {want:.4f}",
            f"the box has h = round(H√(1 − λ)) rows (here {round(h * math.sqrt(1 - lam))}) and "
            "round(W√(1 − λ)) columns, from cy − h // 2 to cy + h − h // 2 and likewise across; cut both "
            "ends to the image",
        )
    return (
        "the weight counts the pixels actually pasted: a box at a corner loses up to three quarters of its "
        "area, and the own label keeps more than λ"
    )
