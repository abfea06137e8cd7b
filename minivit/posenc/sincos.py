"""Fixed sinusoidal encodings: 1-D (Vaswani et al. 2017, arXiv 1706.03762) and 2-D (MAE, arXiv 2111.06377).

    PE(p, 2i) = sin(p / base^(2i/D)),   PE(p, 2i+1) = cos(p / base^(2i/D))

so PE(p) . PE(q) = sum_i cos((p - q) w_i) depends only on the offset p - q. The 2-D form spends
half the channels on the row and half on the column, each half with base^(-2i/(D/2)) as in MAE's
`get_2d_sincos_pos_embed`. MAE lays the channels out differently: the column's half first (its
`meshgrid(grid_w, grid_h)` puts w first), and within each half all sines, then all cosines. minivit
puts the row first and interleaves sin/cos, as in its 1-D form. The two tables are the same up to a
fixed permutation of the channels, so every dot product agrees; copy a table between them with
`[:, perm]` (lesson 02 builds it). Both are recomputed for any grid and never trained.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from minivit.checks import Annotated, Number
from minivit.posenc.base import Base, Grid, GridCache, PositionalEncoding, grid_coords


def sincos_1d(positions: Tensor, dim: int, base: float = 10000.0) -> Tensor:
    """Sinusoidal encoding of positions [N] (any real values): [N, dim], sin/cos interleaved."""
    if dim % 2 != 0:
        raise ValueError(f"sinusoidal encoding needs an even width, got {dim}; use an even dim")
    i = torch.arange(dim // 2, device=positions.device, dtype=torch.float64)
    freqs = base ** (-2.0 * i / dim)  # w_i = 1 / base^(2i/D), (D/2,)
    angles = positions.to(torch.float64)[:, None] * freqs[None, :]  # (N, D/2)
    pe = torch.stack([angles.sin(), angles.cos()], dim=-1)  # (N, D/2, 2)
    return pe.reshape(len(positions), dim).to(
        positions.dtype if positions.is_floating_point() else torch.float32
    )


def sincos_2d(grid: Grid, dim: int, base: float = 10000.0) -> Tensor:
    """2-D sinusoidal encoding of a (gh, gw) grid in raster order: [gh*gw, dim] = [rows' | cols'], each
    half sin/cos interleaved (MAE's table holds the same channels as [cols' sin | cos | rows' sin | cos])."""
    if dim % 4 != 0:
        raise ValueError(
            f"2-D sinusoidal encoding needs a width divisible by 4 (half per axis, sin and cos), "
            f"got {dim}; use dim={dim + 4 - dim % 4}"
        )
    rc = grid_coords(grid)  # (N, 2)
    return torch.cat([sincos_1d(rc[:, 0], dim // 2, base), sincos_1d(rc[:, 1], dim // 2, base)], dim=-1)


class _Sinusoidal(PositionalEncoding):
    """Adds a fixed table at block 0; prefix tokens get zeros. `base` sets the longest wavelength.

    `per_block=True` adds it again before every block, and `dropout` > 0 then drops out the tokens
    with the table added, at each block where it is added (in training mode only): Ito et al.'s
    reference code does both (its `PositionalEncoding2D` is owned by each block and returns
    `dropout(x + pe)` with p = 0.1)."""

    def __init__(
        self,
        *,
        base: Base = 10000.0,
        per_block: bool = False,
        dropout: Annotated[float, Number(low=0, high=1)] = 0.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.base, self.per_block, self.dropout = float(base), bool(per_block), float(dropout)
        self._cache = GridCache()
        self.table(self.grid)  # fail early on a width the encoding cannot use

    def _patch_table(self, grid: Grid) -> Tensor:
        raise NotImplementedError

    def table(self, grid: Grid, *, device=None, dtype=torch.float32) -> Tensor:
        """The encoding of every token for `grid`: [P+N, D] (computed once per grid and device)."""

        def compute() -> Tensor:
            pe = self._patch_table(grid).to(device=device, dtype=dtype)
            return torch.cat([pe.new_zeros(self.num_prefix_tokens, self.dim), pe], dim=0)

        return self._cache.get(grid, device, compute, dtype)

    def add_to_tokens(self, x: Tensor, grid: Grid, layer: int) -> Tensor:
        if layer != 0 and not self.per_block:
            return x
        self.check_tokens(x, grid)
        x = x + self.table(grid, device=x.device, dtype=x.dtype)
        return F.dropout(x, self.dropout, self.training) if self.dropout else x

    def extra_repr(self) -> str:
        extra = (", per_block=True" if self.per_block else "") + (
            f", dropout={self.dropout:g}" if self.dropout else ""
        )
        return f"base={self.base:g}{extra}"


class Sincos1D(_Sinusoidal):
    """1-D sinusoid of each patch's raster index r * gw + c (Vaswani et al. 2017)."""

    def _patch_table(self, grid: Grid) -> Tensor:
        return sincos_1d(torch.arange(grid[0] * grid[1], dtype=torch.float32), self.dim, self.base)


class Sincos2D(_Sinusoidal):
    """2-D sinusoid (MAE's frequencies): first half of the channels encode the row, second half the
    column; MAE's own layout puts the column first (see the module docstring)."""

    def _patch_table(self, grid: Grid) -> Tensor:
        return sincos_2d(grid, self.dim, self.base)
