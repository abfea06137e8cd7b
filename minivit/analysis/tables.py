"""Position tables and the grid they are laid on: how alike two positions' vectors are, how far apart
two cells are, and how much of the grid's layout a table [N, D] holds: a correlation of similarity
with closeness, and an alignment with the grid up to rotation and scale (orthogonal Procrustes)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.posenc.base import Grid, grid_coords, grid_distances


def cosine_similarity(table: Tensor) -> Tensor:
    """Cosine similarity between every pair of position vectors: table [N, D] -> [N, N]."""
    t = F.normalize(table.detach().float(), dim=-1)
    return t @ t.T


def same_row_or_column(grid: Grid) -> Tensor:
    """1 where two cells share a row or a column of the grid, else 0: [N, N] (a Latin square's
    structure: the cells whose symbols must differ from each other)."""
    rc = grid_coords(grid)
    return ((rc[:, None, 0] == rc[None, :, 0]) | (rc[:, None, 1] == rc[None, :, 1])).double()


def structure_score(table: Tensor, grid: Grid) -> float:
    """How much a position table reflects the 2-D layout: the Pearson correlation, over all pairs of
    distinct positions, between their cosine similarity and minus their distance on the grid.

    About 0 for a random table; near 1 when nearby positions have similar vectors and far ones
    dissimilar.
    """
    n = grid[0] * grid[1]
    if table.shape[0] != n:
        raise ValueError(
            f"table has {table.shape[0]} rows, grid {grid[0]}x{grid[1]} has {n} positions; "
            "drop prefix (class token) rows first"
        )
    iu = torch.triu_indices(n, n, offset=1)
    sim = cosine_similarity(table)[iu[0], iu[1]]
    dist = -grid_distances(grid)[iu[0], iu[1]].to(sim.device)
    sim, dist = sim - sim.mean(), dist - dist.mean()
    return (sim @ dist / (sim.norm() * dist.norm() + 1e-12)).item()


def procrustes(table: Tensor, reference: Tensor) -> tuple[float, Tensor]:
    """How well a table [N, D] matches a reference layout [N, k] (grid coordinates, or another table)
    up to translation, scale and an orthogonal map, and the table mapped onto the reference.

    Both are centred and scaled to unit norm; the orthogonal map W [D, k] that brings the table
    closest to the reference comes from the SVD of table^T reference (orthogonal Procrustes).

    Returns:
        score: in [0, 1]; 1 when the table is an exact rotated, scaled copy of the reference
            (1 - score^2 is scipy.spatial.procrustes's disparity).
        aligned: [N, k] the table after the map, in the reference's units (for plotting).

    The one SVD is the method; `scipy.linalg.orthogonal_procrustes` wants both of one shape [N, D].
    """
    if table.shape[0] != reference.shape[0]:
        raise ValueError(
            f"table has {table.shape[0]} rows, reference {reference.shape[0]}; "
            "drop prefix (class token) rows first"
        )
    x = table.detach().double()
    y = reference.detach().double()
    x, y_mean = x - x.mean(0), y.mean(0)
    y = y - y_mean
    x_norm, y_norm = x.norm(), y.norm()
    x, y = x / (x_norm + 1e-12), y / (y_norm + 1e-12)
    u, s, vh = torch.linalg.svd(x.T @ y, full_matrices=False)  # (D, r), (r,), (r, k)
    score = s.sum().item()
    aligned = score * (x @ u @ vh) * y_norm + y_mean
    return score, aligned.float()
