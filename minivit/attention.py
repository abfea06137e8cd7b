"""Multi-head self-attention with the two position hooks inside it (Vaswani et al. 2017, arXiv 1706.03762).

    softmax(rotate(q) rotate(k)^T / sqrt(Dh) + bias) v

computed by `F.scaled_dot_product_attention` (fused kernels), or by `explicit_attention`, which
also returns the attention weights for plots and for checking the fused path.
"""

from __future__ import annotations

import math

import torch.nn.functional as F
from torch import Tensor, nn

from minivit.posenc.base import Grid, PositionalEncoding


def explicit_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    bias: Tensor | None = None,
    temperature: float = 1.0,
    dropout: float = 0.0,
) -> tuple[Tensor, Tensor]:
    """Attention written out: returns (output [..., N, Dh], weights [..., N, N]).

    Args:
        q, k, v: [..., N, Dh] (e.g. [B, H, N, Dh]).
        bias: added to the logits, broadcastable to [..., N, N].
        temperature: divides the logits; 1 is standard attention, lower is sharper.
        dropout: drops attention weights on the way to the output (the returned weights are whole).
    """
    logits = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., N, N)
    if bias is not None:
        logits = logits + bias
    weights = (logits / temperature).softmax(dim=-1)  # each row sums to 1
    return F.dropout(weights, dropout) @ v if dropout else weights @ v, weights


class Attention(nn.Module):
    """Multi-head self-attention over tokens [B, N, D] that asks a PositionalEncoding for q/k
    rotation and a logit bias.

    `fused = False` computes it written out (`explicit_attention`) instead of by
    `F.scaled_dot_product_attention`: `minivit.ensemble` sets it, since under `torch.func.vmap` the
    fused CPU kernel runs member by member."""

    fused = True

    def __init__(self, dim: int, heads: int, dropout: float = 0.0):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.dropout = dropout

    def forward(
        self, x: Tensor, grid: Grid, pos: PositionalEncoding, layer: int, need_weights: bool = False
    ) -> tuple[Tensor, Tensor | None]:
        """Returns (output [B, N, D], weights [B, H, N, N] if `need_weights` else None)."""
        B, N, D = x.shape
        qkv = self.qkv(x).view(B, N, 3, self.heads, self.head_dim)  # (B, N, 3, H, Dh)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # 3 x (B, H, N, Dh)
        q, k = pos.rotate(q, k, grid, layer)
        bias = pos.attn_bias(grid, layer)  # (H, N, N) or None
        if bias is not None:
            bias = bias.to(q.dtype)
        p = self.dropout if self.training else 0.0
        if need_weights:
            out, weights = explicit_attention(q, k, v, bias)
        elif not self.fused:
            out, weights = explicit_attention(q, k, v, bias, dropout=p)[0], None
        else:
            out, weights = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=p), None
        out = out.transpose(1, 2).reshape(B, N, D)  # (B, N, H*Dh)
        return self.proj(out), weights


__all__ = ["Attention", "explicit_attention"]
