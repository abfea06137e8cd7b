"""LieRE: q and k rotated by the matrix exponential of learned skew-symmetric generators, one per
grid axis (Ostmeier et al. 2024, "LieRE: Lie Rotational Positional Encodings", arXiv 2406.10322).

    R(x) = exp(x_r A_1 + x_c A_2),   A_1, A_2 skew-symmetric (A^T = -A), learned,
    q -> R(x) q,   k -> R(x) k,   so q_m . k_n = q^T R(x_m)^T R(x_n) k

A skew-symmetric generator makes R(x) orthogonal at every position (it keeps lengths). RoPE is the
case of generators that are block-diagonal in 2x2 blocks: those commute, R(x_m)^T R(x_n) =
R(x_n - x_m), and the score depends on the offset only. LieRE's dense generators do not commute in
general: exp(A + B) is not exp(A) exp(B), and the score then depends on where the two patches are,
not only on their offset. `commuting=True` restricts the generators to 2x2 blocks (every 2x2
skew-symmetric matrix is a multiple of [[0, 1], [-1, 0]], so these commute): mixed RoPE with the
frequencies learned as LieRE's generators.

As in the paper's reference code (github.com/StanfordMIMI/LieRE):
- one pair of generators per head and per block (its CIFAR-100 set-up); each generator is the whole
  head (`block=None`, its default generator size equals the head width) or a block-diagonal of
  blocks of `block` channels;
- the generators' upper triangles start uniform in [0, 2 pi), and positions are scaled so that the
  trained grid spans [0, 1) along each axis (row / gh_trained, col / gw_trained; the reference uses
  linspace(0, 1, g) at its trained grid);
- prefix tokens (a class token) are not rotated (the identity).
At a larger grid the positions reach past 1, as in the reference; `interpolate=True` maps them into
[0, 1) instead (Chen et al.'s position interpolation, as `rope.py` does). Each position needs its own
matrix exponential, H * N * Dh / block matrices of block x block per block of the model and forward
pass, computed in float32 (float64 for float64 inputs) with autocast off.
"""

from __future__ import annotations

import math
from typing import Annotated

import torch
from torch import Tensor, nn

from minivit.checks import Whole
from minivit.posenc.base import Grid, PositionalEncoding, grid_coords


def skew_symmetric(upper: Tensor, size: int) -> Tensor:
    """The skew-symmetric matrices A = U - U^T whose strict upper triangles U are `upper`
    [..., size * (size - 1) / 2] (row by row): [..., size, size]."""
    i, j = torch.triu_indices(size, size, offset=1, device=upper.device)
    flat = upper.new_zeros(*upper.shape[:-1], size * size).index_copy(-1, i * size + j, upper)
    u = flat.unflatten(-1, (size, size))  # (..., size, size)
    return u - u.transpose(-1, -2)


def compute_dtype(x: Tensor) -> torch.dtype:
    """float32 for half-precision inputs (as `rotate_pairs`), float64 for float64 ones."""
    return torch.promote_types(x.dtype, torch.float32)


class LieRE(PositionalEncoding):
    """LieRE: rotation exp(x_r A_1 + x_c A_2) with learned skew-symmetric generators per head and block.

    Args:
        block: the generators are block-diagonal with blocks of this many channels (each block of
            q and k turned by its own rotation); None: one block of the whole head, as in the paper.
        commuting: generators in 2x2 blocks, which commute: the score then depends on the offset only
            (mixed RoPE with learned frequencies); `block` must then be None or 2.
        interpolate: at a new grid, scale positions into the trained [0, 1) (position interpolation).

    The generators are excluded from weight decay, as rope-mixed's frequencies are.
    """

    def __init__(
        self,
        *,
        block: Annotated[int | None, Whole(least=2, why="a rotation turns at least two channels")] = None,
        commuting: bool = False,
        interpolate: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        dh = self.head_dim
        if commuting and block not in (None, 2):
            raise ValueError(
                f"LieRE's commuting=True uses generators in 2x2 blocks, but block={block}; "
                "pass block=None (or 2) with commuting=True, or commuting=False"
            )
        size = 2 if commuting else (dh if block is None else block)
        if size < 2 or dh % size != 0:
            raise ValueError(
                f"LieRE's generators in blocks of {size} channels do not tile a head of dim / heads = "
                f"{dh} channels; pass a block that divides {dh}"
                + (" (commuting=True needs an even head width)" if commuting else "")
            )
        self.block, self.commuting, self.interpolate = size, commuting, interpolate
        self.offset_only = commuting  # dense generators do not commute: scores depend on where patches are
        upper = torch.rand(self.depth, 2, self.heads, dh // size, size * (size - 1) // 2) * (2 * math.pi)
        self.generators = nn.Parameter(upper)  # (L, axis: row col, H, Dh / block, upper triangle)

    def no_weight_decay(self) -> set[str]:
        return {"generators"}

    def positions(self, grid: Grid) -> Tensor:
        """(row / gh_trained, col / gw_trained) of each patch [N, 2]: the trained grid spans [0, 1); with
        `interpolate`, (row / gh, col / gw) at any grid. Float64 (rotations cast them to their dtype).
        The trained grid is `reference_grid`, which a carried encoding keeps (`carry_to`)."""
        scale = grid if self.interpolate else self.reference_grid
        return grid_coords(grid, dtype=torch.float64) / torch.tensor(scale, dtype=torch.float64)

    def generator(self, layer: int) -> Tensor:
        """A_1 (rows) and A_2 (columns) of block `layer`: [2, H, Dh / block, block, block]."""
        return skew_symmetric(self.generators[layer], self.block)

    def rotations(self, grid: Grid, layer: int, dtype: torch.dtype = torch.float32) -> Tensor:
        """R(x) = exp(x_r A_1 + x_c A_2) of every patch: [H, N, Dh / block, block, block]."""
        a = self.generator(layer).to(dtype)  # (2, H, nb, b, b)
        x = self.positions(grid).to(a)  # (N, 2)
        lie = torch.einsum("na,ahkij->hnkij", x, a)  # (H, N, nb, b, b): x_r A_1 + x_c A_2
        return torch.linalg.matrix_exp(lie.contiguous())  # matrix_exp needs a contiguous batch

    def rotate(self, q: Tensor, k: Tensor, grid: Grid, layer: int) -> tuple[Tensor, Tensor]:
        p, dtype = self.num_prefix_tokens, compute_dtype(q)
        with torch.autocast(q.device.type, enabled=False):
            rot = self.rotations(grid, layer, dtype)  # (H, N, nb, b, b)

            def turn(x: Tensor) -> Tensor:
                blocks = x[..., p:, :].to(dtype).unflatten(-1, (-1, self.block))  # (B, H, N, nb, b)
                out = torch.einsum("hnkij,bhnkj->bhnki", rot, blocks).flatten(-2).type_as(x)
                return torch.cat([x[..., :p, :], out], dim=-2) if p else out

            return turn(q), turn(k)

    def extra_repr(self) -> str:
        return f"block={self.block}, commuting={self.commuting}, interpolate={self.interpolate}"
