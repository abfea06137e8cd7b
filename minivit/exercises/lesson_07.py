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
    number,
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

    f = function(
        answer,
        "(cells)",
        refuse=(
            lst.forced,
            "lst.forced",
            "enumerate lst.latin_squares() yourself: keep the squares that agree with every shown cell",
        ),
    )
    cells, grades = _puzzles()
    want = lst.forced(cells)
    got = indices(f(cells.clone()), "return a tensor [P] of symbols 1-4, one per puzzle", len(cells))
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


def _view(p: list[int]) -> tuple:
    """A puzzle's view (the query's index, its row, its column), computed apart from `lst.views`."""
    q = p.index(5)
    r, c = divmod(q, 4)
    return q, tuple(p[r * 4 : r * 4 + 4]), tuple(p[c::4])


def _view_pairs(base: torch.Tensor, g: torch.Generator) -> tuple[list[list[int]], dict[str, list]]:
    """Puzzles in pairs that differ in one way each: outside the view (one view), or in the view (two
    views): a value in the query's row or column, the order of the row's or column's cells (which
    sorting, summing or dropping the blanks loses), or the query's place with the rest alike once the
    query is blanked. Returns the puzzles and, by kind, the index pairs."""

    def pick(options: list) -> object:
        return options[int(torch.randint(len(options), (1,), generator=g))]

    puzzles: list[list[int]] = []
    pairs: dict[str, list] = {k: [] for k in ("outside", "row", "column", "row order", "column order")}
    pairs["query"] = []

    def add(sort: str, a: list[int], b: list[int]) -> None:
        pairs[sort].append((len(puzzles), len(puzzles) + 1))
        puzzles.extend([a, b])

    for p in base.tolist():
        q = p.index(5)
        r, c = divmod(q, 4)
        lines = {
            "row": [r * 4 + k for k in range(4) if k != c],
            "column": [k * 4 + c for k in range(4) if k != r],
        }
        outside = [i for i in range(16) if i // 4 != r and i % 4 != c]
        for sort, cells in (("outside", outside), *lines.items()):
            i = pick(cells)
            changed = list(p)
            changed[i] = (p[i] + 1 + int(torch.randint(4, (1,), generator=g))) % 5  # another of 0-4
            add(sort, p, changed)
        for sort, cells in lines.items():
            swaps = [(i, j) for i in cells for j in cells if i < j and p[i] != p[j]]
            for blank in (True, False):  # a symbol and a blank, two symbols
                chosen = [s for s in swaps if (0 in (p[s[0]], p[s[1]])) == blank]
                if chosen:
                    i, j = pick(chosen)
                    swapped = list(p)
                    swapped[i], swapped[j] = p[j], p[i]
                    add(sort + " order", p, swapped)
        blanks = [k for k in range(4) if k != c and p[r * 4 + k] == 0]
        if blanks:  # the query moves to a blank of its row; its new column takes the old one's cells
            c2 = pick(blanks)
            moved = list(p)
            moved[q], moved[r * 4 + c2] = 0, 5
            for i in range(4):
                if i != r:
                    moved[i * 4 + c2] = p[i * 4 + c]
            add("query", p, moved)
    return puzzles, pairs


_VIEW_MISSES = {  # kind of pair: (what a key that gives both one key misses, hint)
    "row": (
        "two puzzles whose query rows differ get one key",
        "the view holds the query's row: its cells as they are",
    ),
    "column": (
        "two puzzles whose query columns differ get one key",
        "the view holds the query's column too, not only its row",
    ),
    "row order": (
        "two puzzles whose query rows hold the same symbols in another order get one key",
        "the view holds each cell of the row where it is: sorting, summing or dropping the blanks loses that",
    ),
    "column order": (
        "two puzzles whose query columns hold the same symbols in another order get one key",
        "the view holds each cell of the column where it is: sorting, summing or dropping the blanks "
        "loses that",
    ),
    "query": (
        "two puzzles whose queries sit in different cells, with the other cells of their rows and columns "
        "alike, get one key",
        "the view holds where the query is: keep its index, or its 5 in the row and the column",
    ),
}


@exercise(
    "07.5",
    "a key of each puzzle's view",
    hint="return one hashable key per puzzle (a string or a tuple), equal exactly when the views are equal",
)
def _views(answer) -> str:
    from minivit.data import lst

    f = function(
        answer,
        "(cells)",
        refuse=(
            lst.views,
            "lst.views",
            "build the key from the query's index, its row and its column yourself",
        ),
    )
    base, _ = _puzzles()
    puzzles, pairs = _view_pairs(base[:30], torch.Generator().manual_seed(0))
    cells = torch.tensor(puzzles)
    keys = [_key(k) for k in _one_per_puzzle(f(cells.clone()), len(cells), "one key")]
    try:
        equal = {sort: [keys[a] == keys[b] for a, b in ab] for sort, ab in pairs.items()}
        views_of: dict = {}
        for key, p in zip(keys, puzzles, strict=True):
            views_of.setdefault(key, set()).add(_view(p))
    except TypeError:
        raise Wrong("the keys cannot be compared", "return strings or tuples") from None
    expect(
        all(equal["outside"]),
        "two puzzles that differ only outside the query's row and column get two keys",
        "the view is the query's cell with its row and its column: what lies elsewhere is no part of it",
    )
    for sort, (what, hint) in _VIEW_MISSES.items():
        expect(not any(equal[sort]), what, hint)
    shared = next((v for v in views_of.values() if len(v) > 1), None)
    expect(
        shared is None,
        f"{len(shared or ())} puzzles with different views get one key",
        "the key must tell every view apart: the query's index, and its row and column cell by cell",
    )
    expect(
        len(views_of) == len({_view(p) for p in puzzles}),
        "two puzzles with one view get two keys",
        "the key must depend on the view alone",
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
    from minivit.data import lst

    f = function(
        answer,
        "(cells)",
        refuse=(
            lst.grades,
            "lst.grades",
            "grade each puzzle from the symbols its query's row and column show",
        ),
    )
    cells, want = _puzzles()
    got = _one_per_puzzle(f(cells.clone()), len(cells), "one grade")
    wrong = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    if wrong:
        i = wrong[0]
        mixed = sorted({want[j] for j in wrong}, key=lst.GRADES.index)
        raise Wrong(
            f"{len(wrong)} of {len(cells)} grades differ ({', '.join(mixed)} puzzles), e.g. puzzle {i}: "
            f"{got[i]!r} where it is {want[i]!r}",
            "reread the grades' definition in the lesson, then print one of these puzzles' row and column "
            "and the different symbols each shows, and the two together",
        )
    return "binary, ternary and quaternary as lst.grades has them: how much of the grid the deduction needs"


def _shown(p: list[int]) -> set[tuple[int, int]]:
    """A puzzle's (cell, value) pairs: the shown symbols 1-4 and the query, 5."""
    return {(i, v) for i, v in enumerate(p) if v != 0}


def _jaccard_pairs() -> list[tuple[str, list[int], list[int]]]:
    """Pairs of puzzles from one Latin square and from two, with their queries at one cell or two."""
    from minivit.data import lst

    squares = lst.latin_squares()
    g = torch.Generator().manual_seed(3)
    out = []
    for name, (s, t), (qa, qb) in (
        ("two puzzles of one square, one query cell", (0, 0), (5, 5)),
        ("two puzzles of one square, two query cells", (7, 7), (0, 15)),
        ("puzzles of two squares", (11, 300), (6, 9)),
        ("puzzles of two squares, one query cell", (40, 41), (12, 12)),
    ):
        a, b = squares[s].tolist(), squares[t].tolist()
        a = [v if torch.rand(1, generator=g).item() < 0.5 else 0 for v in a]
        b = [v if torch.rand(1, generator=g).item() < 0.7 else 0 for v in b]
        a[qa], b[qb] = 5, 5
        out.append((name, a, b))
    out.append(("a puzzle and itself", out[0][1], out[0][1]))
    return out


@exercise(
    "07.7",
    "the Jaccard distance of two puzzles",
    hint="return a number: 1 − |A ∩ B| / |A ∪ B|, A and B the (cell, value) pairs each puzzle shows",
)
def _jaccard(answer) -> str:
    from minivit.data import lst

    f = function(
        answer,
        "(a, b)",
        refuse=(
            lst.min_jaccard_distance,
            "lst.min_jaccard_distance",
            "write the sets of (cell, value) pairs yourself: a shown symbol 1-4 or the query 5, never a "
            "blank",
        ),
    )
    form = "return the distance, one number from 0 to 1"
    for pair, a, b in _jaccard_pairs():
        got = number(f(torch.tensor(a), torch.tensor(b)), form)
        sa, sb = _shown(a), _shown(b)
        want = 1 - len(sa & sb) / len(sa | sb)
        if abs(got - want) <= 1e-6:
            continue
        expect(
            abs(got - (1 - want)) > 1e-6,
            f"for {pair} you give {got:.4f}: the similarity, not the distance",
            "the distance is 1 minus the share of shared pairs",
        )
        everything = {(i, v) for i, v in enumerate(a)}, {(i, v) for i, v in enumerate(b)}
        expect(
            abs(got - (1 - len(everything[0] & everything[1]) / len(everything[0] | everything[1]))) > 1e-6,
            f"for {pair} you give {got:.4f}: your sets hold the blank cells too",
            "a puzzle shows its symbols and its query; a blank cell shows nothing, and two puzzles that "
            "leave one cell blank share nothing there",
        )
        symbols = [{(i, v) for i, v in enumerate(p) if 1 <= v <= 4} for p in (a, b)]
        expect(
            abs(got - (1 - len(symbols[0] & symbols[1]) / len(symbols[0] | symbols[1]))) > 1e-6,
            f"for {pair} you give {got:.4f}: the query is left out",
            "the query's cell is a pair (cell, 5) too: two puzzles that ask at one cell share it",
        )
        raise Wrong(
            f"for {pair} you give {got:.4f}, the distance is {want:.4f}",
            "each puzzle is a set of (cell, value) pairs, value 1-4 or 5 for the query; a pair is shared "
            "when both puzzles show the same value in the same cell",
        )
    return (
        "puzzles of one square that show different cells are far apart too; a study puzzle at 0.8 or more "
        "shares at most a fifth of the pairs with its nearest generated puzzle"
    )
