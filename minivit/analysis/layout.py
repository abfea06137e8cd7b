"""How much of its grid's layout a position table [N, D] holds, each measure against a null of the
same table with the grid's cells shuffled: alignment and similarity against closeness
(`grid_recovery`), and similarity against closeness and against sharing a row or a column with
thousands of shuffles in one batched computation (`layout_tests`)."""

from __future__ import annotations

import functools

import torch
from torch import Tensor

from minivit.analysis.nulls import with_nulls
from minivit.analysis.tables import cosine_similarity, procrustes, same_row_or_column
from minivit.posenc.base import Grid, grid_coords, grid_distances


def grid_recovery(table: Tensor, grid: Grid, *, permutations: int = 1000, seed: int = 0) -> dict:
    """How much a position table [N, D] holds the layout of its grid, each measure with a null from
    the same table against the grid's cells shuffled `permutations` times (a table that knows
    nothing of the layout scores as its null does, however many dimensions it has to fit with):

        procrustes  `procrustes` score against the cells' (row, column) coordinates
        structure   `structure_score`: similarity against closeness on the grid

    Returns {measure: value, measure + "_null": [mean, 95th percentile], measure + "_p"}."""
    n = grid[0] * grid[1]
    if table.dim() != 2 or len(table) != n:
        raise ValueError(
            f"table of shape {tuple(table.shape)} for a {grid[0]}x{grid[1]} grid: give [N, D] with "
            f"N = {n} (drop prefix rows first)"
        )
    coords = grid_coords(grid)
    sim = cosine_similarity(table).double()
    closeness = -grid_distances(grid).double()
    iu = torch.triu_indices(n, n, offset=1)

    def structure(order: Tensor) -> float:
        a, b = sim[iu[0], iu[1]], closeness[order][:, order][iu[0], iu[1]]
        return torch.corrcoef(torch.stack([a, b]))[0, 1].item()

    measures = {"procrustes": lambda order: procrustes(table, coords[order])[0], "structure": structure}
    return with_nulls(measures, n, permutations, seed)


def layout_tests(table: Tensor, grid: Grid, *, permutations: int = 5000, seed: int = 0) -> dict:
    """Does a table [N, D] (or what training added to it) hold the layout of its grid? The Pearson
    correlation, over pairs of distinct cells, of the vectors' cosine similarity with

        closeness       minus the distance on the grid (`structure_score`)
        rows_columns    1 for two cells in one row or one column, else 0 (`same_row_or_column`)

    each against a null of the same table with the grid's cells shuffled `permutations` times (one
    batched computation, so thousands of shuffles cost little: a p-value can go as low as
    1 / (permutations + 1), low enough to survive a correction for many tests, `holm`).

    Returns {measure: value, measure + "_null": [mean, 95th percentile], measure + "_p": the share
    of the null at or above the value, the value itself counted}, as `grid_recovery` does."""
    n = grid[0] * grid[1]
    if table.dim() != 2 or len(table) != n:
        raise ValueError(
            f"table of shape {tuple(table.shape)} for a {grid[0]}x{grid[1]} grid: give [N, D] with "
            f"N = {n} (drop prefix rows first)"
        )
    if not isinstance(permutations, int) or permutations < 1:
        raise ValueError(f"permutations={permutations!r}: give a whole number >= 1 (e.g. 5000)")
    iu = torch.triu_indices(n, n, offset=1)
    sim = cosine_similarity(table).double()[iu[0], iu[1]]
    sim = (sim - sim.mean()) / ((sim - sim.mean()).norm() + 1e-12)
    out: dict = {}
    for name, targets in _shuffled_targets(tuple(grid), permutations, seed).items():
        r = targets @ sim  # Pearson correlation: both sides centred and of unit length
        value, null = r[0].item(), r[1:]
        out[name] = value
        out[name + "_null"] = [null.mean().item(), torch.quantile(null, 0.95).item()]
        out[name + "_p"] = ((null >= value - 1e-12).sum().item() + 1) / (permutations + 1)
    return out


@functools.lru_cache(maxsize=8)
def _shuffled_targets(grid: Grid, permutations: int, seed: int) -> dict[str, Tensor]:
    """`layout_tests`'s targets over the pairs of distinct cells, in the grid's own order (row 0) and
    under `permutations` shuffles of its cells, each centred and scaled to unit length: [1 + P, pairs].
    They do not depend on the table, so many tables share one computation."""
    n = grid[0] * grid[1]
    iu = torch.triu_indices(n, n, offset=1)
    g = torch.Generator().manual_seed(seed)
    orders = torch.rand(permutations, n, generator=g, dtype=torch.float64).argsort(-1)  # [P, N] shuffles
    orders = torch.cat([torch.arange(n)[None], orders])
    pairs = orders[:, iu[0]] * n + orders[:, iu[1]]  # the shuffled cells of each pair, as flat indices
    out = {}
    for name, target in (
        ("closeness", -grid_distances(grid).double()),
        ("rows_columns", same_row_or_column(grid)),
    ):
        t = target.flatten()[pairs]
        t = t - t.mean(-1, keepdim=True)
        out[name] = t / t.norm(dim=-1, keepdim=True)
    return out
