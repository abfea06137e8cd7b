"""Conditional positional encoding: a Position Encoding Generator (PEG) (Chu et al. 2021, arXiv 2102.10882).

After the first block, the patch tokens are laid back on their grid and a depthwise 3x3 convolution
(zero padding) is added to them: x + DWConv(x). Position comes from the neighbourhood and from the
zero padding at the border, so it works at any grid without resampling.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from minivit.checks import Annotated, Whole
from minivit.posenc.base import Grid, PositionalEncoding


class PEG(PositionalEncoding):
    """x + depthwise conv(x) on the token grid, before block `at_layer`.

    Args:
        at_layer: the block before which the PEG acts: 0 puts it before any attention; default 1,
            after the first block (0 in a model of one block).
        kernel_size: odd size of the depthwise convolution.
    """

    def __init__(
        self,
        *,
        at_layer: Annotated[int | None, Whole(least=0, below="depth")] = None,
        kernel_size: Annotated[int, Whole(least=1, odd=True, why="so the grid keeps its size")] = 3,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if kernel_size < 1 or kernel_size % 2 != 1:
            raise ValueError(f"PEG kernel_size must be odd and >= 1 to keep the grid, got {kernel_size}")
        if at_layer is not None and not 0 <= at_layer < self.depth:
            raise ValueError(f"PEG at_layer={at_layer} is not a block of this model; use 0..{self.depth - 1}")
        self.at_layer = min(1, self.depth - 1) if at_layer is None else at_layer
        self.conv = nn.Conv2d(self.dim, self.dim, kernel_size, padding=kernel_size // 2, groups=self.dim)

    def add_to_tokens(self, x: Tensor, grid: Grid, layer: int) -> Tensor:
        if layer != self.at_layer:
            return x
        self.check_tokens(x, grid)
        p, (gh, gw) = self.num_prefix_tokens, grid
        prefix, patches = x[:, :p], x[:, p:]
        img = patches.transpose(1, 2).reshape(len(x), self.dim, gh, gw)  # (B, D, gh, gw)
        patches = patches + self.conv(img).flatten(2).transpose(1, 2)  # (B, N, D)
        return torch.cat([prefix, patches], dim=1)
