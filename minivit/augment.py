"""Batch augmentation on the device the batch is on, so a GPU never waits for a data loader.

    Augment(crop=4, flip=True, randaugment=2, mixup=0.8, cutmix=1.0, erasing=0.25)
    Augment(resized_crop=(0.25, 1.0))     # scale augmentation: objects seen at many sizes
    images [B, C, H, W] in [0, 1], labels [B] -> images [B, C, H, W], targets [B, classes]

The recipe of DeiT (Touvron et al. 2021, arXiv 2012.12877) for training ViTs from scratch on small
data: random crop and flip, RandAugment (Cubuk et al. 2020, arXiv 1909.13719), mixup (Zhang et al.
2018, arXiv 1710.09412) or CutMix (Yun et al. 2019, arXiv 1905.04899), random erasing (Zhong et al.
2020, arXiv 1708.04896). Scale augmentation is the random-resized-crop of Inception and every
ImageNet recipe since (Szegedy et al. 2015, arXiv 1409.4842). Every operation acts on the whole
batch at once, with a different random draw per image, from one `torch.Generator` on the batch's
device. Targets are class probabilities (one-hot, or two labels mixed), ready for `F.cross_entropy`,
whose `label_smoothing` then smooths them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.checks import check_choice, check_number, check_whole, is_number

# RandAugment's operations: a colour change or an affine warp, each with a strength at magnitude m
# (out of 10): brightness/contrast/colour factors 1 +- 0.09 m, rotation +- 3 m degrees, shear +- 0.03 m,
# translation +- 0.045 m of the side, solarize threshold 1 - m/10, posterize to 8 - m/2 bits.
RANDAUGMENT_OPS = (
    "identity",
    "brightness",
    "contrast",
    "color",
    "solarize",
    "posterize",
    "autocontrast",
    "rotate",
    "shear_x",
    "shear_y",
    "translate_x",
    "translate_y",
)


@dataclass(frozen=True, kw_only=True)
class Augment:
    """What to do to each training batch; every option off by default.

    Args:
        resized_crop: (smallest, largest) fraction of the image's area to crop at a random place
            and aspect ratio (3/4 to 4/3) and resize back to the image's size, so that objects
            appear up to 1/sqrt(smallest) times larger (None: off; ImageNet recipes use (0.08, 1)).
        crop: pad each side by this many pixels (reflect) and crop back at a random offset (0: off).
        flip: mirror left-right with probability 1/2.
        randaugment: how many RandAugment operations per image (0: off), at `magnitude` (0-10).
        mixup: alpha of mixup's Beta(alpha, alpha) (0: off).
        cutmix: alpha of CutMix's Beta(alpha, alpha) (0: off); with mixup too, each batch uses one
            of the two, chosen with equal probability.
        erasing: probability that an image gets a random rectangle of noise (0: off).
    """

    resized_crop: tuple[float, float] | None = None
    crop: int = 0
    flip: bool = False
    randaugment: int = 0
    magnitude: float = 9.0
    mixup: float = 0.0
    cutmix: float = 0.0
    erasing: float = 0.0

    def __post_init__(self) -> None:
        if self.resized_crop is not None:
            pair = self.resized_crop
            ok = isinstance(pair, tuple | list) and len(pair) == 2 and all(is_number(v) for v in pair)
            if not ok or not 0 < pair[0] <= pair[1] <= 1:
                raise ValueError(
                    "resized_crop is a range of area fractions 0 < smallest <= largest <= 1; "
                    f"got {self.resized_crop}"
                )
        check_whole("crop", self.crop, 0)
        check_whole("randaugment", self.randaugment, 0)
        if not isinstance(self.flip, bool):
            raise ValueError(f"flip={self.flip!r} is not True or False")
        check_number("magnitude", self.magnitude, low=0, high=10, high_ok=True)
        check_number("mixup", self.mixup, low=0)
        check_number("cutmix", self.cutmix, low=0)
        check_number("erasing", self.erasing, low=0, high=1, high_ok=True)

    def check_size(self, height: int, width: int) -> None:
        """Raise a ValueError, before a run starts, if images of `height` x `width` are too small
        for these options (the crop pads by reflection, which needs more pixels than the padding)."""
        if self.crop and min(height, width) <= self.crop:
            raise ValueError(
                f"augmentation with crop={self.crop} (as in --augment light and deit) pads each side by "
                f"{self.crop} px, which needs images larger than {self.crop} px; these are {height}x{width}: "
                f"leave out the augmentation (--augment none), or use crop < {min(height, width)}"
            )

    @classmethod
    def recipe(cls, name: str) -> Augment:
        """A named set of options: "none", "light" (crop and flip) or "deit" (the whole recipe)."""
        check_choice("augmentation recipe", name, RECIPES)
        return RECIPES[name]

    def __repr__(self) -> str:
        # without scale augmentation, the repr of the releases before it: checkpoints record it,
        # and a resume compares it, so runs saved then still resume
        shown = [f for f in fields(self) if f.name != "resized_crop" or self.resized_crop is not None]
        return f"Augment({', '.join(f'{f.name}={getattr(self, f.name)!r}' for f in shown)})"

    def __bool__(self) -> bool:
        options = (self.resized_crop, self.crop, self.flip, self.randaugment, self.mixup, self.cutmix)
        return any(options) or bool(self.erasing)

    def __call__(
        self, images: Tensor, labels: Tensor, num_classes: int, generator: torch.Generator
    ) -> tuple[Tensor, Tensor]:
        """Augmented images [B, C, H, W] and target probabilities [B, num_classes]."""
        g = generator
        targets = F.one_hot(labels, num_classes).to(images.dtype)
        if self.resized_crop:
            images = random_resized_crop(images, self.resized_crop, g)
        if self.crop:
            images = random_crop(images, self.crop, g)
        if self.flip:
            images = random_flip(images, g)
        if self.randaugment:
            images = randaugment(images, self.randaugment, self.magnitude, g)
        if self.mixup or self.cutmix:
            images, targets = mix(images, targets, mixup=self.mixup, cutmix=self.cutmix, generator=g)
        if self.erasing:
            images = random_erasing(images, self.erasing, g)
        return images, targets


RECIPES = {
    "none": Augment(),
    "light": Augment(crop=4, flip=True),
    "deit": Augment(crop=4, flip=True, randaugment=2, magnitude=9, mixup=0.8, cutmix=1.0, erasing=0.25),
}


def _rand(n: int, g: torch.Generator, device: torch.device) -> Tensor:
    return torch.rand(n, generator=g, device=device)


def random_crop(images: Tensor, pad: int, g: torch.Generator) -> Tensor:
    """Pad by `pad` (reflect) and crop each image back to its size at its own random offset."""
    B, C, H, W = images.shape
    padded = F.pad(images, (pad, pad, pad, pad), mode="reflect")  # (B, C, H+2p, W+2p)
    dy = torch.randint(0, 2 * pad + 1, (B,), generator=g, device=images.device)
    dx = torch.randint(0, 2 * pad + 1, (B,), generator=g, device=images.device)
    rows = dy[:, None] + torch.arange(H, device=images.device)  # (B, H)
    cols = dx[:, None] + torch.arange(W, device=images.device)  # (B, W)
    b = torch.arange(B, device=images.device)[:, None, None]
    out = padded.permute(0, 2, 3, 1)[b, rows[:, :, None], cols[:, None, :]]  # (B, H, W, C)
    return out.permute(0, 3, 1, 2).contiguous()


def random_resized_crop(
    images: Tensor,
    scale: tuple[float, float],
    g: torch.Generator,
    ratio: tuple[float, float] = (3 / 4, 4 / 3),
) -> Tensor:
    """Crop each image to its own random box (a fraction of the area drawn uniformly from `scale`,
    an aspect ratio log-uniformly from `ratio`, a place uniformly inside the image) and resize the
    box back to the image's size (bilinear)."""
    B, device = len(images), images.device
    area = scale[0] + (scale[1] - scale[0]) * _rand(B, g, device)
    log_r = math.log(ratio[0]) + (math.log(ratio[1]) - math.log(ratio[0])) * _rand(B, g, device)
    w = (area * log_r.exp()).sqrt().clamp(max=1)  # width and height as fractions of the side
    h = (area / log_r.exp()).sqrt().clamp(max=1)
    cx = (2 * _rand(B, g, device) - 1) * (1 - w)  # the box's centre, normalized coordinates in [-1, 1]
    cy = (2 * _rand(B, g, device) - 1) * (1 - h)
    theta = torch.zeros(B, 2, 3, device=device, dtype=images.dtype)
    theta[:, 0, 0], theta[:, 0, 2], theta[:, 1, 1], theta[:, 1, 2] = w, cx, h, cy
    grid = F.affine_grid(theta, list(images.shape), align_corners=False)
    return F.grid_sample(images, grid, mode="bilinear", padding_mode="border", align_corners=False)


def random_flip(images: Tensor, g: torch.Generator) -> Tensor:
    """Mirror each image left-right with probability 1/2."""
    flip = _rand(len(images), g, images.device) < 0.5
    return torch.where(flip[:, None, None, None], images.flip(-1), images)


def _gray(images: Tensor) -> Tensor:
    """Luminance [B, 1, H, W] (ITU-R 601), or the image itself if it has one channel."""
    if images.shape[1] != 3:
        return images.mean(1, keepdim=True)
    w = torch.tensor([0.299, 0.587, 0.114], device=images.device, dtype=images.dtype)
    return (images * w[:, None, None]).sum(1, keepdim=True)


def _blend(a: Tensor, b: Tensor, factor: Tensor) -> Tensor:
    """b + factor (a - b), clipped to [0, 1]: factor 1 gives a, 0 gives b."""
    return (b + factor[:, None, None, None] * (a - b)).clamp(0, 1)


def _affine(images: Tensor, theta: Tensor) -> Tensor:
    """Warp each image by its own 2x3 matrix (normalized coordinates); outside pixels are gray 0.5."""
    grid = F.affine_grid(theta, list(images.shape), align_corners=False)
    shifted = images - 0.5  # zero padding of the shifted image is a gray border
    return F.grid_sample(shifted, grid, mode="bilinear", padding_mode="zeros", align_corners=False) + 0.5


def _apply(op: str, images: Tensor, m: float, sign: Tensor) -> Tensor:
    """RandAugment operation `op` at magnitude m (0-10) on every image; `sign` [B] is +-1 per image."""
    B = len(images)
    if op == "identity":
        return images
    if op in ("brightness", "contrast", "color"):
        factor = 1 + sign * 0.09 * m
        if op == "brightness":
            return _blend(images, torch.zeros_like(images), factor)
        if op == "contrast":
            mean = _gray(images).mean(dim=(1, 2, 3), keepdim=True).expand_as(images)
            return _blend(images, mean, factor)
        return _blend(images, _gray(images).expand_as(images), factor)
    if op == "solarize":
        return torch.where(images >= 1 - m / 10, 1 - images, images)
    if op == "posterize":
        levels = 2 ** max(1, round(8 - m / 2))
        return torch.floor(images * (levels - 1) + 0.5) / (levels - 1)
    if op == "autocontrast":
        lo = images.amin(dim=(2, 3), keepdim=True)
        hi = images.amax(dim=(2, 3), keepdim=True)
        return torch.where(hi > lo, (images - lo) / (hi - lo).clamp_min(1e-6), images)
    theta = torch.zeros(B, 2, 3, device=images.device, dtype=images.dtype)
    theta[:, 0, 0] = theta[:, 1, 1] = 1
    if op == "rotate":
        a = sign * math.radians(3 * m)
        theta[:, 0, 0], theta[:, 0, 1] = a.cos(), -a.sin()
        theta[:, 1, 0], theta[:, 1, 1] = a.sin(), a.cos()
    elif op == "shear_x":
        theta[:, 0, 1] = sign * 0.03 * m
    elif op == "shear_y":
        theta[:, 1, 0] = sign * 0.03 * m
    elif op == "translate_x":
        theta[:, 0, 2] = sign * 0.045 * m * 2  # normalized coordinates span 2
    elif op == "translate_y":
        theta[:, 1, 2] = sign * 0.045 * m * 2
    else:
        raise ValueError(f"unknown RandAugment operation {op!r}; known: {', '.join(RANDAUGMENT_OPS)}")
    return _affine(images, theta)


def randaugment(images: Tensor, n: int, magnitude: float, g: torch.Generator) -> Tensor:
    """RandAugment: `n` operations per image, each drawn uniformly from RANDAUGMENT_OPS."""
    B, device = len(images), images.device
    for _ in range(n):
        choice = torch.randint(len(RANDAUGMENT_OPS), (B,), generator=g, device=device)
        sign = torch.where(_rand(B, g, device) < 0.5, -1.0, 1.0).to(images.dtype)
        out = images
        for i, op in enumerate(RANDAUGMENT_OPS[1:], start=1):
            chosen = choice == i
            out = torch.where(chosen[:, None, None, None], _apply(op, images, magnitude, sign), out)
        images = out
    return images


def _beta(alpha: float, g: torch.Generator) -> float:
    """One draw from Beta(alpha, alpha), seeded from `g` so a run is reproducible."""
    seed = int(torch.randint(2**62, (1,), generator=g, device=g.device).item())
    return float(np.random.default_rng(seed).beta(alpha, alpha))


def mix(
    images: Tensor, targets: Tensor, *, mixup: float, cutmix: float, generator: torch.Generator
) -> tuple[Tensor, Tensor]:
    """Mixup or CutMix of each image with the batch's reverse (image i with image B-1-i).

    Mixup blends the pixels with weight lam ~ Beta(mixup, mixup); CutMix pastes a box of area
    1 - lam from the partner. The targets mix with the same weight (for CutMix, the box's true area).
    """
    g = generator
    use_cutmix = cutmix > 0 and (mixup == 0 or _rand(1, g, images.device).item() < 0.5)
    partner_images, partner_targets = images.flip(0), targets.flip(0)
    if not use_cutmix:
        lam = _beta(mixup, g)
        return lam * images + (1 - lam) * partner_images, lam * targets + (1 - lam) * partner_targets
    lam = _beta(cutmix, g)
    H, W = images.shape[-2:]
    cut = math.sqrt(1 - lam)
    h, w = round(H * cut), round(W * cut)
    cy, cx = (int(v) for v in torch.randint(0, 2**31 - 1, (2,), generator=g, device=g.device))
    cy, cx = cy % H, cx % W
    y0, y1 = max(cy - h // 2, 0), min(cy + h - h // 2, H)
    x0, x1 = max(cx - w // 2, 0), min(cx + w - w // 2, W)
    out = images.clone()
    out[..., y0:y1, x0:x1] = partner_images[..., y0:y1, x0:x1]
    lam = 1 - (y1 - y0) * (x1 - x0) / (H * W)  # the box's area after clipping at the border
    return out, lam * targets + (1 - lam) * partner_targets


def random_erasing(images: Tensor, p: float, g: torch.Generator) -> Tensor:
    """With probability p per image, replace a rectangle (2%-33% of the area, aspect 0.3-3.3) with
    uniform noise."""
    B, C, H, W = images.shape
    device = images.device
    area = (0.02 + (1 / 3 - 0.02) * _rand(B, g, device)) * H * W
    aspect = torch.exp(math.log(0.3) + (math.log(3.3) - math.log(0.3)) * _rand(B, g, device))
    h = (area * aspect).sqrt().round().clamp(1, H)
    w = (area / aspect).sqrt().round().clamp(1, W)
    y0 = ((H - h + 1) * _rand(B, g, device)).floor()
    x0 = ((W - w + 1) * _rand(B, g, device)).floor()
    rows = torch.arange(H, device=device)[None, :]
    cols = torch.arange(W, device=device)[None, :]
    inside_y = (rows >= y0[:, None]) & (rows < (y0 + h)[:, None])  # (B, H)
    inside_x = (cols >= x0[:, None]) & (cols < (x0 + w)[:, None])  # (B, W)
    erase = (_rand(B, g, device) < p)[:, None, None] & inside_y[:, :, None] & inside_x[:, None, :]
    noise = torch.rand(images.shape, generator=g, device=device, dtype=images.dtype)
    return torch.where(erase[:, None], noise, images)


__all__ = [
    "RANDAUGMENT_OPS",
    "RECIPES",
    "Augment",
    "mix",
    "randaugment",
    "random_crop",
    "random_erasing",
    "random_flip",
    "random_resized_crop",
]
