"""Attention statistics: the entropy of a row, a row at another softmax temperature, how alike two
models' attention is, and how far a patch looks (mean attention distance, Dosovitskiy et al. 2021,
arXiv 2010.11929, Fig. 7)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
from torch import Tensor

from minivit.analysis.trace import inspecting
from minivit.posenc.base import Grid, grid_distances

if TYPE_CHECKING:
    from minivit.model import ViT


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

    Prefix tokens (class token) are left out as queries and as keys: each patch query's attention
    over the patches is renormalised to sum to 1.
    """
    p = num_prefix_tokens
    w = weights[..., p:, p:].float()
    w = w / w.sum(-1, keepdim=True).clamp_min(1e-12)
    dist = grid_distances(grid, device=w.device)  # (N, N)
    return (w * dist).sum(-1).mean(dim=(0, 2))


def mean_attention_distances(model: ViT, images: Tensor) -> Tensor:
    """`mean_attention_distance` of every block and head of `model` on `images`: [L, H], in patches."""
    with inspecting(model):
        _, grid, maps = model.tokens(images, need_weights=True)
    p = model.pos.num_prefix_tokens
    return torch.stack([mean_attention_distance(w, grid, p) for w in maps])
