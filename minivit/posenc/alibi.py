"""ALiBi: a fixed, linear logit bias by distance (Press et al. 2021, arXiv 2108.12409), made
symmetric for an encoder, and its 2-D form with Euclidean distance on the patch grid (CROMA, Fuller et
al. 2023, arXiv 2311.00566).

    bias[h, i, j] = -m_h * |i - j|           (alibi1d, raster index)
    bias[h, i, j] = -m_h * ||p_i - p_j||_2   (alibi2d, p = (row, col))

Slopes m_h form a geometric sequence 2^(-8/H), 2^(-16/H), ...; for H not a power of two, those of
the nearest lower power of two followed by every other slope of the next power of two.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from minivit.posenc.base import Grid, GridCache, PositionalEncoding, grid_distances, pad_prefix


def alibi_slopes(heads: int) -> list[float]:
    """The slopes of Press et al. for `heads` heads (their reference implementation's rule)."""

    def power_of_two(n: int) -> list[float]:
        start = 2 ** (-8 / n)
        return [start ** (i + 1) for i in range(n)]

    if heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {heads}")
    if math.log2(heads).is_integer():
        return power_of_two(heads)
    lower = 2 ** math.floor(math.log2(heads))
    return power_of_two(lower) + alibi_slopes(2 * lower)[0::2][: heads - lower]


class _ALiBi(PositionalEncoding):
    """-slope_h * distance(i, j); the same fixed bias in every block; prefix tokens get zero."""

    offset_only = True  # a distance is a function of the offset
    symmetric = True  # and of its length: d(i, j) = d(j, i)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(self.heads)), persistent=False)
        self._distances = GridCache()  # the slopes apply at each call: changed in place, they count

    def distances(self, grid: Grid) -> Tensor:
        raise NotImplementedError

    def attn_bias(self, grid: Grid, layer: int) -> Tensor:
        device = self.slopes.device
        d = self._distances.get(grid, device, lambda: self.distances(grid).to(device))  # (N, N)
        return pad_prefix(-self.slopes[:, None, None] * d, self.num_prefix_tokens)


class ALiBi1D(_ALiBi):
    """Symmetric 1-D ALiBi on the raster index r * gw + c."""

    def distances(self, grid: Grid) -> Tensor:
        idx = torch.arange(grid[0] * grid[1], dtype=torch.float32)
        return (idx[:, None] - idx[None, :]).abs()


class ALiBi2D(_ALiBi):
    """2-D ALiBi: Euclidean distance between patch coordinates (row, col)."""

    def distances(self, grid: Grid) -> Tensor:
        return grid_distances(grid)
