"""STRING: RoPE after a learned orthogonal change of basis (Schenck et al. 2025, "Learning the RoPEs:
Better 2D and 3D Position Encodings with STRING", ICML 2025, arXiv 2502.02562).

STRING rotates q and k by R(x) = exp(sum_k x_k L_k) with learned skew-symmetric generators L_k that
commute. Commuting skew-symmetric matrices share one orthogonal basis in which all are 2x2 blocks,
so every such R(x) is P^T RoPE(x) P for an orthogonal P and a RoPE with 2-D frequencies per pair.
That is how STRING is computed here:

    q -> RoPE(x) P q,   k -> RoPE(x) P k,   P = exp(S), S skew-symmetric and learned,
    q_m . k_n = q^T P^T RoPE(x_n - x_m) P k    (RoPE(x_m)^T RoPE(x_n) = RoPE(x_n - x_m)),

so the score depends on the offset only, whatever P is, and P changes only which directions of q
and k each frequency reads. The final P^T of P^T RoPE(x) P is left out: it turns q and k alike
and cancels in q . k. P is applied to every token, prefix tokens included, which keeps them
unrotated in STRING's terms (P^T I P = I) as RoPE does. S starts at zero, so P = exp(0) = I
exactly and STRING starts as the RoPE it wraps (`frequencies`: "mixed", learned 2-D frequencies
per pair, head and block, which with P gives every commuting family of generators; or "axial",
fixed). Schenck et al.'s Cayley-STRING parametrises P by the Cayley transform of a skew-symmetric
matrix; the matrix exponential used here is the other standard map from skew-symmetric matrices onto
the rotations (both in `torch.nn.utils.parametrizations.orthogonal`), orthogonal to float rounding.

One P per head and block, as rope-mixed has one set of frequencies per head and block: each head's
rotation is then STRING's own (P and frequencies) and STRING at P = I is exactly the RoPE it wraps.
P costs Dh(Dh - 1)/2 parameters per head and block, and one Dh x Dh product per token for q and for k.
"""

from __future__ import annotations

from typing import Annotated

import torch
from torch import Tensor, nn

from minivit.checks import Choice, Number
from minivit.posenc.base import Grid, PositionalEncoding
from minivit.posenc.liere import compute_dtype, skew_symmetric
from minivit.posenc.rope import RoPEAxial, RoPEMixed

WRAPPED = {"mixed": RoPEMixed, "axial": RoPEAxial}


class STRING(PositionalEncoding):
    """STRING: RoPE (mixed or axial) after a learned orthogonal change of basis P per head and block.

    Args:
        frequencies: the RoPE it wraps: "mixed" (learned frequencies, base 10) or "axial" (fixed, base 100).
        base: that RoPE's base; None: its own default.
        interpolate: position interpolation at a new grid (see `rope.py`).

    P's generators and mixed RoPE's frequencies are excluded from weight decay.
    """

    offset_only = True  # P^T RoPE(x_n - x_m) P, whatever P is
    prefix_untouched = False  # P turns every token, prefix tokens included

    def __init__(
        self,
        *,
        frequencies: Annotated[str, Choice(tuple(WRAPPED))] = "mixed",
        base: Annotated[
            float | None, Number(low=1, low_ok=False, why="the wavelengths then grow from pair to pair")
        ] = None,
        interpolate: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        shape = {"dim": self.dim, "heads": self.heads, "depth": self.depth, "grid": self.grid}
        extra = {} if base is None else {"base": base}
        self.frequencies = frequencies
        self.rope = WRAPPED[frequencies](
            **shape, num_prefix_tokens=self.num_prefix_tokens, interpolate=interpolate, **extra
        )
        dh = self.head_dim
        self.basis = nn.Parameter(torch.zeros(self.depth, self.heads, dh * (dh - 1) // 2))  # (L, H, upper S)

    @property
    def interpolate(self) -> bool:
        return self.rope.interpolate

    @interpolate.setter
    def interpolate(self, value: bool) -> None:
        self.rope.interpolate = value

    def no_weight_decay(self) -> set[str]:
        return {"basis"} | {f"rope.{name}" for name in self.rope.no_weight_decay()}

    def positions(self, grid: Grid) -> Tensor:
        """(row, col) of each patch [N, 2], as the wrapped RoPE sees them."""
        return self.rope.positions(grid)

    def change_of_basis(self, layer: int, dtype: torch.dtype = torch.float32) -> Tensor:
        """P = exp(S) of block `layer`, one per head: [H, Dh, Dh], orthogonal."""
        return torch.linalg.matrix_exp(skew_symmetric(self.basis[layer].to(dtype), self.head_dim))

    def rotate(self, q: Tensor, k: Tensor, grid: Grid, layer: int) -> tuple[Tensor, Tensor]:
        dtype = compute_dtype(q)
        with torch.autocast(q.device.type, enabled=False):
            pt = self.change_of_basis(layer, dtype).transpose(-1, -2)  # (H, Dh, Dh): x P^T = (P x)^T
            q, k = (q.to(dtype) @ pt).type_as(q), (k.to(dtype) @ pt).type_as(k)  # (B, H, N, Dh)
        return self.rope.rotate(q, k, grid, layer)

    def extra_repr(self) -> str:
        return f"frequencies={self.frequencies!r}"
