"""Rotary position embedding: rotate pairs of q and k channels by angles proportional to position
(Su et al. 2021, arXiv 2104.09864), and its 2-D forms for images (Heo et al. 2024, arXiv 2403.13298).

    (q_2i, q_2i+1) <- R(theta_i . p) (q_2i, q_2i+1),   the same for k

so q_m . k_n = Re[sum_i q_i conj(k_i) e^{i theta_i . (p_m - p_n)}] depends only on the offset.

    rope1d      theta_i = base^(-2i/Dh), p = raster index
    rope-axial  half the pairs rotate with the column, half with the row; theta_i = base^(-4i/Dh), base 100
    rope-mixed  theta_i = (f_x, f_y) learnable per pair, head and block, initialised with magnitudes
                from base 10 in a random direction per head: rotation by f_x * col + f_y * row
    rope-spiral the pairs in K groups, group k turning with the position along angle k pi / K
                (Liu et al. 2026, arXiv 2602.03227; `RoPESpiral`)

Position interpolation (Chen et al. 2023, arXiv 2306.15595) multiplies the positions at a new grid
by trained / new size (their m * L / L'), which maps 0 .. g_new - 1 into [0, g_old): the trained
positions were 0 .. g_old - 1, so the last new ones land up to 1 - g_old / g_new beyond them (2.5 for
a 3-wide grid run at 6). The trained size is `reference_grid`, which an encoding carried to another
grid keeps (`carry_to`). Prefix tokens are never rotated.

Channel pairs are interleaved, (x_0, x_1), (x_2, x_3), ..., as in RoFormer and RoPE-ViT. GPT-NeoX
and Hugging Face's LLaMA (`rotate_half`) pair x_i with x_{i + Dh/2} instead: the same rotation after a
fixed permutation of the channels, which converts weights from one convention to the other.
"""

from __future__ import annotations

import math
from typing import Annotated

import torch
from torch import Tensor, nn

from minivit.checks import Whole
from minivit.posenc.base import Base, Grid, GridCache, PositionalEncoding, grid_coords


def rotate_pairs(x: Tensor, angles: Tensor | None = None, *, rotation: Tensor | None = None) -> Tensor:
    """Rotate channel pairs (x_2i, x_2i+1) of x [..., N, Dh] by angles [..., N, Dh/2].

    Each pair is a complex number x_2i + i x_2i+1 multiplied by e^{i angle}; pass `rotation`
    (= torch.polar(1, angles), complex) instead of `angles` to reuse it.
    """
    if rotation is None:
        rotation = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))  # (..., N, Dh/2) complex
    return torch.view_as_real(xc * rotation).flatten(-2).type_as(x)


def axial_frequencies(head_dim: int, base: float) -> Tensor:
    """Magnitudes base^(-4i/Dh) for i < Dh/4: each axis gets a quarter of the channels' pairs."""
    return base ** (-torch.arange(0, head_dim, 4)[: head_dim // 4].double() / head_dim)


def mixed_frequencies(head_dim: int, heads: int, base: float = 10.0, *, generator=None) -> Tensor:
    """Heo et al.'s initialisation of mixed RoPE: [2, H, Dh/2] (x and y component of each pair's
    frequency): axial magnitudes, the first half of the pairs along a random angle per head and
    the second half perpendicular to it."""
    mag = axial_frequencies(head_dim, base).float()  # (Dh/4,)
    angle = torch.rand(heads, 1, generator=generator) * 2 * math.pi  # (H, 1)
    fx = torch.cat([mag * angle.cos(), mag * (angle + math.pi / 2).cos()], dim=-1)  # (H, Dh/2)
    fy = torch.cat([mag * angle.sin(), mag * (angle + math.pi / 2).sin()], dim=-1)
    return torch.stack([fx, fy])  # (2, H, Dh/2)


class _RoPE(PositionalEncoding):
    """Shared machinery: positions at a grid (optionally interpolated), prefix left unrotated."""

    learnable = False  # fixed rotations are computed once per grid, device and `interpolate`
    offset_only = True  # R(p_m)^T R(p_n) = R(p_n - p_m)

    def __init__(self, *, base: Base, interpolate: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.base, self.interpolate = float(base), interpolate
        self._cache = GridCache()

    def positions(self, grid: Grid) -> Tensor:
        """(row, col) of each patch [N, 2]; with `interpolate`, scaled by trained / new grid size per
        axis, into [0, trained size) (the module docstring says how far past the trained positions)."""
        rc, (th, tw) = grid_coords(grid), self.reference_grid  # the trained grid, kept when carried
        if self.interpolate and tuple(grid) != (th, tw):
            rc = rc * torch.tensor([th / grid[0], tw / grid[1]])
        return rc

    def angles(self, grid: Grid, layer: int) -> Tensor:
        """Rotation angle of every patch's channel pairs: [N, Dh/2] or [H, N, Dh/2]."""
        raise NotImplementedError

    def rotation(self, grid: Grid, layer: int, device=None) -> Tensor:
        """e^{i angle} for every patch and channel pair (complex): [N, Dh/2] or [H, N, Dh/2]."""
        if self.learnable:
            angles = self.angles(grid, layer)
            return torch.polar(torch.ones_like(angles), angles)

        def compute() -> Tensor:
            angles = self.angles(grid, layer).to(device)
            return torch.polar(torch.ones_like(angles), angles)

        # `interpolate` may be switched after a run, and loading a state dict sets `reference_grid`
        return self._cache.get(grid, device, compute, bool(self.interpolate), self.reference_grid)

    def rotate(self, q: Tensor, k: Tensor, grid: Grid, layer: int) -> tuple[Tensor, Tensor]:
        p = self.num_prefix_tokens
        rot = self.rotation(grid, layer, q.device)
        if p == 0:
            return rotate_pairs(q, rotation=rot), rotate_pairs(k, rotation=rot)
        q = torch.cat([q[..., :p, :], rotate_pairs(q[..., p:, :], rotation=rot)], dim=-2)
        k = torch.cat([k[..., :p, :], rotate_pairs(k[..., p:, :], rotation=rot)], dim=-2)
        return q, k

    def extra_repr(self) -> str:
        return f"base={self.base:g}, interpolate={self.interpolate}"


class RoPE1D(_RoPE):
    """1-D RoPE on the raster index (Su et al.): theta_i = base^(-2i/Dh)."""

    def __init__(self, *, base: Base = 10000.0, **kwargs):
        super().__init__(base=base, **kwargs)
        if self.head_dim % 2 != 0:
            raise ValueError(f"RoPE needs an even head dimension, got {self.head_dim}; change dim or heads")
        freqs = self.base ** (-torch.arange(0, self.head_dim, 2).double() / self.head_dim)
        self.register_buffer("freqs", freqs.float(), persistent=False)  # (Dh/2,)

    def positions(self, grid: Grid) -> Tensor:
        """Raster index r * gw + c [N, 1]; with `interpolate`, scaled by N_trained / N (Chen et al.).

        The scaled index keeps the raster order but not the grid's geometry: in training, the next
        patch in a row was 1 away and the one below gw_trained; at the new grid they are
        N_trained / N and gw_trained * gh_trained / gh away."""
        n = grid[0] * grid[1]
        idx = torch.arange(n, dtype=torch.float32)
        th, tw = self.reference_grid  # the trained grid, kept when carried
        if self.interpolate and tuple(grid) != (th, tw):
            idx = idx * (th * tw / n)
        return idx[:, None]  # (N, 1)

    def angles(self, grid: Grid, layer: int) -> Tensor:
        return self.positions(grid).to(self.freqs.device) * self.freqs  # (N, Dh/2)


def _check_quarter(head_dim: int) -> None:
    if head_dim % 4 != 0:
        raise ValueError(
            f"2-D RoPE needs a head dimension divisible by 4 (a pair of channels per frequency and "
            f"axis), got {head_dim}; choose dim / heads as a multiple of 4"
        )


class RoPEAxial(_RoPE):
    """2-D axial RoPE (RoPE-ViT): the first Dh/4 pairs rotate with the column, the rest with the row."""

    def __init__(self, *, base: Base = 100.0, **kwargs):
        super().__init__(base=base, **kwargs)
        _check_quarter(self.head_dim)
        self.register_buffer("freqs", axial_frequencies(self.head_dim, self.base).float(), persistent=False)

    def angles(self, grid: Grid, layer: int) -> Tensor:
        rc = self.positions(grid).to(self.freqs.device)
        return torch.cat([rc[:, 1:2] * self.freqs, rc[:, 0:1] * self.freqs], dim=-1)  # (N, Dh/2)


class RoPEMixed(_RoPE):
    """2-D mixed RoPE (RoPE-ViT): learnable frequencies (f_x, f_y) per pair, head and block.

    The frequencies are excluded from weight decay, as in Heo et al.
    """

    learnable = True

    def __init__(self, *, base: Base = 10.0, **kwargs):
        super().__init__(base=base, **kwargs)
        _check_quarter(self.head_dim)
        freqs = torch.stack(
            [mixed_frequencies(self.head_dim, self.heads, self.base) for _ in range(self.depth)]
        )
        self.freqs = nn.Parameter(freqs)  # (L, 2, H, Dh/2)

    def no_weight_decay(self) -> set[str]:
        return {"freqs"}

    def angles(self, grid: Grid, layer: int) -> Tensor:
        rc = self.positions(grid).to(self.freqs.device)  # (N, 2) = (row, col)
        fx, fy = self.freqs[layer]  # (H, Dh/2) each
        return rc[None, :, 1:2] * fx[:, None, :] + rc[None, :, 0:1] * fy[:, None, :]  # (H, N, Dh/2)


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
    """Spiral RoPE: axial RoPE's channel pairs spread over K directions in the plane instead of two
    axes (Liu et al. 2026, "Spiral RoPE: Rotate Your Rotary Positional Embeddings in the 2D Plane",
    arXiv 2602.03227).

    The Dh/2 pairs of a head form K equal groups; group k turns with the patch's position projected
    on the direction at angle theta_k = k pi / K from the column axis towards the row axis:

        p_k = col cos(theta_k) + row sin(theta_k),   pair i of group k turns by f_i p_k,
        f_i = base^(-i/m),   m = Dh / (2K) pairs per group (RoPE's frequency ladder inside each group)

    The K directions are spread evenly over half a turn (0, 45, 90 and 135 degrees for the default
    K = 4): the opposite direction turns the pairs the other way, which the projections W_q and W_k
    can undo by flipping one channel of each pair. K = 2 is axial RoPE channel for channel: group 0
    (0 degrees) turns with the column and group 1 (90 degrees) with the row, each with
    base^(-4i/Dh), the layout of `rope-axial`. The angles are linear in position, so the score
    depends on the 2-D offset only, for every K; with K > 2 some pairs turn with row and column at
    once, which axial RoPE's pairs never do (lesson 05: axial RoPE's score is a row part plus a
    column part, and cannot draw a stripe along a diagonal).

    Args:
        directions: K, the number of directions (K = 2 is axial RoPE); the head's Dh/2 channel
            pairs must split into K equal groups.
        base: the frequencies base^(-i/m) inside each group of m pairs (100, as axial RoPE's).
        interpolate: position interpolation at a new grid (see the module's docstring).
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
