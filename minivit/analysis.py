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


def procrustes(table: Tensor, reference: Tensor) -> tuple[float, Tensor]:
    """How well a table [N, D] matches a reference layout [N, k] (grid coordinates, or another table)
    up to translation, scale and an orthogonal map, and the table mapped onto the reference.

    Both are centred and scaled to unit norm; the orthogonal map W [D, k] that brings the table
    closest to the reference comes from the SVD of table^T reference (orthogonal Procrustes).

    Returns:
        score: in [0, 1]; 1 when the table is an exact rotated, scaled copy of the reference
            (1 - score^2 is scipy.spatial.procrustes's disparity).
        aligned: [N, k] the table after the map, in the reference's units (for plotting).
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


def attention_agreement(a: Tensor, b: Tensor) -> float:
    """How alike two models' attention is on the same inputs: the mean over rows of the attention
    mass both put on the same keys, sum_k min(a_k, b_k) (1 - total variation distance), in [0, 1].

    a, b: attention weights [..., N, N] of the two models, same shape.
    """
    if a.shape != b.shape:
        raise ValueError(
            f"attention maps of shapes {tuple(a.shape)} and {tuple(b.shape)}; compare the same inputs"
        )
    return torch.minimum(a.float(), b.float()).sum(-1).mean().item()


def mean_attention_distance(weights: Tensor, grid: Grid, num_prefix_tokens: int = 0) -> Tensor:
    """Mean distance (in patches) between a query patch and the patches it attends to, per head,
    averaged over queries and the batch (Dosovitskiy et al. 2021, Fig. 7): weights [B, H, P+N, P+N] -> [H].

    Prefix tokens (class token) are left out as queries and as keys.
    """
    p = num_prefix_tokens
    w = weights[..., p:, p:].float()
    w = w / w.sum(-1, keepdim=True).clamp_min(1e-12)
    dist = grid_distances(grid).to(w.device)  # (N, N)
    return (w * dist).sum(-1).mean(dim=(0, 2))
