"""Relative position bias: a learned logit bias per head for each 2-D offset (Swin, arXiv 2103.14030),
optionally with offsets clipped to +-k (Shaw et al. 2018, arXiv 1803.02155).

    bias[h, i, j] = table[h, clip(r_i - r_j) + R_h, clip(c_i - c_j) + R_w]

The table has (2R_h + 1)(2R_w + 1) entries per head: (2gh - 1)(2gw - 1) without clipping. The
indexing and the class token's zero rows are `base.offset_bias`, shared with any encoding that makes a
per-offset table.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from minivit.checks import Annotated, Choice, Whole
from minivit.posenc.base import Grid, PositionalEncoding, offset_bias, relative_offsets

RESIZE = ("interpolate", "clamp")
__all__ = ["RESIZE", "RelativeBias", "offset_bias", "relative_offsets"]


class RelativeBias(PositionalEncoding):
    """A table [L, H, 2R_h + 1, 2R_w + 1] of logit biases indexed by 2-D offset; L = depth unless `shared`.

    Args:
        clip: clip offsets to [-clip, clip] (Shaw et al.); the table then fits every grid.
        shared: one table for all blocks instead of one per block (Swin has one per block).
        resize: without clipping, at a grid with other offsets "interpolate" resizes the table
            bicubically to (2gh - 1, 2gw - 1) as Swin/timm do; "clamp" reuses the outermost offsets.
            On a smaller grid "clamp" keeps every offset's own entry, while "interpolate" squashes
            the table, so that offset 1 gets a blend of the trained entries around it.
    """

    offset_only = True  # one entry per offset

    def __init__(
        self,
        *,
        clip: Annotated[int | None, Whole(least=0)] = None,
        shared: bool = False,
        resize: Annotated[str, Choice(RESIZE)] = "interpolate",
        **kwargs,
    ):
        super().__init__(**kwargs)
        if resize not in RESIZE:
            raise ValueError(f"unknown resize {resize!r} for relative bias; known: {', '.join(RESIZE)}")
        if clip is not None and clip < 0:
            raise ValueError(f"clip must be >= 0 (or None for no clipping), got {clip}")
        self.clip, self.shared, self.resize = clip, shared, resize
        self.radius = (clip, clip) if clip is not None else (self.grid[0] - 1, self.grid[1] - 1)
        rh, rw = self.radius
        layers = 1 if shared else self.depth
        self.table = nn.Parameter(torch.zeros(layers, self.heads, 2 * rh + 1, 2 * rw + 1))
        # N(0, 0.02^2) cut at +-2 std (actual spread 0.0176), the cut-off of every trunc_normal in
        # minivit; Swin's `trunc_normal_(std=.02)` cuts at +-2 absolute, i.e. not at all
        nn.init.trunc_normal_(self.table, std=0.02, a=-0.04, b=0.04)

    def no_weight_decay(self) -> set[str]:
        return {"table"}

    def table_for(self, grid: Grid, layer: int) -> tuple[Tensor, tuple[int, int]]:
        """The table [H, 2R_h + 1, 2R_w + 1] for `grid` and its radius (R_h, R_w)."""
        table = self.table[0 if self.shared else layer]
        if self.clip is not None or self.resize == "clamp" or tuple(grid) == self.grid:
            return table, self.radius
        size = (2 * grid[0] - 1, 2 * grid[1] - 1)
        table = F.interpolate(table[None], size=size, mode="bicubic", align_corners=False)[0]
        return table, (grid[0] - 1, grid[1] - 1)

    def attn_bias(self, grid: Grid, layer: int) -> Tensor:
        return offset_bias(self.table_for(grid, layer)[0], grid, self.num_prefix_tokens)

    def carry_to(self, grid: Grid) -> RelativeBias:
        """Without clipping, the table resized to the offsets of `grid` as `attn_bias` would use it
        there ("interpolate": bicubically; "clamp": cut, or widened with its outermost entries)."""
        carried = super().carry_to(grid)
        if self.clip is None:
            rh, rw = grid[0] - 1, grid[1] - 1
            tables = []
            for layer in range(len(self.table)):
                table, (oh, ow) = self.table_for(grid, layer)
                iy = torch.arange(-rh, rh + 1, device=table.device).clamp(-oh, oh) + oh
                ix = torch.arange(-rw, rw + 1, device=table.device).clamp(-ow, ow) + ow
                tables.append(table.detach()[:, iy][:, :, ix])  # (H, 2rh + 1, 2rw + 1)
            carried.radius = (rh, rw)
            carried.table = nn.Parameter(torch.stack(tables), requires_grad=self.table.requires_grad)
        return carried

    def extra_repr(self) -> str:
        return f"clip={self.clip}, shared={self.shared}, table={tuple(self.table.shape)}"
