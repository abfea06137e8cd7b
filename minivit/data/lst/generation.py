"""Puzzles generated: cells of a random square hidden one by one while the query stays forced, in a
given mix of grades; and train, held-out and kept-apart sets, the kept-apart ones from squares
never trained on and far (Jaccard distance) from every training puzzle."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.checks import check_whole
from minivit.data.lst.rules import BLANK, GRADES, QUERY, deduction_rounds, forced, grades, latin_squares
from minivit.data.lst.sets import LSTSet


def _hide(values: Tensor, q: Tensor, removals: Tensor, g: torch.Generator) -> Tensor:
    """Hide up to `removals` cells of each solved grid, in a random order, keeping the query forced."""
    p = len(values)
    cells = values.clone()
    cells[torch.arange(p), q] = QUERY
    order = torch.rand(p, 16, generator=g).argsort(1)  # (P, 16)
    tried = torch.zeros(p, dtype=torch.long)
    for t in range(16):
        c = order[:, t]
        attempt = (c != q) & (tried < removals)
        tried += attempt.long()
        trial = cells.clone()
        trial[torch.arange(p), c] = torch.where(attempt, BLANK, trial[torch.arange(p), c])
        keep = attempt & (forced(trial) > 0)
        cells = torch.where(keep[:, None], trial, cells)
    return cells


def generate(
    n: int,
    *,
    seed: int = 0,
    squares: Sequence[int] | Tensor | None = None,
    mix: dict[str, float] | None = None,
    exclude: Iterable[str] = (),
    max_rounds: int | None = None,
) -> LSTSet:
    """`n` distinct puzzles from the given squares (indices into `latin_squares()`; default all).

    Args:
        mix: fraction of each grade (default: a third each).
        exclude: puzzle strings that must not be generated (e.g. a training set's).
        max_rounds: keep only puzzles whose query `deduction_rounds` fills within this many rounds
            (1: as in Ito et al.'s puzzle files, where every query follows from the shown cells in
            one round); None keeps every forced puzzle.
    """
    if max_rounds is not None:
        check_whole("max_rounds", max_rounds, 1)
    mix = mix or {g: 1 / 3 for g in GRADES}
    unknown = set(mix) - set(GRADES)
    if unknown:
        raise ValueError(f"unknown grades {sorted(unknown)}; known: {', '.join(GRADES)}")
    quota = {g: round(n * mix.get(g, 0)) for g in GRADES}
    quota[max(mix, key=mix.get)] += n - sum(quota.values())
    pool = torch.as_tensor(range(576) if squares is None else squares)
    g = torch.Generator().manual_seed(seed)
    seen, picked = set(exclude), {gr: [] for gr in GRADES}
    for _ in range(200):
        if all(len(picked[gr]) >= quota[gr] for gr in GRADES):
            break
        batch = 2048
        values = latin_squares()[pool[torch.randint(len(pool), (batch,), generator=g)]]
        q = torch.randint(16, (batch,), generator=g)
        removals = torch.randint(3, 16, (batch,), generator=g)
        cells = _hide(values, q, removals, g)
        if max_rounds is None:  # count rounds only when they are asked for
            within = torch.ones(len(cells), dtype=torch.bool)
        else:
            rounds = deduction_rounds(cells)
            within = (rounds > 0) & (rounds <= max_rounds)
        for row, grade, ok in zip(cells.tolist(), grades(cells), within.tolist(), strict=True):
            key = "".join(map(str, row))
            if grade and ok and key not in seen and len(picked[grade]) < quota[grade]:
                seen.add(key)
                picked[grade].append(row)
    else:
        raise RuntimeError(
            f"could not generate {quota} distinct puzzles from {len(pool)} squares; "
            "ask for fewer puzzles or allow more squares"
        )
    rows = [row for gr in GRADES for row in picked[gr]]
    perm = torch.randperm(len(rows), generator=g)
    cells = torch.tensor(rows)[perm]
    return LSTSet(cells, forced(cells), "generated")


def _features(cells: Tensor) -> Tensor:
    """Binary features of a puzzle for Jaccard distance: each (cell, shown symbol or query) pair."""
    return F.one_hot(cells, 6)[..., 1:].reshape(len(cells), -1).float()  # (n, 16*5)


def min_jaccard_distance(a: Tensor, b: Tensor, chunk: int = 4096) -> Tensor:
    """For each puzzle of `a` [n, 16], its Jaccard distance to the nearest puzzle of `b` [m, 16]."""
    fa, fb = _features(a), _features(b)
    out = []
    for i in range(0, len(fa), chunk):
        x = fa[i : i + chunk]
        inter = x @ fb.T  # (c, m)
        union = x.sum(1, keepdim=True) + fb.sum(1)[None] - inter
        out.append(1 - (inter / union).max(1).values)
    return torch.cat(out)


def splits(
    n_train: int = 8192,
    n_test: int = 1000,
    n_apart: int = 1000,
    *,
    seed: int = 0,
    apart_squares: float = 0.2,
    min_distance: float = 0.3,
    max_rounds: int | None = None,
) -> dict[str, LSTSet]:
    """Train, held-out and kept-apart puzzle sets.

    - train: puzzles from 80% of the squares;
    - test: other puzzles from the same squares (never one of the training puzzles);
    - apart: puzzles from the squares never used in training, each at Jaccard distance at least
      `min_distance` from every training puzzle (over shown (cell, symbol) pairs and the query).

    `max_rounds` is passed to `generate` for all three (1: puzzles like Ito et al.'s).
    """
    order = torch.randperm(576, generator=torch.Generator().manual_seed(seed))
    k = round(576 * apart_squares)
    apart_sq, train_sq = order[:k], order[k:]
    train = generate(n_train, seed=seed, squares=train_sq, max_rounds=max_rounds)
    test = generate(n_test, seed=seed + 1, squares=train_sq, exclude=train.strings(), max_rounds=max_rounds)
    candidates = generate(4 * n_apart, seed=seed + 2, squares=apart_sq, max_rounds=max_rounds)
    far = min_jaccard_distance(candidates.cells, train.cells) >= min_distance
    cells = candidates.cells[far]
    # keep the grade mix: take the first far puzzles of each grade in proportion
    chosen = []
    per = {gr: n_apart // 3 + (i < n_apart % 3) for i, gr in enumerate(GRADES)}
    far_grades = [gr for gr, f in zip(candidates.grades, far.tolist(), strict=True) if f]
    for gr in GRADES:
        idx = [i for i, x in enumerate(far_grades) if x == gr][: per[gr]]
        if len(idx) < per[gr]:
            raise RuntimeError(
                f"only {len(idx)} {gr} puzzles lie {min_distance} from the training set; "
                "lower min_distance or n_apart"
            )
        chosen += idx
    cells = cells[torch.tensor(sorted(chosen))]
    sets = {"train": train, "test": test, "apart": LSTSet(cells, forced(cells), "apart")}
    sets["train"].name, sets["test"].name = "train", "test"
    return sets
