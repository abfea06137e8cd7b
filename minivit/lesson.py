"""The one place a lesson takes its seed and its thread count from.

Every lesson starts with ``SEED = lesson.setup()``. A claim a lesson asserts must hold for any seed
and any number of threads, so both can be changed from outside without editing a lesson:

    MINIVIT_SEED=1 MINIVIT_THREADS=1 jupyter nbconvert --to notebook --execute lessons/00_why_position.ipynb

The seed check in ``make test`` runs every lesson like this (see the README's Tests section).

``REPOSITORY`` is the one place the course's GitHub repository is named. Each lesson's Colab badge
and install cell must name it too (they run before the package is installed; a test checks they
agree); a fork re-points all of them at once:

    python -m minivit.lesson repoint OWNER/NAME
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import torch

from minivit.checks import check_whole
from minivit.train import seed_everything

DEFAULT_THREADS = 2  # the lessons' models are small: more threads only add overhead
REPOSITORY = "minivit-course/minivit"  # GitHub owner/name: the Colab badges and install cells
LESSONS = Path(__file__).resolve().parents[1] / "lessons"


def _read(name: str, default: int, *, least: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a whole number; use an integer >= {least}") from None
    check_whole(name, value, least)
    return value


def seed() -> int:
    """The lessons' seed: ``MINIVIT_SEED`` from the environment, or 0."""
    return _read("MINIVIT_SEED", 0, least=0)


def threads() -> int:
    """The lessons' torch thread count: ``MINIVIT_THREADS`` from the environment, or 2."""
    return _read("MINIVIT_THREADS", DEFAULT_THREADS, least=1)


def setup() -> int:
    """Seed Python, NumPy and torch and set torch's thread count, both read from the environment.

    Returns:
        the seed, for the lesson to derive its data and training seeds from.
    """
    chosen = seed()
    seed_everything(chosen)
    torch.set_num_threads(threads())
    return chosen


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
        sys.exit("usage: python -m minivit.lesson repoint OWNER/NAME")
    for path in repoint(sys.argv[2]):
        print(f"re-pointed {path}")
