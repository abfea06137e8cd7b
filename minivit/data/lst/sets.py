"""Puzzles as a dataset: one-hot images [n, 6, 4, 4] with answers, their cells and grades; and each
puzzle's view (its query cell with its row and column), which decides a binary or a ternary puzzle."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.utils.data import TensorDataset

from minivit.data.lst.rules import GRADES, QUERY, grades


class LSTSet(TensorDataset):
    """Puzzles as images [n, 6, 4, 4] with answers [n] (0-3 for symbols 1-4), their cells [n, 16]
    and grades."""

    classes = ["1", "2", "3", "4"]

    def __init__(self, cells: Tensor, answers: Tensor, name: str = "lst"):
        super().__init__(to_images(cells), answers - 1)
        self.cells, self.name = cells, name
        self.grades = grades(cells)

    def strings(self) -> list[str]:
        return ["".join(map(str, row)) for row in self.cells.tolist()]

    def __repr__(self) -> str:
        counts = {g: self.grades.count(g) for g in GRADES}
        return f"LSTSet({self.name!r}, n={len(self.cells)}, {counts})"


def to_images(cells: Tensor) -> Tensor:
    """Puzzles [n, 16] -> one-hot images [n, 6, 4, 4] over (blank, 1, 2, 3, 4, query)."""
    return F.one_hot(cells, 6).permute(0, 2, 1).reshape(len(cells), 6, 4, 4).float()


def views(cells: Tensor) -> list[str]:
    """Each puzzle's view [n, 16] -> strings "q:row:column": its query cell with the contents of its
    row and its column (digits as in `cells`). The view decides a binary or a ternary puzzle (two
    such puzzles with one view have one answer, whatever the rest of their grids shows); a
    quaternary one also needs cells outside it."""
    q = (cells == QUERY).float().argmax(1)
    r, c = q // 4, q % 4
    k = torch.arange(4)
    rows = cells.gather(1, r[:, None] * 4 + k)
    cols = cells.gather(1, k * 4 + c[:, None])
    return [
        f"{qi}:{''.join(map(str, ri))}:{''.join(map(str, ci))}"
        for qi, ri, ci in zip(q.tolist(), rows.tolist(), cols.tolist(), strict=True)
    ]


def seen_view(cells: Tensor, train: Tensor) -> Tensor:
    """For each puzzle of `cells`, whether some puzzle of `train` has its view (`views`): [n] bool."""
    known = set(views(train))
    return torch.tensor([v in known for v in views(cells)], dtype=torch.bool)
