"""The one interface every positional encoding implements: three hooks, each a no-op by default.

A ViT can learn where a token is at three places (the same three timm plugs encodings into):

    add_to_tokens(x, grid, layer)   absolute: a vector added to each token   (learned, sinusoidal, PEG)
    rotate(q, k, grid, layer)       rotary: q and k rotated by position     (RoPE)
    attn_bias(grid, layer)          a bias added to the attention logits    (ALiBi, relative bias)

The model calls `add_to_tokens` before every block `layer` (absolute tables act at layer 0 only,
unless they are per block), and `rotate` / `attn_bias` inside every block's attention. Each hook
receives the patch grid (gh, gw) of the current input, so every encoding can be asked for a grid it
was not trained on. Prefix tokens (a class token) come first; they are never rotated and get zero bias.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from minivit.checks import Annotated, Number

Grid = tuple[int, int]
# the base of the frequencies base^(-2i/D) of sinusoidal encodings and RoPE (base 1 makes every
# frequency 1; below 1 they grow past 1 radian per step)
Base = Annotated[float, Number(low=1, low_ok=False, why="the wavelengths then grow from pair to pair")]


def grid_coords(grid: Grid, *, device=None, dtype=torch.float32) -> Tensor:
    """(row, col) of every patch in raster order: [gh*gw, 2]."""
    gh, gw = grid
    rows = torch.arange(gh, device=device, dtype=dtype)
    cols = torch.arange(gw, device=device, dtype=dtype)
    r, c = torch.meshgrid(rows, cols, indexing="ij")  # (gh, gw) each
    return torch.stack([r.reshape(-1), c.reshape(-1)], dim=-1)  # (gh*gw, 2)


def pad_prefix(bias: Tensor, num_prefix_tokens: int) -> Tensor:
    """Extend a patch-to-patch bias [H, n, n] with zero rows/cols for the prefix tokens first."""
    if num_prefix_tokens == 0:
        return bias
    p = num_prefix_tokens
    return nn.functional.pad(bias, (p, 0, p, 0))  # (H, p+n, p+n)


class PositionalEncoding(nn.Module):
    """Base class: knows the model's shape, does nothing to tokens, q/k or logits.

    Args:
        dim: token width D.
        heads: attention heads H (head width Dh = D // H).
        depth: number of blocks.
        grid: the training grid (gh, gw); learned tables are this size.
        num_prefix_tokens: tokens before the patches (1 for a class token).
    """

    # `rotate` is linear in q and k (RoPE's rotations are): logits then split exactly into content
    # and position terms (`minivit.analysis.logit_terms`); PoPE's softplus is not
    rotate_is_linear = True

    def __init__(self, *, dim: int, heads: int, depth: int, grid: Grid, num_prefix_tokens: int = 0):
        super().__init__()
        self.dim, self.heads, self.depth = dim, heads, depth
        self.head_dim = dim // heads
        self.grid = tuple(grid)
        self.num_prefix_tokens = num_prefix_tokens

    def add_to_tokens(self, x: Tensor, grid: Grid, layer: int) -> Tensor:
        """Tokens [B, P+N, D] before block `layer`, with position added. Default: unchanged."""
        return x

    def rotate(self, q: Tensor, k: Tensor, grid: Grid, layer: int) -> tuple[Tensor, Tensor]:
        """Queries and keys [B, H, P+N, Dh] in block `layer`, rotated by position. Default: unchanged.

        Both come back with one width, which attention divides by (its square root): Dh for RoPE,
        2 Dh for PoPE (a real and an imaginary part per channel)."""
        return q, k

    def attn_bias(self, grid: Grid, layer: int) -> Tensor | None:
        """Bias [H, P+N, P+N] added to block `layer`'s attention logits, or None (no bias)."""
        return None

    def no_weight_decay(self) -> set[str]:
        """Names of this module's parameters that the optimizer must not decay."""
        return set()

    def check_tokens(self, x: Tensor, grid: Grid) -> None:
        """Raise a clear error if `x` does not hold the prefix tokens plus one token per grid cell."""
        expected = self.num_prefix_tokens + grid[0] * grid[1]
        if x.shape[-2] != expected:
            raise ValueError(
                f"{x.shape[-2]} tokens do not match grid {grid[0]}x{grid[1]} with "
                f"{self.num_prefix_tokens} prefix token(s) (expected {expected}); pass the grid "
                "of the image the tokens came from, as ViT.forward does"
            )
