"""Helpers for the exercises' tests: the worked solutions of `solutions/` as functions, the same
answers in other forms, and the building blocks of the answers in `tests/exercise_answers.py`."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def solutions() -> dict[str, tuple[str, str]]:
    """{exercise id: (its file, the code of its section)} from solutions/NN_*.md, where each section
    is headed "## NN.k" and its ```python blocks, run in order, define answer_NN_k."""
    found = {}
    for md in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.md")):
        for m in re.finditer(r"^## (\d\d\.\d+)\b(.*?)(?=^## |\Z)", md.read_text(), re.S | re.M):
            code = "\n".join(re.findall(r"```python\n(.*?)```", m.group(2), re.S))
            found[m.group(1)] = (md.name, code)
    return found


def solution(exercise_id: str):
    name, code = solutions()[exercise_id]
    namespace: dict = {}
    exec(compile(code, f"solutions/{name} ({exercise_id})", "exec"), namespace)
    return namespace["answer_" + exercise_id.replace(".", "_")]


def solution_as(exercise_id: str, change):
    """The worked solution of `exercise_id` with `change` applied to what it returns."""
    f = solution(exercise_id)
    return lambda *args: change(f(*args))


def as_float32(t):
    return torch.as_tensor(t).float()


def as_list(t):
    return torch.as_tensor(t).tolist()


def as_numpy(t):
    return torch.as_tensor(t).detach().numpy()


def block_m(
    a: torch.Tensor, b: torch.Tensor, *, symmetric: bool = False, halves: bool = False
) -> torch.Tensor:
    """An M [32, 32] of 2×2 blocks [[a, b], [−b, a]] on the channel pairs (2i, 2i + 1); `symmetric`
    makes them [[a, b], [b, a]], `halves` puts them on the pairs (i, i + 16) instead."""
    m = torch.zeros(32, 32, dtype=torch.float64)
    for i in range(16):
        x, y = (i, i + 16) if halves else (2 * i, 2 * i + 1)
        m[x, x], m[y, y], m[x, y] = a[i], a[i], b[i]
        m[y, x] = b[i] if symmetric else -b[i]
    return m


def cell_one_hot(cell: int = 2, column_major: bool = False) -> torch.Tensor:
    """One-hot [36, cells] of each position's cell on the 6×6 grid, cells of cell × cell patches."""
    rc = torch.cartesian_prod(torch.arange(6), torch.arange(6))
    side = 6 // cell
    r, c = rc[:, 0] // cell, rc[:, 1] // cell
    index = c * side + r if column_major else r * side + c
    return F.one_hot(index, side * side).float()


def puzzle_lines(p: list[int]) -> tuple[int, list[int], list[int]]:
    """A puzzle's query index, its row and its column."""
    q = p.index(5)
    r, c = divmod(q, 4)
    return q, p[r * 4 : r * 4 + 4], p[c::4]


def view_key(p, *, index=True, sort=False, blanks=True, sums=False, flat=False, query=True):
    """A key of a puzzle's view, right with the defaults; each option a learner's slip."""
    q, row, col = puzzle_lines(p)
    if not query:  # the query made blank: where it was is lost
        row, col = [0 if x == 5 else x for x in row], [0 if x == 5 else x for x in col]
    if not blanks:
        row, col = [x for x in row if x], [x for x in col if x]
    if sort:
        row, col = sorted(row), sorted(col)
    if sums:
        return sum(row) * 100 + sum(col) * 10 + q if flat else (q, sum(row), sum(col))
    return (q, tuple(row), tuple(col)) if index and query else (tuple(row), tuple(col))


def leading(power: int = 2):
    """t^power / 2 (AB − BA): the leading term at power 2."""
    return lambda a, b, t: t**power / 2 * (a @ b - b @ a)


def mixup(
    *, swap=False, partner="reversed", over_classes=False, lam=None, combine=None, scale=1.0, dtype=None
):
    """Mixed targets, right with the defaults; each option a learner's slip."""

    def answer(labels, lam_, classes):
        a = lam_ if lam is None else lam
        own = F.one_hot(labels, classes).double()
        other = {"reversed": own.flip(0), None: own}[partner]
        if over_classes:
            other = own.flip(1)
        x, y = ((1 - a) * own, a * other) if swap else (a * own, (1 - a) * other)
        out = (combine(x, y) if combine is not None else x + y) * scale
        return out.to(dtype) if dtype is not None else out

    return answer


def within_offsets(denominator: str = "variance", group: str = "both"):
    """The share of the score variance left within offsets, by hand; each option a learner's slip."""

    def answer(scores, grid):
        rc = torch.cartesian_prod(torch.arange(grid[0]), torch.arange(grid[1]))
        off = rc[:, None, :] - rc[None, :, :]
        key = off[..., 0] * 100 + off[..., 1] if group == "both" else off[..., 0]
        s = scores.double().reshape(-1)
        keys = key.reshape(-1)
        means = torch.zeros_like(s)
        for k in keys.unique():
            means[keys == k] = s[keys == k].mean()
        left = ((s - means) ** 2).mean()
        total = {
            "variance": s.var(unbiased=False),
            "mean square": (s**2).mean(),
            "std": s.std(unbiased=False),
        }
        return (left / total[denominator]).item()

    return answer
