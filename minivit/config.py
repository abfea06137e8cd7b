"""ViTConfig: every choice that shapes a minivit model, in one frozen dataclass, plus named presets."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from minivit.checks import check_number, check_whole
from minivit.posenc import check_options

POOLS = ("mean", "cls", "last")  # one vector per image: a classifier
TOKEN_POOL = "tokens"  # every patch token through the head: one output per token (masked-token prediction)
# how the weights start: minivit's truncated normal (std 0.02, as BERT and timm), or PyTorch's
# defaults with nn.MultiheadAttention's attention init, as in Ito et al.'s reference code
INITS = ("trunc_normal", "torch")


def as_pair(size: int | tuple[int, int]) -> tuple[int, int]:
    """Return `size` as (height, width)."""
    if isinstance(size, int):
        return (size, size)
    h, w = size
    return (int(h), int(w))


def grid_of(image_size: int | tuple[int, int], patch_size: int) -> tuple[int, int]:
    """The patch grid (gh, gw) of an image, or a ValueError that says how to fix the size."""
    h, w = as_pair(image_size)
    for name, side in (("height", h), ("width", w)):
        if side % patch_size != 0:
            lower = side - side % patch_size
            example = f"{lower} or {lower + patch_size}" if lower else f"{patch_size}"
            raise ValueError(
                f"image {name} {side} is not divisible by patch size {patch_size}; "
                f"use a multiple of {patch_size} (e.g. {example}) or another patch size"
            )
    return (h // patch_size, w // patch_size)


@dataclass(frozen=True, kw_only=True)
class ViTConfig:
    """Architecture of a Vision Transformer and its positional encoding.

    The defaults are a model that trains in seconds on a laptop CPU.
    """

    image_size: int | tuple[int, int] = 24  # the training resolution; the model runs at others
    patch_size: int = 4
    in_channels: int = 3
    num_classes: int = 9
    dim: int = 64
    depth: int = 2
    heads: int = 2
    mlp_ratio: float = 4.0
    pool: str = (
        "mean"  # "mean" (default; MAE's fine-tuning), "cls" (ViT, DeiT, DeiT-III), "last", or "tokens"
    )
    norm_first: bool = True  # pre-LayerNorm; False gives the post-LN blocks of the original paper
    dropout: float = 0.0  # tiny models on small data overfit less from fewer steps than from dropout
    position: str = "learned"  # a name in minivit.posenc.REGISTRY
    position_options: dict[str, Any] = field(default_factory=dict)  # passed to that encoding
    init: str = "trunc_normal"  # the other weights' init: "trunc_normal" or "torch" (see INITS)

    def __post_init__(self) -> None:
        sides = self.image_size if isinstance(self.image_size, tuple | list) else [self.image_size]
        if len(sides) not in (1, 2):
            raise ValueError(f"image_size={self.image_size!r}: give one side, or (height, width)")
        for side in sides:
            check_whole("image_size", side, 1)
        check_whole("patch_size", self.patch_size, 1)
        for name in ("in_channels", "dim", "depth", "heads"):
            check_whole(name, getattr(self, name), 1)
        # per-token outputs may be one number (a regression); a classifier needs two classes at least
        check_whole("num_classes", self.num_classes, 1 if self.pool == TOKEN_POOL else 2)
        check_number("mlp_ratio", self.mlp_ratio, low=0, low_ok=False)
        if not isinstance(self.norm_first, bool):  # "no" and "False" are truthy: silently pre-LN
            raise ValueError(
                f"norm_first={self.norm_first!r} is not True or False; pass True (pre-LayerNorm) or False "
                "(post-LayerNorm)"
            )
        check_number("dropout", self.dropout, low=0, high=1)
        object.__setattr__(self, "image_size", as_pair(self.image_size))
        grid_of(self.image_size, self.patch_size)
        if self.dim % self.heads != 0:
            raise ValueError(
                f"width dim={self.dim} is not divisible by heads={self.heads}; "
                f"choose dim as a multiple of heads (e.g. dim={self.heads * (self.dim // self.heads + 1)})"
            )
        if self.pool not in (*POOLS, TOKEN_POOL):
            raise ValueError(f"unknown pool {self.pool!r}; known pools: {', '.join((*POOLS, TOKEN_POOL))}")
        if self.init not in INITS:
            raise ValueError(f"unknown init {self.init!r}; known inits: {', '.join(INITS)}")
        shape = {"dim": self.dim, "heads": self.heads, "depth": self.depth}
        check_options(self.position, self.position_options, shape)

    @property
    def grid(self) -> tuple[int, int]:
        """The training grid of patches (gh, gw)."""
        return grid_of(self.image_size, self.patch_size)

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads

    @property
    def num_prefix_tokens(self) -> int:
        """Tokens before the patch tokens: 1 for a class token, else 0."""
        return 1 if self.pool == "cls" else 0

    def with_(self, **changes: Any) -> ViTConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["image_size"] = list(self.image_size)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ViTConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown ViTConfig fields {unknown}; known fields: {sorted(known)}")
        d = dict(d)
        if "image_size" in d and not isinstance(d["image_size"], int):
            d["image_size"] = tuple(d["image_size"])
        return cls(**d)

    def differences(self, other: ViTConfig) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: {name: (self's, other's)}."""
        a, b = self.to_dict(), other.to_dict()
        return {k: (a[k], b[k]) for k in a if a[k] != b[k]}


PRESETS: dict[str, ViTConfig] = {
    # 2 blocks of width 64: the lessons' model, seconds per hundred steps on a laptop CPU.
    "tiny": ViTConfig(),
    # DeiT-Tiny's width and heads at CIFAR size (Touvron et al. 2021), 6 blocks instead of 12.
    "small": ViTConfig(image_size=32, patch_size=4, num_classes=10, dim=192, depth=6, heads=3),
    # Ito et al. 2024 (arXiv 2406.08272) on the 4x4 Latin square task: cells are tokens
    # (6 one-hot channels, patch 1), 4 post-LN blocks of width 160, 1 head, readout from the last
    # token, a separate N(0, sigma^2) table before every block.
    "lst": ViTConfig(
        image_size=4,
        patch_size=1,
        in_channels=6,
        num_classes=4,
        dim=160,
        depth=4,
        heads=1,
        norm_first=False,
        pool="last",
        position="learned",
        position_options={"init": "normal", "std": 0.1, "per_block": True},
    ),
}


def preset(name: str, **changes: Any) -> ViTConfig:
    """A named configuration, optionally with some fields changed."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}")
    return PRESETS[name].with_(**changes) if changes else PRESETS[name]
