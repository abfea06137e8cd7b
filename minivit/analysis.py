"""Measurements on encodings and attention: similarity of position vectors, how much 2-D structure
a table holds, attention entropy, and attention at another softmax temperature."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.posenc.base import Grid, grid_coords


def cosine_similarity(table: Tensor) -> Tensor:
    """Cosine similarity between every pair of position vectors: table [N, D] -> [N, N]."""
    t = F.normalize(table.detach().float(), dim=-1)
    return t @ t.T


def grid_distances(grid: Grid) -> Tensor:
    """Euclidean distance between every pair of grid cells, in patches: [N, N]."""
    rc = grid_coords(grid)
    return torch.cdist(rc, rc)


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
    dist = -grid_distances(grid)[iu[0], iu[1]]
    sim, dist = sim - sim.mean(), dist - dist.mean()
    return (sim @ dist / (sim.norm() * dist.norm() + 1e-12)).item()


def entropy(weights: Tensor) -> Tensor:
    """Entropy (nats) of each attention row: weights [..., N] -> [...]. log N means uniform."""
    w = weights.clamp_min(1e-12)
    return -(w * w.log()).sum(-1)


def with_temperature(weights: Tensor, temperature: float) -> Tensor:
    """Attention rows softmax(l) turned into softmax(l / T) without the logits: w^(1/T), renormalised."""
    w = weights.clamp_min(1e-30) ** (1.0 / temperature)
    return w / w.sum(-1, keepdim=True)


def uniform_entropy(n: int) -> float:
    """Entropy of a uniform distribution over n tokens."""
    return math.log(n)


def offset_locality(tables: Tensor) -> Tensor:
    """How much each head's offset table [H, 2R_h + 1, 2R_w + 1] favours near offsets: the
    correlation between its entries and minus the length of the offset. > 0: nearby keys score higher."""
    h, a, b = tables.shape
    dy = torch.arange(a, dtype=torch.float32) - (a - 1) / 2
    dx = torch.arange(b, dtype=torch.float32) - (b - 1) / 2
    near = -(dy[:, None] ** 2 + dx[None, :] ** 2).sqrt().reshape(-1)
    near = near - near.mean()
    t = tables.detach().float().reshape(h, -1)
    t = t - t.mean(1, keepdim=True)
    return (t @ near) / (t.norm(dim=1) * near.norm() + 1e-12)
