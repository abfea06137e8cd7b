"""Positional encodings behind one interface (see `base.py`), by name.

    build("sincos2d", dim=64, heads=2, depth=2, grid=(6, 6))

An unknown name raises a ValueError that lists the known ones.
"""

from __future__ import annotations

import inspect

from minivit.posenc.alibi import ALiBi1D, ALiBi2D, alibi_slopes
from minivit.posenc.base import Grid, PositionalEncoding, grid_coords, pad_prefix
from minivit.posenc.conditional import PEG
from minivit.posenc.learned import Learned, resample
from minivit.posenc.none import NoPosition
from minivit.posenc.relative import RelativeBias, relative_offsets
from minivit.posenc.rope import RoPE1D, RoPEAxial, RoPEMixed, rotate_pairs
from minivit.posenc.sinusoidal import Sincos1D, Sincos2D, sincos_1d, sincos_2d

REGISTRY: dict[str, type[PositionalEncoding]] = {
    "none": NoPosition,
    "learned": Learned,
    "sincos1d": Sincos1D,
    "sincos2d": Sincos2D,
    "relative": RelativeBias,
    "rope1d": RoPE1D,
    "rope-axial": RoPEAxial,
    "rope-mixed": RoPEMixed,
    "alibi1d": ALiBi1D,
    "alibi2d": ALiBi2D,
    "peg": PEG,
}


def check_name(name: str) -> None:
    """Raise a ValueError naming the known encodings if `name` is not one of them."""
    if name not in REGISTRY:
        raise ValueError(f"Unknown positional encoding {name!r}; known: {', '.join(REGISTRY)}")


def options_of(name: str) -> list[str]:
    """The options (keyword arguments beyond the model's shape) that encoding `name` accepts."""
    check_name(name)
    names: list[str] = []
    for klass in REGISTRY[name].__mro__:
        if klass is PositionalEncoding or not issubclass(klass, PositionalEncoding):
            continue
        params = inspect.signature(klass.__init__).parameters.values()
        names += [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name not in names]
    return names


def build(
    name: str, *, dim: int, heads: int, depth: int, grid: Grid, num_prefix_tokens: int = 0, **options
) -> PositionalEncoding:
    """Build encoding `name` for a model of this shape, with its own `options`."""
    check_name(name)
    unknown = sorted(set(options) - set(options_of(name)))
    if unknown:
        raise ValueError(
            f"unknown option(s) {unknown} for positional encoding {name!r}; "
            f"its options: {', '.join(options_of(name)) or 'none'}"
        )
    return REGISTRY[name](
        dim=dim, heads=heads, depth=depth, grid=tuple(grid), num_prefix_tokens=num_prefix_tokens, **options
    )


__all__ = [
    "PEG",
    "REGISTRY",
    "ALiBi1D",
    "ALiBi2D",
    "Grid",
    "Learned",
    "NoPosition",
    "PositionalEncoding",
    "RelativeBias",
    "RoPE1D",
    "RoPEAxial",
    "RoPEMixed",
    "Sincos1D",
    "Sincos2D",
    "alibi_slopes",
    "build",
    "check_name",
    "grid_coords",
    "options_of",
    "pad_prefix",
    "relative_offsets",
    "resample",
    "rotate_pairs",
    "sincos_1d",
    "sincos_2d",
]
