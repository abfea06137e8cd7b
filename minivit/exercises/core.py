"""The machinery of the exercises: a registry of checks, and the helpers they share.

A check is a function of the learner's answer that either returns what a right answer shows (one
line) or raises `Wrong(what, hint)`: what differs (a shape, a value at a position, a property that
fails) and a hint towards the idea, never the solution. Checks test behaviour, not code: they call
the learner's function on inputs of their own, or measure the property the answer must have.
"""

from __future__ import annotations

import functools
import linecache
import math
import signal
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor


class Wrong(Exception):
    """An answer that does not do what the exercise asks: `what` differs; `hint` points the way."""

    def __init__(self, what: str, hint: str):
        super().__init__(what)
        self.what, self.hint = what, hint


class Raised(Exception):
    """The learner's own function raised `error` when the check called it (see `function`): told
    apart from an error of the check itself, which `check` reports as such. `where` is the line of
    the learner's code it came from ("" when none of it is the learner's)."""

    def __init__(self, error: Exception):
        super().__init__(error)
        self.error = error
        self.where = learner_line(error.__traceback__)


class TooLong(BaseException):
    """The check ran past its time limit (see `time_limit`). A BaseException, as KeyboardInterrupt
    is, so that it passes through the learner's `except Exception` and through `function`."""


class Forbidden(BaseException):
    """The learner's function called the package's own answer to the exercise (see `function`)."""


_LIBRARY = tuple(
    str(Path(p).resolve())
    for p in {Path(__file__).parents[1], *(sysconfig.get_path(k) for k in ("stdlib", "purelib", "platlib"))}
)


def learner_line(tb) -> str:
    """The deepest line of a traceback that is the learner's own code, not minivit's, torch's or
    Python's: "answer_07_4, line 5: `x = cells[18]`"; "" when there is none."""
    found = ""
    while tb is not None:
        code = tb.tb_frame.f_code
        name = code.co_filename
        if not name.startswith("<frozen") and not str(Path(name).resolve()).startswith(_LIBRARY):
            text = linecache.getline(name, tb.tb_lineno).strip()
            found = f"{code.co_name}, line {tb.tb_lineno}" + (f": `{short(text, 80)}`" if text else "")
        tb = tb.tb_next
    return found


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Stop what runs inside after `seconds` by raising TooLong, from a timer signal: in the main
    thread of a process with SIGALRM (a notebook's kernel, a script, pytest). Elsewhere (Windows,
    another thread), or with `seconds` None, it runs without a limit. A timer already running with
    less time left is left alone; one with more is put back afterwards with what it has left."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if seconds is None or not usable:
        yield
        return
    outer = signal.getitimer(signal.ITIMER_REAL)[0]
    if 0 < outer <= seconds:
        yield
        return

    def stop(signum, frame):
        raise TooLong

    start = time.monotonic()
    handler = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, handler)
        if outer > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3))


def _refused(*args, **kwargs):
    # runs as the package function's code, with its module's globals: reach Forbidden by import
    raise __import__("minivit.exercises.core", fromlist=["Forbidden"]).Forbidden


@contextmanager
def forbidden(package_function: Callable | None) -> Iterator[None]:
    """While inside, `package_function` raises Forbidden when called, under whatever name the
    learner imported it: its code is swapped, not a module's attribute."""
    if package_function is None:
        yield
        return
    code = package_function.__code__
    package_function.__code__ = _refused.__code__
    try:
        yield
    finally:
        package_function.__code__ = code


@dataclass(frozen=True)
class Exercise:
    """One checked exercise: its id ("02.1"), what it asks in a few words, its check, and the hint
    given when the learner's own code raises an error."""

    id: str
    title: str
    run: Callable[[object], str]
    hint: str


EXERCISES: dict[str, Exercise] = {}


def exercise(exercise_id: str, title: str, *, hint: str) -> Callable:
    """Register the decorated check as exercise `exercise_id` (NN.k: lesson NN, exercise k)."""

    def register(run: Callable[[object], str]) -> Callable[[object], str]:
        if exercise_id in EXERCISES:
            raise ValueError(f"exercise {exercise_id} is registered twice")
        EXERCISES[exercise_id] = Exercise(exercise_id, title, run, hint)
        return run

    return register


@contextmanager
def seeded(seed: int = 0) -> Iterator[None]:
    """Draw from torch's global generator with `seed`, and leave its state as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def expect(ok: bool, what: str, hint: str) -> None:
    """Raise Wrong(what, hint) unless `ok`."""
    if not ok:
        raise Wrong(what, hint)


def not_none(answer: object, what: str, hint: str) -> None:
    """Raise Wrong if `answer` is None: inside a check that is what a function without `return` gave."""
    if answer is None:
        raise Wrong(
            f"the answer is None, not {what} (a function that ends without `return` gives None)", hint
        )


def number(answer: object, hint: str) -> float:
    """The answer as a finite float (a Python or NumPy number, or a one-element tensor)."""
    not_none(answer, "a number", hint)
    if isinstance(answer, bool):
        raise Wrong("the answer is True or False, not a number", hint)
    if isinstance(answer, str):
        raise Wrong(
            f"the answer is the text {short(repr(answer), 40)}, not a number (leave out the quotes)", hint
        )
    try:
        value = float(answer.item() if isinstance(answer, Tensor) else answer)  # type: ignore[arg-type]
    except (TypeError, ValueError, RuntimeError):
        raise Wrong(f"the answer is {kind(answer)}, not a number", hint) from None
    expect(math.isfinite(value), f"the answer is {value}, not a finite number", hint)
    return value


def whole(answer: object, hint: str) -> int:
    """The answer as a whole number."""
    value = number(answer, hint)
    expect(value == int(value), f"the answer is {value:g}, not a whole number", hint)
    return int(value)


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as the lessons write it: [2, 7, 7]."""
    return "[" + ", ".join(str(d) for d in shape) + "]"


def tensor(answer: object, hint: str, shape: tuple[int, ...] | None = None) -> Tensor:
    """The answer as a float64 tensor (detached), of `shape` if given.

    One rule for every exercise: axes of size 1 do not count, so an answer [P, 1] or [1, P] where
    [P] is asked is taken (and reshaped to [P]); any other shape than the one asked is refused."""
    not_none(answer, "a tensor", hint)
    try:
        t = torch.as_tensor(answer.detach() if isinstance(answer, Tensor) else answer)
    except (TypeError, ValueError, RuntimeError):
        raise Wrong(f"the answer is {kind(answer)}, not a tensor", hint) from None
    expect(t.device.type != "meta", "the answer is a tensor on the meta device, which holds no values", hint)
    expect(not t.is_complex(), "the answer holds complex numbers, not real ones", hint)
    if shape is not None:
        t = fit(t, shape, hint)
    return t.double()


def fit(t: Tensor, shape: tuple[int, ...], hint: str) -> Tensor:
    """`t` reshaped to `shape` when the two agree up to axes of size 1; else Wrong."""
    core = tuple(d for d in t.shape if d != 1)
    expect(
        core == tuple(d for d in shape if d != 1),
        f"the answer has shape {shape_text(tuple(t.shape))}, not {shape_text(shape)}",
        hint,
    )
    return t.reshape(shape)


def indices(answer: object, hint: str, n: int) -> Tensor:
    """The answer as a tensor [n] of whole numbers (int64): indices, labels or symbols."""
    t = tensor(answer, hint, (n,))
    expect(bool(torch.isfinite(t).all()), "the answer holds NaN or infinity", hint)
    expect(bool((t == t.round()).all()), "the answer holds numbers that are not whole", hint)
    return t.long()


def function(answer: object, signature: str, *, refuse: tuple[Callable, str, str] | None = None) -> Callable:
    """The answer as a function; `signature` shows how it is called. What the function raises comes
    out as `Raised`, so that `check` can tell the learner's error from one of its own.

    `refuse` = (package function, its name, hint): the package's own answer to the exercise, which
    the learner's function may neither be nor call (Wrong if it does); the check's own code still
    calls it for the values it compares with."""
    expect(
        callable(answer),
        f"the answer is {kind(answer)}, not a function",
        f"define it as `def answer_NN_k{signature}:` and pass the function itself (no parentheses)",
    )
    package_function, name, hint = refuse if refuse is not None else (None, "", "")

    @functools.wraps(answer)  # type: ignore[arg-type]
    def call(*args, **kwargs):
        try:
            with forbidden(package_function):
                return answer(*args, **kwargs)  # type: ignore[operator]
        except Forbidden:
            raise Wrong(
                f"your answer calls {name}, the package's own answer to this exercise", hint
            ) from None
        except Exception as error:
            raise Raised(error) from error

    return call


def kind(answer: object) -> str:
    """A few words on what the answer is, for a message."""
    if isinstance(answer, Tensor):
        return f"a tensor of shape {tuple(answer.shape)}"
    if callable(answer):
        return "a function"
    name = type(answer).__name__
    article = "an" if name[:1] in "aeiou" else "a"
    return f"{article} {name} ({short(repr(answer), 40)})"


def short(text: str, most: int = 160) -> str:
    """`text` on one line, cut to `most` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= most else line[: most - 1] + "…"


def worst(got: Tensor, want: Tensor) -> tuple[tuple[int, ...], float, float]:
    """Where two tensors of one shape differ most: (index, got there, wanted there)."""
    diff = (got.double() - want.double()).abs()
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
    flat = int(diff.reshape(-1).argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape))
    return index, float(got.reshape(-1)[flat]), float(want.reshape(-1)[flat])


def same(got: Tensor, want: Tensor, *, atol: float = 1e-6, rtol: float = 1e-5) -> bool:
    """Whether two tensors have one shape and agree within the tolerances."""
    return got.shape == want.shape and bool(torch.allclose(got.double(), want.double(), atol=atol, rtol=rtol))


def differs(got: Tensor, want: Tensor, name: str = "entry") -> str:
    """The message for two tensors of one shape that differ: the worst entry, got and wanted."""
    index, g, w = worst(got, want)
    return f"{name} {index} is {g:.4g} where {w:.4g} is expected"
