"""Learned absolute position embeddings (ViT, Dosovitskiy et al. 2021, arXiv 2010.11929).

A trainable vector per token, added to the tokens. How it is initialised matters (Ito et al. 2024,
arXiv 2406.08272): a small-norm table learns the 2-D layout and generalizes, a large one memorizes.
At a new grid the table is resampled bicubically on the 2-D grid, as DeiT and timm do.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from minivit.checks import Annotated, Choice, Number, check_whole
from minivit.devices import check_room
from minivit.posenc.base import Grid, PositionalEncoding

INITS = ("zeros", "normal", "trunc_normal")


def resample(
    table: Tensor, old_grid: Grid, new_grid: Grid, *, num_prefix_tokens: int = 0, antialias: bool = False
) -> Tensor:
    """Resample a table [P+N, D] from `old_grid` to `new_grid` bicubically; prefix rows kept apart.

    `antialias=False` is DeiT's and RoPE-ViT's resize, `antialias=True` timm's default. They differ at
    every new size: PyTorch's cubic kernel has a = -0.75 without antialias and a = -0.5 (PIL's) with
    it, which is also stretched over more input rows when shrinking. The original ViT code resizes
    linearly (`scipy.ndimage.zoom(..., order=1)`).
    """
    p = num_prefix_tokens
    (oh, ow), (nh, nw) = old_grid, new_grid
    for name, side in (("old_grid", oh), ("old_grid", ow), ("new_grid", nh), ("new_grid", nw)):
        check_whole(name, side, 1)
    if table.shape[0] != p + oh * ow:
        raise ValueError(
            f"table has {table.shape[0]} rows but grid {oh}x{ow} with {p} prefix token(s) needs "
            f"{p + oh * ow}; pass the grid the table was trained at"
        )
    if not torch.isfinite(table).all():
        bad = (~torch.isfinite(table)).any(-1).nonzero().flatten().tolist()
        raise ValueError(
            f"table has NaN or infinite entries in {len(bad)} row(s) (first: row {bad[0]}); resampling "
            "would spread them to every neighbour: load a table from a run whose loss stayed finite"
        )
    prefix, patches = table[:p], table[p:]
    d = patches.shape[-1]
    check_room(  # the resized table in float32, its copy and the joined result
        3 * (p + nh * nw) * d * 4,
        f"resample to new_grid=({nh}, {nw})",
        "pass a smaller new_grid (as many patches a side as the new images have)",
        table.device,
    )
    img = patches.reshape(1, oh, ow, d).permute(0, 3, 1, 2)  # (1, D, oh, ow)
    img = F.interpolate(
        img.float(), size=(nh, nw), mode="bicubic", align_corners=False, antialias=antialias
    )  # (1, D, nh, nw)
    patches = img.permute(0, 2, 3, 1).reshape(nh * nw, d).to(table.dtype)  # (nh*nw, D)
    return torch.cat([prefix, patches], dim=0)


class Learned(PositionalEncoding):
    """A trainable table [L, P+N, D] added to the tokens; L = depth with `per_block`, else 1.

    Args:
        init: "zeros", "normal" (N(0, std^2)) or "trunc_normal": N(0, std^2) cut at +-2 std and not
            rescaled, so its actual spread is 0.88 std (TensorFlow's truncated normal, BERT's init
            with std 0.02). ViT's JAX code draws the table from normal(0.02); timm's
            `trunc_normal_(pos_embed, std=.02)` cuts at +-2 itself (absolute), 100 std away, which
            leaves N(0, 0.02^2) untouched: both are `init="normal", std=0.02` here.
        std: the initial scale sigma.
        per_block: one table per block, added before each block's attention (Ito et al. 2024);
            otherwise one table added before the first block.
        antialias: antialias when resampling to a smaller grid.
    """

    prefix_untouched = False  # a class token gets its own row of the table

    def __init__(
        self,
        *,
        init: Annotated[str, Choice(INITS)] = "trunc_normal",
        std: Annotated[float, Number(low=0)] = 0.02,
        per_block: bool = False,
        antialias: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if init not in INITS:
            raise ValueError(f"unknown init {init!r} for learned positions; known: {', '.join(INITS)}")
        self.init, self.std, self.per_block, self.antialias = init, float(std), per_block, antialias
        layers = self.depth if per_block else 1
        n = self.num_prefix_tokens + self.grid[0] * self.grid[1]
        self.table = nn.Parameter(torch.zeros(layers, n, self.dim))  # (L, P+N, D)
        if init == "normal":
            nn.init.normal_(self.table, std=self.std)
        elif init == "trunc_normal" and self.std > 0:
            nn.init.trunc_normal_(self.table, std=self.std, a=-2 * self.std, b=2 * self.std)

    def no_weight_decay(self) -> set[str]:
        return {"table"}  # decaying a position table pulls every position towards the same vector

    def table_for(self, grid: Grid, layer: int = 0) -> Tensor:
        """The table used before block `layer` at `grid`: [P+N, D], resampled if the grid is new."""
        t = self.table[layer if self.per_block else 0]
        if tuple(grid) == self.grid:
            return t
        return resample(
            t, self.grid, grid, num_prefix_tokens=self.num_prefix_tokens, antialias=self.antialias
        )

    def carry_to(self, grid: Grid) -> Learned:
        """The table resampled to `grid` as `table_for` resamples it there (DeiT's fine-tune at a new
        size), then trained at that size."""
        carried = super().carry_to(grid)
        tables = torch.stack([self.table_for(grid, layer).detach() for layer in range(len(self.table))])
        carried.table = nn.Parameter(tables, requires_grad=self.table.requires_grad)
        return carried

    def add_to_tokens(self, x: Tensor, grid: Grid, layer: int) -> Tensor:
        if layer != 0 and not self.per_block:
            return x
        self.check_tokens(x, grid)
        return x + self.table_for(grid, layer).to(x.dtype)

    def extra_repr(self) -> str:
        return (
            f"init={self.init}, std={self.std:g}, per_block={self.per_block}, "
            f"grid={self.grid}, antialias={self.antialias}"
        )
