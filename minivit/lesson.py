"""The one place a lesson takes its seed and its thread count from.

Every lesson starts with ``SEED = lesson.setup()``. A claim a lesson asserts must hold for any seed
and any number of threads, so both can be changed from outside without editing a lesson:

    MINIVIT_SEED=1 MINIVIT_THREADS=1 jupyter nbconvert --to notebook --execute lessons/00_why_position.ipynb

The seed check in ``make test`` runs every lesson like this (see the website's Tests page, ``docs/tests.md``).

``REPOSITORY`` is the one place the course's GitHub repository is named. Each lesson's Colab badge
and install cell must name it too (they run before the package is installed; a test checks they
agree); a fork re-points all of them at once:

    python -m minivit.lesson repoint OWNER/NAME

``claim(name, value, op, bound)`` is the assert of a claim about a trained model, and it knows its
margin (how far the value is from the bound, on the passing side). What a claim that misses does
depends on who runs the lesson:

- a learner (the default): the claim prints one warning block (the claim, this run's value, the
  bound, what the recorded sweep saw, and what a miss means) and the lesson goes on, so a run that
  took another route does not stop "Run all" before the explorers and exercises;
- the checks (``MINIVIT_STRICT=1``, which ``make test`` sets): it raises ``AssertionError``, as
  ``assert`` does;
- the margin sweep (``MINIVIT_CLAIMS=FILE``): every claim appends one JSON line to FILE and does
  not raise; ``benchmarks/claims.py`` runs each lesson over many seeds and thread counts and
  tabulates every claim's runs passed, smallest and median margin (``lessons/CLAIMS.md``, and
  ``minivit/experiments/recorded/claims.json``, which the warning block quotes).
"""

from __future__ import annotations

import json
import math
import operator
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

import torch

from minivit import nulls
from minivit.checks import check_whole
from minivit.devices import prefer_device
from minivit.train import seed_everything

DEFAULT_THREADS = 2  # the lessons' models are small: more threads only add overhead
REPOSITORY = "minivit-course/minivit"  # GitHub owner/name: the Colab badges and install cells
LESSONS = Path(__file__).resolve().parents[1] / "lessons"


def _read(name: str, default: int, *, least: int, most: int, why: str = "") -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(
            f"{name}={text!r} is not a whole number; use an integer >= {least} and <= {most}"
        ) from None
    try:
        check_whole(name, value, least, most)
    except ValueError as err:
        raise ValueError(f"{err}{why}") from None
    return value


def seed() -> int:
    """The lessons' seed: ``MINIVIT_SEED`` from the environment, or 0 (NumPy takes at most 2**32 - 1)."""
    return _read("MINIVIT_SEED", 0, least=0, most=2**32 - 1)


def threads() -> int:
    """The lessons' torch thread count: ``MINIVIT_THREADS`` from the environment, or 2; at most
    this machine's cores (more threads than cores only wait for each other), or 2 on a machine with
    fewer, so that the course's own settings run everywhere."""
    cores = os.cpu_count() or 1
    most = max(cores, DEFAULT_THREADS)
    return _read(
        "MINIVIT_THREADS", DEFAULT_THREADS, least=1, most=most, why=f" (this machine has {cores} cores)"
    )


def claims_file() -> Path | None:
    """Where ``MINIVIT_CLAIMS`` asks claims to be recorded (None: not set), or a ValueError if no
    file can be written there, said before the lesson trains anything."""
    text = os.environ.get("MINIVIT_CLAIMS", "").strip()
    if not text:
        return None
    path = Path(text)
    if path.is_dir():
        raise ValueError(
            f"MINIVIT_CLAIMS={text!r} is a folder; name a file in it, e.g. {path / 'claims.jsonl'}"
        )
    if not path.parent.is_dir():
        raise ValueError(
            f"MINIVIT_CLAIMS={text!r}: its folder {path.parent} does not exist; create it or name a file "
            "in an existing folder"
        )
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"MINIVIT_CLAIMS={text!r} cannot be written; name a file you can write to")
    return path


def setup(device: str | None = "cpu") -> int:
    """Seed Python, NumPy and torch and set torch's thread count, both read from the environment, and
    choose where the lesson trains.

    Args:
        device: where every `fit` and `train` of the lesson runs (`minivit.devices.prefer_device`):
            the CPU by default, also on a machine with a GPU (Colab's) or an Apple chip (mps), so
            that the lesson's tensors and models share a device and its claims hold as they were
            swept; None for the best available (lesson 09, which shows what a GPU does).

    Returns:
        the seed, for the lesson to derive its data and training seeds from.
    """
    chosen, count = seed(), threads()  # every variable checked before anything is set
    claims_file()
    strict()
    nulls.kind()  # MINIVIT_NULL: a null run (benchmarks/claims.py --null)
    prefer_device(device)
    seed_everything(chosen)
    torch.set_num_threads(count)
    return chosen


OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def strict() -> bool:
    """Whether a claim that misses raises (``MINIVIT_STRICT=1``, as the checks run) or explains
    itself and lets the lesson go on (unset or 0, as a learner runs a lesson)."""
    text = os.environ.get("MINIVIT_STRICT", "").strip()
    if text not in ("", "0", "1"):
        raise ValueError(
            f"MINIVIT_STRICT={text!r}: use 1 (a claim that misses raises) or 0 (it explains itself "
            "and the lesson goes on)"
        )
    return text == "1"


class ClaimMissed(UserWarning):
    """A lesson's claim missed on this run (outside a notebook, where the warning block is not drawn)."""


def recorded_runs(name: str) -> list[dict]:
    """What the margin sweep saw of the claim called `name`: one entry per lesson that makes it,
    {"lesson", "op", "bound", "passed", "runs", "low", "high"} (empty if the sweep never ran it)."""
    from minivit.experiments import recorded

    try:
        sweep = recorded("claims.json")
    except (OSError, ValueError):  # missing or damaged: the block says only what this run saw
        return []
    return [
        {"lesson": lesson, **claims[name]}
        for lesson, claims in sweep.get("lessons", {}).items()
        if isinstance(claims, dict) and isinstance(claims.get(name), dict)
    ]


def explanation(record: dict) -> str:
    """The text a learner sees when a claim misses: the claim, this run's value and bound, what the
    recorded sweep saw, and what it means."""
    where = f" (at {record['label']})" if record["label"] else ""
    lines = [
        f"This run falls outside a claim of the lesson: {record['name']}.",
        f"  this run: {record['value']:.4g}{where}; the claim: {record['op']} {record['bound']:.4g}.",
    ]
    for seen in recorded_runs(record["name"]):
        lines.append(
            f"  the recorded sweep ({seen['lesson']}): passed {seen['passed']} of {seen['runs']} runs, "
            f"values from {seen['low']:.4g} to {seen['high']:.4g}."
        )
    lines += [
        "What it means: training is random, and this run (its seed, thread count or machine) took",
        "another route than the runs the text describes. The text describes the usual route; look at",
        "this run's numbers above with that in mind. The lesson goes on. (Set MINIVIT_STRICT=1 to",
        "make a missed claim stop the lesson, as the course's own checks do.)",
    ]
    return "\n".join(lines)


def _in_a_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def _explain(record: dict) -> None:
    """Show `record`'s explanation: a warning block in JupyterLab and Colab, a warning elsewhere."""
    import warnings

    text = explanation(record)
    if _in_a_notebook():
        from html import escape

        from IPython.display import display

        head, *rest = text.split("\n")
        body = "<br>".join(escape(line.strip()) for line in rest)
        html = (
            '<div style="border-left: 6px solid #d97706; background: #fff7e6; color: #3b2a00; '
            'padding: 8px 12px; margin: 4px 0; font-family: sans-serif;">'
            f"<b>&#9888; {escape(head)}</b><br>{body}</div>"
        )
        display({"text/html": html, "text/plain": "WARNING: " + text}, raw=True)
    else:
        warnings.warn(text, ClaimMissed, stacklevel=3)


def margin(value: float, op: str, bound: float) -> float:
    """How far `value` is from `bound` on the side `op` asks for (negative: the claim fails)."""
    return value - bound if op in (">", ">=") else bound - value


def _number(value) -> float:
    """A float from a Python or NumPy number or a one-element tensor (one that needs grad too)."""
    if hasattr(value, "detach"):
        value = value.detach()
    return float(value)


def _claimed(name: str, value, label=None, what: str = "value") -> float:
    """`_number(value)`, or a ValueError naming the claim, the label and what was given instead."""
    try:
        return _number(value)
    except (TypeError, ValueError, RuntimeError):
        at = f" at {label!r}" if label is not None else ""
        shown = repr(value) if len(repr(value)) <= 60 else f"a {type(value).__name__}"
        raise ValueError(
            f"claim {name!r}: the {what}{at} is {shown}, not a number; pass a number (Python, NumPy or "
            "a one-element tensor)"
        ) from None


ABOUT = ("task", "training", "absence", "untrained")  # what a claim is about (see `claim`)


def claim(name: str, value, op: str, bound, *, about: str = "task") -> None:
    """Assert ``value op bound`` (op one of > >= < <=) for the claim called `name`.

    Args:
        name: the claim in a few words, as the lesson's claims index names it.
        value: a number (Python, NumPy or a one-element tensor), or several that must all clear the
            bound: a mapping {label: number} (the failing label is named) or a sequence of numbers. An
            empty mapping or sequence (nothing qualified to be checked) is a claim that misses.
        op: ">", ">=", "<" or "<=".
        bound: the number the value (every value) must clear.
        about: what the claim is about, which says what null it must fail (``benchmarks/claims.py
            --null``, `minivit.nulls`): "task" (the default: an effect of learning the task; it must
            fail when every training's labels are shuffled), "training" (what any training does, on
            shuffled labels too, e.g. weights moving; the lesson says so, and its null is the
            untrained model), "absence" (that something does not happen, e.g. a model stays at chance:
            a null passes it too, and a control in the lesson that does learn gives it its meaning) or
            "untrained" (about random draws, untrained models or what an operation does to any model:
            training is not its cause).

    Returns nothing, as ``assert`` does, so a cell that ends with a claim shows no value (a value
    that changes with the seed would be an output the seed check compares).

    A claim that misses explains itself and returns (a warning block in a notebook, a
    ``ClaimMissed`` warning elsewhere), so the lesson goes on; with ``MINIVIT_CLAIMS`` set the result
    is appended to that file as a JSON line instead, so that a sweep sees every claim of a run.

    Raises:
        AssertionError: the claim fails and ``MINIVIT_STRICT=1`` (its name, the worst value, the
            bound and the margin in the message).
    """
    if op not in OPS:
        raise ValueError(f"claim {name!r}: op {op!r} is not one of {', '.join(OPS)}")
    if about not in ABOUT:
        raise ValueError(f"claim {name!r}: about={about!r} is not one of {', '.join(ABOUT)}")
    if isinstance(value, Mapping):
        values = {str(k): _claimed(name, v, k) for k, v in value.items()}
    elif isinstance(value, (list, tuple)) or (hasattr(value, "numel") and value.numel() > 1):
        values = {str(i): _claimed(name, v, i) for i, v in enumerate(value)}
    else:
        values = {"": _claimed(name, value)}
    if not values:  # e.g. "every model that learned the axis ..." when none did: the claim cannot be shown
        values = {"nothing to check": math.nan}
    bound = _claimed(name, bound, what="bound")
    label, worst = min(
        values.items(), key=lambda kv: margin(kv[1], op, bound) if math.isfinite(kv[1]) else -math.inf
    )
    passed = math.isfinite(worst) and OPS[op](worst, bound)
    gap = margin(worst, op, bound) if math.isfinite(worst) else -math.inf
    record = {"name": name, "value": worst, "label": label, "op": op, "bound": bound,
              "margin": gap, "passed": passed, "about": about}  # fmt: skip
    path = claims_file()
    if path is not None:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")
    elif not passed and strict():
        where = f" (at {label})" if label else ""
        raise AssertionError(
            f"{name}: {worst:.4g}{where} {op} {bound:.4g} is false (margin {record['margin']:.3g})"
        )
    elif not passed:
        _explain(record)


def links(text: str) -> set[str]:
    """The repositories (owner/name) a lesson's text links to: Colab badges and pip installs."""
    pattern = (
        r"(?:colab\.research\.google\.com/github|git\+https://github\.com)/([\w.-]+/[\w.-]+?)(?:/|\"|\\|$)"
    )
    return set(re.findall(pattern, text))


def repoint(repository: str, lessons: Path = LESSONS, source: Path = Path(__file__)) -> list[Path]:
    """Point every lesson's Colab badge and install cell (both files of each pair) and
    ``REPOSITORY`` (in `source`, this file) at `repository` ("owner/name"); returns the files changed."""
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        raise ValueError(f"repository {repository!r} is not OWNER/NAME (e.g. {REPOSITORY})")
    changed = []
    files = sorted(lessons.glob("[0-9][0-9]_*.py")) + sorted(lessons.glob("[0-9][0-9]_*.ipynb"))
    for path in [*files, source]:
        text = path.read_text()
        new = text
        for old in links(text) | ({REPOSITORY} if path == source else set()):
            new = new.replace(f"github/{old}/", f"github/{repository}/")
            new = new.replace(f"github.com/{old}", f"github.com/{repository}")
            new = new.replace(f'REPOSITORY = "{old}"', f'REPOSITORY = "{repository}"')
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "repoint":
        print("usage: python -m minivit.lesson repoint OWNER/NAME", file=sys.stderr)
        sys.exit(2)
    try:
        changed = repoint(sys.argv[2])
    except ValueError as err:  # before any file is read or written
        print(f"python -m minivit.lesson repoint: error: {err}", file=sys.stderr)
        sys.exit(2)
    for path in changed:
        print(f"re-pointed {path}")
