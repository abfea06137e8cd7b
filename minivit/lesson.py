"""The one place a lesson takes its seed and its thread count from.

Every lesson starts with ``SEED = lesson.setup()``. A claim a lesson asserts must hold for any seed
and any number of threads, so both can be changed from outside without editing a lesson:

    MINIVIT_SEED=1 MINIVIT_THREADS=1 jupyter nbconvert --to notebook --execute lessons/00_why_position.ipynb

The seed check in ``make test`` runs every lesson like this (see the README's Tests section).
"""

from __future__ import annotations

import os

import torch

from minivit.config import check_whole
from minivit.train import seed_everything

DEFAULT_THREADS = 2  # the lessons' models are small: more threads only add overhead


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
