"""Spiral RoPE: axial RoPE's channel pairs spread over K directions in the plane instead of two axes
(Liu et al. 2026, "Spiral RoPE: Rotate Your Rotary Positional Embeddings in the 2D Plane", arXiv 2602.03227).

The Dh/2 pairs of a head form K equal groups; group k turns with the patch's position projected on
the direction at angle theta_k = k pi / K from the column axis towards the row axis:

    p_k = col cos(theta_k) + row sin(theta_k),   pair i of group k turns by f_i p_k,
    f_i = base^(-i/m),   m = Dh / (2K) pairs per group (RoPE's frequency ladder inside each group)

The K directions are spread evenly over half a turn (0, 45, 90 and 135 degrees for the default
K = 4): the opposite direction turns the pairs the other way, which the projections W_q and W_k can undo
by flipping one channel of each pair. K = 2 is axial RoPE channel for channel: group 0 (0 degrees)
turns with the column and group 1 (90 degrees) with the row, each with base^(-4i/Dh), the layout of
`rope-axial`. The angles are linear in position, so the score depends on the 2-D offset only, for
every K; with K > 2 some pairs turn with row and column at once, which axial RoPE's pairs never do
(lesson 05: axial RoPE's score is a row part plus a column part, and cannot draw a stripe along a
diagonal).
"""

from __future__ import annotations

import math
from typing import Annotated

import torch
from torch import Tensor

from minivit.checks import Whole
from minivit.posenc.base import Base, Grid
from minivit.posenc.rope import _RoPE


def spiral_directions(directions: int) -> Tensor:
    """Unit vectors (row, col) at angles k pi / K from the column axis, k < K: [K, 2] (float64).

    Components below 1e-12 are set to zero, so that 90 degrees is exactly the row axis
    (cos(pi / 2) is 6e-17 in floating point)."""
    theta = torch.arange(directions, dtype=torch.float64) * math.pi / directions  # (K,)
    unit = torch.stack([theta.sin(), theta.cos()], dim=-1)  # (K, 2) = (row, col) components
    return torch.where(unit.abs() < 1e-12, torch.zeros_like(unit), unit)


def group_frequencies(pairs: int, base: float) -> Tensor:
    """RoPE's ladder base^(-i/m) for i < m = `pairs` (float64); m = Dh/4 gives `axial_frequencies`."""
    return base ** (-torch.arange(pairs, dtype=torch.float64) / pairs)


class RoPESpiral(_RoPE):
    """Spiral RoPE: the pairs in K groups, group k turning with the position along angle k pi / K.

    Args:
        directions: K, the number of directions (K = 2 is axial RoPE); the head's Dh/2 channel
            pairs must split into K equal groups.
        base: the frequencies base^(-i/m) inside each group of m pairs (100, as axial RoPE's).
        interpolate: position interpolation at a new grid (see `rope.py`).
    """

    def __init__(
        self,
        *,
        directions: Annotated[int, Whole(least=2, why="one direction cannot tell the rows apart")] = 4,
        base: Base = 100.0,
        **kwargs,
    ):
        super().__init__(base=base, **kwargs)
        pairs = self.head_dim // 2
        if self.head_dim % 2 != 0 or pairs % directions != 0:
            raise ValueError(
                f"Spiral RoPE splits a head's channel pairs into directions={directions} equal groups, "
                f"but dim / heads = {self.head_dim} has {pairs} pair(s); choose directions dividing "
                f"{pairs}, or dim / heads as a multiple of {2 * directions}"
            )
        self.directions = directions
        self.register_buffer("units", spiral_directions(directions).float(), persistent=False)  # (K, 2)
        freqs = group_frequencies(pairs // directions, self.base).float()
        self.register_buffer("freqs", freqs, persistent=False)  # (m,)

    def angles(self, grid: Grid, layer: int) -> Tensor:
        rc = self.positions(grid).to(self.freqs.device)  # (N, 2) = (row, col)
        along = rc @ self.units.T  # (N, K): p_k = row sin(theta_k) + col cos(theta_k)
        return (along[:, :, None] * self.freqs).flatten(1)  # (N, K * m) = (N, Dh/2)

    def extra_repr(self) -> str:
        return f"directions={self.directions}, " + super().extra_repr()
