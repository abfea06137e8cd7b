"""Positional encodings behind one interface (see `base.py`), by name.

    build("sincos2d", dim=64, heads=2, depth=2, grid=(6, 6))

An unknown name raises a ValueError that lists the known ones.
"""

from __future__ import annotations

import inspect
import math

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


def _parameter(name: str, option: str) -> inspect.Parameter | None:
    """`option` as a keyword-only parameter of encoding `name`'s constructors (its annotation as
    written, and its default)."""
    for klass in REGISTRY[name].__mro__:
        if issubclass(klass, PositionalEncoding) and klass is not PositionalEncoding:
            param = inspect.signature(klass.__init__).parameters.get(option)
            if param is not None and param.kind is param.KEYWORD_ONLY:
                return param
    return None


def check_option(name: str, option: str, value: object) -> None:
    """Raise a ValueError naming the option, its encoding and what it accepts, if `value` is not of
    the option's type (bool, whole number, number or text; None where allowed) or not finite."""
    param = _parameter(name, option)
    if param is None:
        return
    kinds = {k.strip() for k in str(param.annotation).split("|")}
    if value is None and "None" in kinds:
        return
    if "bool" in kinds:
        ok, wanted = isinstance(value, bool), "True or False"
    elif "int" in kinds:
        ok, wanted = isinstance(value, int) and not isinstance(value, bool), "a whole number"
    elif "float" in kinds:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        wanted = "a finite number"
    elif "str" in kinds:
        ok, wanted = isinstance(value, str), "text"
    else:
        return
    if not ok:
        none = " (or None)" if "None" in kinds else ""
        example = f", e.g. {option}={param.default!r}" if param.default is not param.empty else ""
        raise ValueError(
            f"option {option}={value!r} of positional encoding {name!r} is not {wanted}{none}; "
            f"pass {wanted}{example}"
        )


def check_options(name: str, options: dict) -> None:
    """Raise a ValueError if `name` is not an encoding, or `options` holds an option it does not take
    (listing those it does) or a value of the wrong type."""
    check_name(name)
    if not isinstance(options, dict):
        raise ValueError(f"position options must be a dict of option: value, got {options!r}")
    unknown = sorted(set(options) - set(options_of(name)))
    if unknown:
        raise ValueError(
            f"unknown option(s) {unknown} for positional encoding {name!r}; "
            f"its options: {', '.join(options_of(name)) or 'none'}"
        )
    for option, value in options.items():
        check_option(name, option, value)


def build(
    name: str, *, dim: int, heads: int, depth: int, grid: Grid, num_prefix_tokens: int = 0, **options
) -> PositionalEncoding:
    """Build encoding `name` for a model of this shape, with its own `options`."""
    check_options(name, options)
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
    "check_option",
    "check_options",
    "grid_coords",
    "options_of",
    "pad_prefix",
    "relative_offsets",
    "resample",
    "rotate_pairs",
    "sincos_1d",
    "sincos_2d",
]
