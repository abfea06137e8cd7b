"""Scores as a function of the 2-D offset between query and key: scores between patches [..., N, N]
averaged by offset (dy, dx) into a table [..., 2gh - 1, 2gw - 1]; how much a score depends on more
than the offset (absolute position), and on the offset's direction; and whether a table by offset
favours near offsets."""

from __future__ import annotations

import torch
from torch import Tensor

from minivit.posenc.base import Grid, relative_offsets


def _offset_index(grid: Grid, device=None) -> Tensor:
    """For every (query i, key j) pair in raster order, the index of its offset (r_i - r_j, c_i - c_j)
    in a [2gh - 1, 2gw - 1] table, flattened: [N * N]."""
    gh, gw = grid
    off = relative_offsets(grid, device=device)  # (N, N, 2)
    return ((off[..., 0] + gh - 1) * (2 * gw - 1) + off[..., 1] + gw - 1).reshape(-1)


def _check_scores(scores: Tensor, grid: Grid) -> None:
    n = grid[0] * grid[1]
    if scores.ndim < 2 or scores.shape[-2:] != (n, n):
        raise ValueError(
            f"scores of shape {tuple(scores.shape)} are not [..., N, N] for grid {grid[0]}x{grid[1]} "
            f"(N={n}); drop prefix (class token) rows and columns first"
        )


def offset_table(scores: Tensor, grid: Grid) -> Tensor:
    """The mean score for each offset: scores [..., N, N] between patches -> [..., 2gh - 1, 2gw - 1],
    entry [dy + gh - 1, dx + gw - 1] = mean of s_ij over pairs with (r_i - r_j, c_i - c_j) = (dy, dx)
    (i the query; the centre entry is the offset (0, 0))."""
    _check_scores(scores, grid)
    gh, gw = grid
    index = _offset_index(grid, scores.device)
    s = scores.double().flatten(-2)  # (..., N*N)
    sums = s.new_zeros(*s.shape[:-1], (2 * gh - 1) * (2 * gw - 1)).index_add_(-1, index, s)
    counts = torch.bincount(index, minlength=sums.shape[-1]).to(s)
    return (sums / counts).reshape(*s.shape[:-1], 2 * gh - 1, 2 * gw - 1)


def offset_dependence(scores: Tensor, grid: Grid) -> dict:
    """How much scores between patches depend on more than the offset: scores [..., N, N] -> dict of
    [...] (reduced over the last two dims only).

        within = mean_ij (s_ij - mean of s over pairs with the offset of ij)^2,  total = var_ij s_ij

    Returns within, total and fraction = within / total: 0 when every score is a function of the
    offset (r_i - r_j, c_i - c_j) alone (RoPE, ALiBi, relative bias with the same content at every
    position), larger when absolute position enters too. varies: whether the scores vary at all
    (total at least 1e-10 of their mean square); fraction is 0 where they do not. Also by_offset
    [..., 2gh - 1, 2gw - 1]: the variance of the score over the pairs at each offset, laid out as in
    `offset_table`.
    """
    _check_scores(scores, grid)
    gh, gw = grid
    index = _offset_index(grid, scores.device)
    s = scores.double().flatten(-2)  # (..., N*N)
    squares = (s - offset_table(scores, grid).flatten(-2)[..., index]) ** 2
    within = squares.mean(-1)
    total = ((s - s.mean(-1, keepdim=True)) ** 2).mean(-1)
    varies = total > 1e-10 * (s**2).mean(-1)
    fraction = torch.where(varies, within / total.clamp_min(1e-300), torch.zeros_like(total))
    counts = torch.bincount(index, minlength=(2 * gh - 1) * (2 * gw - 1)).to(s)
    by_offset = squares.new_zeros(*s.shape[:-1], len(counts)).index_add_(-1, index, squares) / counts
    by_offset = by_offset.reshape(*s.shape[:-1], 2 * gh - 1, 2 * gw - 1)
    return {"within": within, "total": total, "fraction": fraction, "varies": varies, "by_offset": by_offset}


def direction_asymmetry(scores: Tensor, grid: Grid) -> Tensor:
    """How much a score depends on the direction of the offset: scores [..., N, N] -> [...] in [0, 1].

    With T(d) the mean score at offset d (`offset_table`), split T into its parts even and odd in d:
        asymmetry = sum_d ((T(d) - T(-d)) / 2)^2 / sum_d (T(d) - mean T)^2
    0 when s(d) = s(-d) (ALiBi, sinusoidal PE . PE), 1 when s(d) = -s(-d). 0 where T is constant.
    """
    table = offset_table(scores, grid)  # (..., 2gh-1, 2gw-1), d -> -d is a flip of both axes
    odd = (table - table.flip(-2, -1)) / 2
    centred = table - table.mean(dim=(-2, -1), keepdim=True)
    spread = (centred**2).sum(dim=(-2, -1))
    varies = spread > 1e-10 * (table**2).sum(dim=(-2, -1))
    asymmetry = (odd**2).sum(dim=(-2, -1)) / spread.clamp_min(1e-300)
    return torch.where(varies, asymmetry, torch.zeros_like(spread))


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
