"""Positional encodings behind one interface (see `base.py`), by name.

    build("sincos2d", dim=64, heads=2, depth=2, grid=(6, 6))

An unknown name raises a ValueError that lists the known ones.
"""

from __future__ import annotations

import inspect

from minivit.checks import Declared, check_declared, declared
from minivit.posenc.alibi import ALiBi1D, ALiBi2D, alibi_slopes
from minivit.posenc.base import (
    Grid,
    GridCache,
    PositionalEncoding,
    grid_coords,
    grid_distances,
    offset_bias,
    pad_prefix,
    relative_offsets,
)
from minivit.posenc.learned import Learned, resample
from minivit.posenc.liere import LieRE, skew_symmetric
from minivit.posenc.none import NoneEncoding
from minivit.posenc.peg import PEG
from minivit.posenc.pope import PoPE, polar, pope_frequencies
from minivit.posenc.relative import RelativeBias
from minivit.posenc.rope import RoPE1D, RoPEAxial, RoPEMixed, RoPESpiral, rotate_pairs, spiral_directions
from minivit.posenc.sincos import Sincos1D, Sincos2D, sincos_1d, sincos_2d
from minivit.posenc.string import STRING

REGISTRY: dict[str, type[PositionalEncoding]] = {
    "none": NoneEncoding,
    "learned": Learned,
    "sincos1d": Sincos1D,
    "sincos2d": Sincos2D,
    "relative": RelativeBias,
    "rope1d": RoPE1D,
    "rope-axial": RoPEAxial,
    "rope-mixed": RoPEMixed,
    "rope-spiral": RoPESpiral,
    "string": STRING,
    "liere": LieRE,
    "pope": PoPE,
    "alibi1d": ALiBi1D,
    "alibi2d": ALiBi2D,
    "peg": PEG,
}


def check_name(name: str) -> None:
    """Raise a ValueError naming the known encodings if `name` is not one of them."""
    if name not in REGISTRY:
        raise ValueError(f"Unknown positional encoding {name!r}; known: {', '.join(REGISTRY)}")


SHAPE = ("dim", "heads", "depth", "grid", "num_prefix_tokens")  # the model's, passed by `build`


def _constructors(name: str) -> list:
    """The constructors encoding `name` runs (its own and its parents'), most specific first."""
    check_name(name)
    return [
        klass.__dict__["__init__"]
        for klass in REGISTRY[name].__mro__
        if issubclass(klass, PositionalEncoding)
        and klass is not PositionalEncoding
        and "__init__" in klass.__dict__
    ]


def options_of(name: str) -> list[str]:
    """The options (keyword arguments beyond the model's shape) that encoding `name` accepts."""
    names: list[str] = []
    for init in _constructors(name):
        params = inspect.signature(init).parameters.values()
        names += [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name not in names + list(SHAPE)]
    return names


def declarations(name: str) -> dict[str, Declared]:
    """What each option of encoding `name` accepts (its type and range, declared next to the
    constructor argument that takes it), by option name."""
    out: dict[str, Declared] = {}
    for init in _constructors(name):
        for option, d in declared(init).items():
            if option not in SHAPE:
                out.setdefault(option, d)
    return out


def check_option(name: str, option: str, value: object, shape: dict[str, int] | None = None) -> None:
    """Raise a ValueError naming the option, its encoding and what it accepts, if `value` is not of
    the option's type (bool, whole number, finite number or text; None where allowed) or outside its
    declared range (for a model of this `shape`: dim, heads, depth)."""
    d = declarations(name).get(option)
    if d is not None:
        check_declared(f"option {{option}} of positional encoding {name!r}", d, value, shape)


def check_options(name: str, options: dict, shape: dict[str, int] | None = None) -> None:
    """Raise a ValueError if `name` is not an encoding, or `options` holds an option it does not take
    (listing those it does) or a value it does not accept."""
    check_name(name)
    if not isinstance(options, dict):
        raise ValueError(f"position options must be a dict of option: value, got {options!r}")
    unknown = sorted(set(options) - set(options_of(name)), key=str)
    if unknown:
        raise ValueError(
            f"unknown option(s) {unknown} for positional encoding {name!r}; "
            f"its options: {', '.join(options_of(name)) or 'none'}"
        )
    for option, value in options.items():
        check_option(name, option, value, shape)


def build(
    name: str, *, dim: int, heads: int, depth: int, grid: Grid, num_prefix_tokens: int = 0, **options
) -> PositionalEncoding:
    """Build encoding `name` for a model of this shape, with its own `options`."""
    check_options(name, options, {"dim": dim, "heads": heads, "depth": depth})
    return REGISTRY[name](
        dim=dim, heads=heads, depth=depth, grid=tuple(grid), num_prefix_tokens=num_prefix_tokens, **options
    )


__all__ = [
    "PEG",
    "REGISTRY",
    "ALiBi1D",
    "ALiBi2D",
    "Grid",
    "GridCache",
    "Learned",
    "LieRE",
    "NoneEncoding",
    "PoPE",
    "PositionalEncoding",
    "RelativeBias",
    "RoPE1D",
    "RoPEAxial",
    "RoPEMixed",
    "RoPESpiral",
    "STRING",
    "Sincos1D",
    "Sincos2D",
    "alibi_slopes",
    "build",
    "check_name",
    "check_option",
    "check_options",
    "declarations",
    "grid_coords",
    "grid_distances",
    "offset_bias",
    "options_of",
    "pad_prefix",
    "polar",
    "pope_frequencies",
    "relative_offsets",
    "resample",
    "rotate_pairs",
    "sincos_1d",
    "sincos_2d",
    "skew_symmetric",
    "spiral_directions",
]
