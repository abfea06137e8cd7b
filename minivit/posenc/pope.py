"""PoPE: polar coordinate position embeddings (Gopalakrishnan, Csordás, Schmidhuber and Mozer 2025,
"Decoupling the 'What' and 'Where' With Polar Coordinate Positional Embeddings", arXiv 2509.10534).

RoPE turns each channel pair of q and k by an angle set by position, but the pair's own angle, set by
its content, adds to it: content can move the offset a head prefers. PoPE gives content no angle.
Each of the head's Dh channels becomes one complex number whose length is set by content and whose
angle by position alone:

    q_c -> softplus(q_c) e^{i theta_c . x_q},   k_c -> softplus(k_c) e^{i (theta_c . x_k + delta_c)}
    score = Re sum_c q_c conj(k_c) = sum_c softplus(q_c) softplus(k_c) cos(theta_c . (x_q - x_k) - delta_c)

so the score depends on the offset x_q - x_k only, each channel's term is never negative where the
query sits on the key (offset 0, delta = 0), and content sets only how much each channel counts
(softplus >= 0), never where that channel looks (by weighing channels that look at different offsets,
it can still move where the head looks). delta_c is a learned phase per head, channel and block (the
keys' phase bias), started at 0; the paper keeps it in [-2 pi, 0] by clamping, here it is wrapped
into [-2 pi, 0) (the same angles, and a gradient at the start, where a clamp's bound passes none).
With delta = 0 every term is largest at offset 0, so a head can prefer a key elsewhere only
through delta.

For images the channels split as axial RoPE's pairs do: the first Dh/2 channels turn with the column,
the rest with the row, with theta_i = base^(-i/(Dh/2)) (Dh frequencies in all where RoPE has Dh/2: a
channel here is a whole complex number). The rotated q and k are twice as wide (the real and imaginary
parts, interleaved), so attention's 1/sqrt(width) becomes 1/sqrt(2 Dh). Prefix tokens (a class
token) get angle 0 and no phase bias. Position interpolation scales the positions as `rope.py` does.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from minivit.posenc.base import Base, Grid
from minivit.posenc.liere import compute_dtype
from minivit.posenc.rope import _RoPE


def pope_frequencies(head_dim: int, base: float) -> Tensor:
    """base^(-i/(Dh/2)) for i < Dh/2 (float64): each axis gets half of the head's channels."""
    half = head_dim // 2
    return base ** (-torch.arange(half, dtype=torch.float64) / half)


def polar(x: Tensor, angles: Tensor) -> Tensor:
    """softplus(x) e^{i angles} as real and imaginary parts interleaved: x [..., N, Dh] -> [..., N, 2 Dh]."""
    mag = F.softplus(x)
    return torch.stack([mag * angles.cos(), mag * angles.sin()], dim=-1).flatten(-2)


class PoPE(_RoPE):
    """PoPE: content sets each channel's length (softplus), position alone its angle; a learned phase
    bias on the keys per head, channel and block (`phase_bias`).

    Args:
        base: the frequencies base^(-i/(Dh/2)) along each axis (100, as axial RoPE's).
        phase_bias: learn the keys' phase delta (wrapped into [-2 pi, 0), started at 0); False keeps
            delta = 0.
        interpolate: position interpolation at a new grid (see `rope.py`).

    The phase bias is excluded from weight decay.
    """

    learnable = False  # the angles are fixed; the phase bias is added in `rotate`
    rotate_is_linear = False  # softplus: q(c + e) is not q(c) + q(e)
    prefix_untouched = False  # a prefix token becomes softplus(q) at angle 0, twice as wide

    def __init__(self, *, base: Base = 100.0, phase_bias: bool = True, **kwargs):
        super().__init__(base=base, **kwargs)
        if self.head_dim % 2 != 0:
            raise ValueError(
                f"2-D PoPE gives half of a head's channels to each axis and needs an even head dimension, "
                f"got dim / heads = {self.head_dim}; choose an even dim / heads"
            )
        self.phase_bias = phase_bias
        delta = torch.zeros(self.depth, self.heads, self.head_dim)  # (L, H, Dh)
        self.delta = nn.Parameter(delta, requires_grad=phase_bias)

    def no_weight_decay(self) -> set[str]:
        return {"delta"}

    def angles(self, grid: Grid, layer: int) -> Tensor:
        """Each patch's channel angles [N, Dh] (float64): the column's, then the row's."""
        freqs = pope_frequencies(self.head_dim, self.base)  # (Dh/2,)
        rc = self.positions(grid).double()  # (N, 2) = (row, col)
        return torch.cat([rc[:, 1:2] * freqs, rc[:, 0:1] * freqs], dim=-1)  # (N, Dh)

    def phase(self, layer: int) -> Tensor:
        """The keys' phase bias of block `layer`, delta wrapped into [-2 pi, 0): [H, Dh].

        A phase is an angle, so wrapping changes no score; clamping would stop the learning: delta
        starts at 0, the clamp's bound, where torch's clamp passes no gradient."""
        return torch.remainder(self.delta[layer], 2 * math.pi) - 2 * math.pi

    def rotate(self, q: Tensor, k: Tensor, grid: Grid, layer: int) -> tuple[Tensor, Tensor]:
        p = self.num_prefix_tokens
        with torch.autocast(q.device.type, enabled=False):
            extra = (bool(self.interpolate), self.reference_grid)
            angles = self._cache.get(
                grid, q.device, lambda: self.angles(grid, layer).to(q.device), *extra
            )  # (N, Dh)
            angles = F.pad(angles, (0, 0, p, 0))  # (P+N, Dh): prefix tokens at angle 0
            bias = F.pad(self.phase(layer)[:, None, :].expand(-1, angles.shape[0] - p, -1), (0, 0, p, 0))
            dtype = compute_dtype(q)
            angles, bias = angles.to(dtype), bias.to(dtype)
            return polar(q.to(dtype), angles).type_as(q), polar(k.to(dtype), angles + bias).type_as(k)

    def extra_repr(self) -> str:
        return f"phase_bias={self.phase_bias}, " + super().extra_repr()
