"""Checks of the values a learner passes, each failing with one line that names the value and what
would be accepted: whole numbers, finite numbers in a range, one of a few choices, and the options of
a positional encoding, whose type and range are declared next to the constructor argument:

    def __init__(self, *, base: Annotated[float, Number(low=1, low_ok=False)] = 100.0, **kwargs)

`declared(klass.__init__)` reads those declarations back, `check_declared` checks a value against
one, and `boundary_cases` lists the values at the edges of each range (the bad-input tests are
generated from them). This module imports nothing from minivit, so every other module can use it.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Union

__all__ = [
    "Annotated",
    "Choice",
    "Declared",
    "Number",
    "Whole",
    "boundary_cases",
    "check_choice",
    "check_declared",
    "check_folder",
    "check_number",
    "check_whole",
    "declared",
    "is_number",
    "number_arg",
    "whole_arg",
]


def is_number(value: Any) -> bool:
    """Whether `value` is a finite int or float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def check_whole(name: str, value: Any, least: int, most: int | None = None) -> None:
    """Raise a ValueError naming `name` unless `value` is a whole number >= `least` (and <= `most`)."""
    span = f">= {least}" + (f" and <= {most}" if most is not None else "")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}={value!r} is not a whole number; use an integer {span}")
    if value < least:
        raise ValueError(f"{name}={value} is below {least}; use an integer {span}")
    if most is not None and value > most:
        raise ValueError(f"{name}={value} is above {most}; use an integer {span}")


def _span(low: float, high: float, low_ok: bool, high_ok: bool = False) -> str:
    above = f"{'>=' if low_ok else '>'} {low:g}"
    below = f"{'<=' if high_ok else '<'} {high:g}"
    if high == math.inf:
        return above
    return below if low == -math.inf else f"{above} and {below}"


def check_number(
    name: str, value: Any, *, low: float, high: float = math.inf, low_ok: bool = True, high_ok: bool = False
) -> None:
    """Raise a ValueError naming `name` unless `value` is a finite number in [low, high) (the ends
    in or out as `low_ok` and `high_ok` say)."""
    inside = (
        is_number(value)
        and (value >= low if low_ok else value > low)
        and (value <= high if high_ok else value < high)
    )
    if not inside:
        span = _span(low, high, low_ok, high_ok)
        raise ValueError(f"{name}={value!r} is out of range; use a finite number {span}")


def whole_arg(least: int, most: int | None = None) -> Callable[[str], int]:
    """An argparse `type=`: the text as a whole number >= `least` (and <= `most`), else argparse's
    one-line error naming the option (a script's options, e.g. the benchmarks')."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        try:
            check_whole("value", value if value is not None else text, least, most)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err).replace("value=", "", 1)) from None
        return value

    return parse


def number_arg(
    low: float, high: float = math.inf, low_ok: bool = True, high_ok: bool = False
) -> Callable[[str], float]:
    """An argparse `type=`: the text as a finite number in the range `check_number` takes."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = text
        try:
            check_number("value", value, low=low, high=high, low_ok=low_ok, high_ok=high_ok)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err).replace("value=", "", 1)) from None
        return value

    return parse


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> None:
    """Raise a ValueError naming `name` and the known choices unless `value` is one of them."""
    choices = tuple(choices)
    if isinstance(value, bool) or not any(value == c and type(value) is type(c) for c in choices):
        raise ValueError(f"unknown {name} {value!r}; known: {', '.join(map(str, choices))}")


def check_folder(name: str, value: Any, example: str = "runs/first") -> Path:
    """`value` as a Path, or a ValueError naming `name` if it is not a path (a str or os.PathLike) or
    names no folder: an empty or blank path, which would mean the working folder."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise ValueError(f"{name}={value!r} is not a folder's path; pass text such as {name}={example!r}")
    if not value.strip():
        raise ValueError(
            f"{name}={value!r} names no folder (an empty path means the working folder); "
            f"name a run folder, e.g. {name}={example!r}"
        )
    return Path(value)


# Ranges an option may declare (the `Annotated` metadata of a constructor argument).


@dataclass(frozen=True)
class Whole:
    """A whole number >= `least`; below the model's `below` ("depth", "heads" or "dim") if given;
    odd if `odd`. `why` says in a few words why (shown in the error)."""

    least: int = 0
    below: str | None = None
    odd: bool = False
    why: str = ""

    def wanted(self) -> str:
        text = f"{'an odd' if self.odd else 'a'} whole number >= {self.least}"
        return text + (f" and < the model's {self.below}" if self.below else "")

    def fails(self, value: Any, shape: Mapping[str, int] | None) -> bool:
        limit = (shape or {}).get(self.below) if self.below else None
        return value < self.least or (limit is not None and value >= limit) or (self.odd and value % 2 == 0)


@dataclass(frozen=True)
class Number:
    """A finite number in [low, high), or (low, high) with `low_ok=False`."""

    low: float = -math.inf
    high: float = math.inf
    low_ok: bool = True
    why: str = ""

    def wanted(self) -> str:
        return f"a finite number {_span(self.low, self.high, self.low_ok)}"

    def fails(self, value: Any, shape: Mapping[str, int] | None) -> bool:
        return not ((value >= self.low if self.low_ok else value > self.low) and value < self.high)


@dataclass(frozen=True)
class Choice:
    """One of `values`."""

    values: tuple
    why: str = ""

    def wanted(self) -> str:
        return "one of " + ", ".join(map(repr, self.values))

    def fails(self, value: Any, shape: Mapping[str, int] | None) -> bool:
        return value not in self.values


Rule = Whole | Number | Choice
KINDS = {bool: "True or False", int: "a whole number", float: "a finite number", str: "text"}


@dataclass(frozen=True)
class Declared:
    """What a keyword argument accepts: its kind (bool, int, float or str), None or not, and a range."""

    name: str
    kind: type
    optional: bool
    rule: Rule | None
    default: Any

    def wanted(self) -> str:
        text = self.rule.wanted() if self.rule is not None else KINDS[self.kind]
        return text + (" (or None)" if self.optional else "")


def _declare(name: str, hint: Any, default: Any) -> Declared | None:
    rule = None
    if typing.get_origin(hint) is Annotated:
        hint, *extras = typing.get_args(hint)
        rule = next((e for e in extras if isinstance(e, Whole | Number | Choice)), None)
    members = typing.get_args(hint) if typing.get_origin(hint) in (Union, types.UnionType) else (hint,)
    optional = type(None) in members
    kinds = [k for k in (bool, int, float, str) if k in members]
    if not kinds:
        return None
    return Declared(name, kinds[0], optional, rule, default)


def declared(func: Callable) -> dict[str, Declared]:
    """The keyword-only arguments of `func` whose type is declared (bool, int, float or str, maybe
    `| None`, maybe `Annotated` with a range), by name."""
    hints = typing.get_type_hints(func, include_extras=True)
    out = {}
    for p in inspect.signature(func).parameters.values():
        if p.kind is p.KEYWORD_ONLY and p.name in hints:
            d = _declare(p.name, hints[p.name], None if p.default is p.empty else p.default)
            if d is not None:
                out[p.name] = d
    return out


def _of_kind(kind: type, value: Any) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return is_number(value)
    return isinstance(value, str)


def check_declared(label: str, d: Declared, value: Any, shape: Mapping[str, int] | None = None) -> None:
    """Raise a ValueError that starts with `label`, the option and its value, says what is wrong and
    what to pass, unless `value` is what `d` accepts (for the model `shape`: dim, heads, depth)."""
    if value is None and d.optional:
        return
    if not _of_kind(d.kind, value):
        wrong = f"is not {KINDS[d.kind]}" + (" (or None)" if d.optional else "")
    elif d.rule is not None and d.rule.fails(value, shape):
        wrong = "is unknown" if isinstance(d.rule, Choice) else "is out of range"
    else:
        return
    wanted = d.wanted()
    if isinstance(d.rule, Whole) and d.rule.below and shape and d.rule.below in shape:
        wanted = wanted.replace(f"the model's {d.rule.below}", f"{d.rule.below}={shape[d.rule.below]}")
    why = f" ({d.rule.why})" if d.rule is not None and d.rule.why else ""
    example = f", e.g. {d.name}={d.default!r}" if d.default is not None or d.optional else ""
    raise ValueError(f"{label.format(option=f'{d.name}={value!r}')} {wrong}; pass {wanted}{why}{example}")


def boundary_cases(d: Declared, shape: Mapping[str, int]) -> list[tuple[Any, bool]]:
    """(value, accepted) at the edges of what `d` accepts for a model of this `shape`: the last value
    in and the first out at each end of the range, every choice, values of the wrong kind, and None."""
    cases: list[tuple[Any, bool]] = [(None, d.optional)]
    rule = d.rule
    if d.kind is bool:
        cases += [(True, True), (False, True), (1, False), ("yes", False)]
    elif d.kind is str:
        values = rule.values if isinstance(rule, Choice) else ("text",)
        cases += [(v, True) for v in values] + [(1, False)]
        if isinstance(rule, Choice):
            cases.append(("not-a-" + d.name, False))
    elif isinstance(rule, Whole):
        first = rule.least + (1 if rule.odd and rule.least % 2 == 0 else 0)
        cases += [(first, True), (rule.least - 1, False), (float(first), False), ("abc", False)]
        if rule.odd:
            cases += [(first + 1, False), (first + 2, True)]
        if rule.below:
            cases += [(shape[rule.below] - 1, True), (shape[rule.below], False)]
    elif d.kind is int:
        cases += [(0, True), (1.5, False), ("abc", False)]
    else:
        rule = rule if isinstance(rule, Number) else Number()
        if rule.low > -math.inf:
            inner = rule.low if rule.low_ok else math.nextafter(rule.low, math.inf)
            outer = math.nextafter(rule.low, -math.inf) if rule.low_ok else rule.low
            cases += [(inner, True), (outer, False)]
        if rule.high < math.inf:
            cases += [(math.nextafter(rule.high, -math.inf), True), (rule.high, False)]
        cases += [(math.inf, False), (-math.inf, False), (math.nan, False), ("abc", False), (True, False)]
    return cases
