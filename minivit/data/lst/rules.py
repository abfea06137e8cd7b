"""The rules of the Latin square task: every 4x4 Latin square (576), the symbol they force at a
puzzle's query, the puzzle's grade, and how many rounds of one-step deductions fill the query."""

from __future__ import annotations

import functools
import itertools

import torch
import torch.nn.functional as F
from torch import Tensor

BLANK, QUERY = 0, 5
GRADES = ("binary", "ternary", "quaternary")


@functools.cache
def latin_squares() -> Tensor:
    """Every 4x4 Latin square over symbols 1-4: [576, 16] in raster order."""
    rows = list(itertools.permutations(range(1, 5)))
    squares = []

    def extend(chosen):
        if len(chosen) == 4:
            squares.append([s for row in chosen for s in row])
            return
        for row in rows:
            if all(row[c] != other[c] for other in chosen for c in range(4)):
                extend(chosen + [row])

    extend([])
    return torch.tensor(squares)


@functools.cache
def _square_features() -> Tensor:
    """Every Latin square as one-hot (cell, symbol) features: [576, 16*4]."""
    return F.one_hot(latin_squares() - 1, 4).reshape(576, 64).float()


def _lines(q: Tensor) -> tuple[Tensor, Tensor]:
    """The other three cells of the query's row and of its column: [P, 3] each."""
    r, c = q // 4, q % 4
    k = torch.arange(4)
    row = r[:, None] * 4 + k[None, :]  # (P, 4)
    col = k[None, :] * 4 + c[:, None]
    return row[row != q[:, None]].view(-1, 3), col[col != q[:, None]].view(-1, 3)


def _symbols_in(cells: Tensor, idx: Tensor) -> Tensor:
    """Which symbols 1-4 are shown among cells idx [P, k] of puzzles cells [P, 16]: [P, 4] bool."""
    vals = cells.gather(1, idx)  # (P, k)
    return (vals[..., None] == torch.arange(1, 5)).any(1)


def forced(cells: Tensor) -> Tensor:
    """The symbol every consistent Latin square puts at the query, or 0 where none is forced: [P].

    Args:
        cells: [P, 16] puzzles (0 blank, 1-4 shown, 5 query).
    """
    features = _square_features()  # (576, 64)
    shown = F.one_hot(cells, 6)[..., 1:5].reshape(len(cells), 64).float()  # (P, 16*4): shown symbols
    # a square is consistent with a puzzle iff it agrees with every shown cell
    ok = (shown @ features.T == shown.sum(1, keepdim=True)).float()  # (P, 576)
    # how many consistent squares put each symbol at each cell, then at the query's cell
    counts = (ok @ features).view(-1, 16, 4)  # (P, 16, 4)
    q = (cells == QUERY).long().argmax(1)  # (P,)
    at_q = counts[torch.arange(len(cells)), q] > 0  # (P, 4): symbols some consistent square puts there
    return torch.where(at_q.sum(1) == 1, at_q.long().argmax(1) + 1, 0)


def deduction_rounds(cells: Tensor, most: int = 8) -> Tensor:
    """How many rounds of one-step deductions it takes to fill each puzzle's query: [P], 0 where
    `most` rounds do not (the query is then forced only through case analysis, or not at all).

    A round fills, all at once, every blank cell that is a *naked single* (its row and column
    together show the three other symbols) or a *hidden single* (the only cell of its row or of its
    column where some symbol can still go). One round solves every binary and ternary puzzle; a
    quaternary puzzle may need more, when a cell must be worked out before the query.
    """
    p = len(cells)
    values = torch.where((cells >= 1) & (cells <= 4), cells, 0).view(p, 4, 4)
    q = (cells == QUERY).long().argmax(1)
    rounds = torch.zeros(p, dtype=torch.long)
    for r in range(1, most + 1):
        shown = F.one_hot(values, 5)[..., 1:].bool()  # (P, 4, 4, 4): symbol s at (row, col)
        free = (values == 0)[..., None] & ~shown.any(2, keepdim=True) & ~shown.any(1, keepdim=True)
        naked = free.sum(-1) == 1  # (P, 4, 4)
        hidden = free & ((free.sum(2, keepdim=True) == 1) | (free.sum(1, keepdim=True) == 1))
        fill = torch.where(naked, free.float().argmax(-1) + 1, 0)
        fill = torch.where((fill == 0) & hidden.any(-1), hidden.float().argmax(-1) + 1, fill)
        values = torch.where(values == 0, fill, values)
        solved = values.view(p, 16)[torch.arange(p), q] > 0
        rounds = torch.where((rounds == 0) & solved, r, rounds)
        if not (fill > 0).any():
            break
    return rounds


def grades(cells: Tensor) -> list[str | None]:
    """Each puzzle's grade (see the module docstring), None where the query is not forced."""
    q = (cells == QUERY).long().argmax(1)
    row, col = _lines(q)
    in_row, in_col = _symbols_in(cells, row), _symbols_in(cells, col)
    binary = (in_row.sum(1) == 3) | (in_col.sum(1) == 3)
    ternary = (in_row | in_col).sum(1) == 3
    is_forced = forced(cells) > 0
    out: list[str | None] = []
    for b, t, f in zip(binary.tolist(), ternary.tolist(), is_forced.tolist(), strict=True):
        out.append("binary" if b else "ternary" if t else "quaternary" if f else None)
    return out
