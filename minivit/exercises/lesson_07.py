"""Checks for lesson 07 (the initial scale, on Latin square puzzles)."""

from __future__ import annotations

import functools

import torch

from minivit.exercises.core import (
    Wrong,
    exercise,
    expect,
    function,
    indices,
    kind,
    not_none,
    shape_text,
)


@functools.cache
def _puzzles():
    """60 generated puzzles, 20 of each grade: (cells [60, 16], grades)."""
    from minivit.data import lst

    s = lst.generate(60, seed=1)
    return s.cells, s.grades


def _one_per_puzzle(answer, n: int, what: str) -> list:
    """The answer as a list of one value per puzzle: a list, a tuple, or a tensor whose rows are the
    puzzles' values."""
    hint = f"return {what} per puzzle"
    not_none(answer, "a list", hint)
    if isinstance(answer, torch.Tensor):
        expect(
            answer.ndim >= 1 and len(answer) == n,
            f"the answer has shape {shape_text(tuple(answer.shape))}, not one row per puzzle ({n})",
            hint,
        )
        return answer.tolist()
    expect(
        isinstance(answer, (list, tuple)),
        f"the answer is {kind(answer)}, not a list with one entry per puzzle",
        hint,
    )
    entries = "1 entry" if len(answer) == 1 else f"{len(answer)} entries"
    expect(len(answer) == n, f"the answer has {entries} for {n} puzzles", hint)
    return list(answer)


@exercise(
    "07.4",
    "the symbol forced at the query, by enumerating the squares",
    hint="return a tensor [P] of symbols 1-4, one per puzzle; lst.latin_squares() holds the 576 squares",
)
def _forced(answer) -> str:
    from minivit.data import lst

    f = function(answer, "(cells)")
    cells, grades = _puzzles()
    got = indices(f(cells.clone()), "return a tensor [P] of symbols 1-4, one per puzzle", len(cells))
    want = lst.forced(cells)
    wrong = (got != want).nonzero().reshape(-1).tolist()
    if wrong:
        by_grade = sorted({grades[i] for i in wrong}, key=lst.GRADES.index)
        i = wrong[0]
        raise Wrong(
            f"{len(wrong)} of {len(cells)} answers differ ({', '.join(by_grade)} puzzles), e.g. puzzle {i}: "
            f"{got[i].item()} where {want[i].item()} is forced",
            "keep the squares that agree with every shown cell (not only the query's row or column), and "
            "read the symbol they put at the query's cell",
        )
    return "every answer is the one symbol all consistent squares put at the query, whatever the grade"


def _key(k):
    if isinstance(k, torch.Tensor):
        return tuple(k.reshape(-1).tolist())
    return tuple(k) if isinstance(k, list) else k


@exercise(
    "07.5",
    "a key of each puzzle's view",
    hint="return one hashable key per puzzle (a string or a tuple), equal exactly when the views are equal",
)
def _views(answer) -> str:
    f = function(answer, "(cells)")
    base, _ = _puzzles()
    g = torch.Generator().manual_seed(0)
    pairs = {"outside": [], "row": [], "column": []}  # puzzles that differ in one cell there
    variants = []
    for p in base[:30]:
        q = int((p == 5).nonzero())
        r, c = divmod(q, 4)
        where = {
            "outside": [i for i in range(16) if i // 4 != r and i % 4 != c],
            "row": [r * 4 + k for k in range(4) if k != c],
            "column": [k * 4 + c for k in range(4) if k != r],
        }
        for name, cells in where.items():
            i = cells[int(torch.randint(len(cells), (1,), generator=g))]
            changed = p.clone()
            changed[i] = (p[i] + 1 + int(torch.randint(4, (1,), generator=g))) % 5  # another of 0-4
            pairs[name].append((len(variants), len(variants) + 1))
            variants += [p, changed]
    cells = torch.stack(variants)
    keys = [_key(k) for k in _one_per_puzzle(f(cells.clone()), len(cells), "one key")]
    try:
        equal = {name: [keys[a] == keys[b] for a, b in ab] for name, ab in pairs.items()}
    except TypeError:
        raise Wrong("the keys cannot be compared", "return strings or tuples") from None
    expect(
        all(equal["outside"]),
        "two puzzles that differ only outside the query's row and column get two keys",
        "the view is the query's cell with its row and its column: what lies elsewhere is no part of it",
    )
    expect(
        not any(equal["row"]),
        "two puzzles whose query rows differ get one key",
        "the view holds the query's row: its four cells as they are",
    )
    expect(
        not any(equal["column"]),
        "two puzzles whose query columns differ get one key",
        "the view holds the query's column too, not only its row",
    )
    return (
        "one key per view: a binary or ternary puzzle's view fixes its answer, and over half the held-out "
        "puzzles share a training puzzle's view (lst.seen_view)"
    )


@exercise(
    "07.6",
    "each puzzle's grade",
    hint='return one of "binary", "ternary", "quaternary" per puzzle',
)
def _grades(answer) -> str:
    f = function(answer, "(cells)")
    cells, want = _puzzles()
    got = _one_per_puzzle(f(cells.clone()), len(cells), "one grade")
    wrong = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    if wrong:
        i = wrong[0]
        raise Wrong(
            f"{len(wrong)} of {len(cells)} grades differ, e.g. puzzle {i}: {got[i]!r} where it is "
            f"{want[i]!r}",
            "binary: the query's row alone, or its column alone, shows the three other symbols; ternary: "
            "only the two together do; quaternary: neither",
        )
    return "binary, ternary and quaternary as lst.grades has them: how much of the grid the deduction needs"
