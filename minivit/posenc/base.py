"""The one interface every positional encoding implements: three hooks, each a no-op by default.

A ViT can learn where a token is at three places (the same three timm plugs encodings into):

    add_to_tokens(x, grid, layer)   absolute: a vector added to each token   (learned, sinusoidal, PEG)
    rotate(q, k, grid, layer)       rotary: q and k rotated by position     (RoPE)
    attn_bias(grid, layer)          a bias added to the attention logits    (ALiBi, relative bias)

The model calls `add_to_tokens` before every block `layer` (absolute tables act at layer 0 only,
unless they are per block), and `rotate` / `attn_bias` inside every block's attention. Each hook
receives the patch grid (gh, gw) of the current input, so every encoding can be asked for a grid it
was not trained on. Prefix tokens (a class token) come first; they are never rotated and get zero bias
(so a bias's level is relative to theirs: a bias that is large everywhere starves the class token).

Two more hooks concern the encoding as a whole rather than one forward pass:

    carry_to(grid)            the encoding for a model rebuilt at another training grid (`finetune`)
    init_weights(model_init)  where the model's initialisation reaches inside the encoding

`docs/adding_an_encoding.md` is the recipe for a new encoding.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

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


def grid_distances(grid: Grid, *, device=None) -> Tensor:
    """Euclidean distance between every pair of patches (row, col), in patches: [N, N]."""
    rc = grid_coords(grid, device=device)
    return torch.cdist(rc, rc)


class GridCache:
    """Fixed values an encoding computes once per grid and device (a distance matrix, rotations),
    keyed by the grid, the device and whatever else they depend on (`extra`: an option that can be
    switched after a run, the `reference_grid` a state dict sets).

    Only values that no parameter enters: one computed from a parameter would neither train nor
    follow `load_state_dict`, so `get` refuses a value that requires grad. Cache what comes before
    the parameter (the distances) and apply the parameter at every call.
    """

    def __init__(self):
        self._values: dict = {}

    def get(self, grid: Grid, device, compute: Callable[[], Tensor], *extra) -> Tensor:
        """The value for (grid, device, *extra), computed by `compute()` the first time."""
        key = (tuple(grid), device, *extra)
        if key not in self._values:
            value = compute()
            if value.requires_grad:
                raise ValueError(
                    "a cached value must not depend on a parameter (it would not train, and would "
                    "outlive load_state_dict): cache what comes before the parameter, apply it at each call"
                )
            self._values[key] = value
        return self._values[key]


def pad_prefix(bias: Tensor, num_prefix_tokens: int) -> Tensor:
    """Extend a patch-to-patch bias [H, n, n] with zero rows/cols for the prefix tokens first."""
    if num_prefix_tokens == 0:
        return bias
    p = num_prefix_tokens
    return nn.functional.pad(bias, (p, 0, p, 0))  # (H, p+n, p+n)


def relative_offsets(grid: Grid, *, device=None) -> Tensor:
    """Offsets (dy, dx) = (r_i - r_j, c_i - c_j) between every pair of patches: [N, N, 2] (long)."""
    rc = grid_coords(grid, dtype=torch.long, device=device)  # (N, 2)
    return rc[:, None, :] - rc[None, :, :]  # (N, N, 2)


def offset_bias(table: Tensor, grid: Grid, num_prefix_tokens: int = 0) -> Tensor:
    """The attention bias [H, P+N, P+N] that a per-offset table [H, 2R_h + 1, 2R_w + 1] gives at `grid`:

        bias[h, i, j] = table[h, clamp(r_i - r_j, -R_h, R_h) + R_h, clamp(c_i - c_j, -R_w, R_w) + R_w]

    (entry [R_h, R_w] is offset 0; offsets past the table's radius take its outermost entry), with
    zero rows and columns for the prefix tokens (`pad_prefix`). The table may be computed, e.g. by an
    MLP over the offsets, or learned (`relative`)."""
    h, w = table.shape[-2:]
    if table.dim() != 3 or h % 2 == 0 or w % 2 == 0:
        raise ValueError(
            f"an offset table is [H, 2R_h + 1, 2R_w + 1] (odd sides, offset 0 in the middle), got "
            f"{tuple(table.shape)}; index offsets -R..R as offset + R"
        )
    rh, rw = (h - 1) // 2, (w - 1) // 2
    off = relative_offsets(grid, device=table.device)  # (N, N, 2)
    dy = off[..., 0].clamp(-rh, rh) + rh
    dx = off[..., 1].clamp(-rw, rw) + rw
    return pad_prefix(table[:, dy, dx], num_prefix_tokens)  # (H, P+N, P+N)


class PositionalEncoding(nn.Module):
    """Base class: knows the model's shape, does nothing to tokens, q/k or logits.

    Args:
        dim: token width D.
        heads: attention heads H (head width Dh = D // H).
        depth: number of blocks.
        grid: the grid (gh, gw) the model is built for, its training grid: tables learned per
            position (`learned`, `relative`) are this size.
        num_prefix_tokens: tokens before the patches (1 for a class token).

    `reference_grid` is the grid that positions are measured against, where an encoding scales them
    by a trained size (LieRE's row / gh, position interpolation's trained / new size): the grid the
    encoding was first trained at. It equals `grid` unless the encoding was carried to another grid
    (`carry_to`), and a state dict keeps it (under `reference_grid`, only where it differs from
    `grid`, so the state dicts of encodings never carried are unchanged).
    """

    # `rotate` is linear in q and k (RoPE's rotations are): logits then split exactly into content
    # and position terms (`minivit.analysis.logit_terms`); PoPE's softplus is not
    rotate_is_linear = True

    # Traits an encoding declares, checked by the shared tests (tests/test_posenc_shared.py) for every
    # registered encoding that declares them, and their absence for every one that does not:
    # offset_only: with one content vector at every patch, a block's scores between patches depend on
    #   their 2-D offset alone, at any grid (RoPE, ALiBi, relative bias);
    # symmetric: with one content vector at every patch, patch i scores patch j as j scores i (ALiBi);
    # prefix_untouched: the hooks leave prefix tokens as they are: nothing added, not rotated (False
    #   where a class token gets a learned vector or a change of basis of its own).
    # An option may change a trait: the constructor then sets it on the instance (LieRE's `commuting`).
    offset_only = False
    symmetric = False
    prefix_untouched = True

    def __init__(self, *, dim: int, heads: int, depth: int, grid: Grid, num_prefix_tokens: int = 0):
        super().__init__()
        self.dim, self.heads, self.depth = dim, heads, depth
        self.head_dim = dim // heads
        self.grid = tuple(grid)
        self.reference_grid = self.grid
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

    def carry_to(self, grid: Grid) -> PositionalEncoding:
        """This encoding for a model rebuilt at training grid `grid` (as `finetune` rebuilds one at a
        new image size), keeping what it was trained on: at `grid`, the carried encoding computes
        what this one computes there. `self` is left as it is.

        Default: a copy whose `grid` (and that of every encoding inside it) is the new one and whose
        `reference_grid` is kept, so positions are still measured against the grid it was trained at.
        An encoding with parameters of the grid's size overrides this to resample them to `grid`
        (`learned` resamples its table bicubically, `relative` resizes its offset table)."""
        carried = copy.deepcopy(self)
        for module in carried.modules():
            if isinstance(module, PositionalEncoding):
                module.grid = tuple(grid)
        return carried

    def init_weights(self, model_init: Callable[[nn.Module], None]) -> None:
        """Called once by the ViT after it is built, with the ViT's own initialisation (its config's
        `init`), which is a function of one module. Default: `self.apply(model_init)`, so the
        model's init reaches every module inside the encoding. Under init "trunc_normal" that
        re-initialises every nn.Linear (weights truncated normal, std 0.02, cut at 0.04; biases zero)
        and nn.LayerNorm (ones, zeros); under init "torch" it leaves them at PyTorch's defaults.
        Parameters held directly (tables, frequencies, generators) and convolutions are not touched.
        Override to own the initialisation: the constructor's then stands (`pass`), or set it here."""
        self.apply(model_init)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        if self.reference_grid != self.grid:  # carried: keep what positions are measured against
            destination[prefix + "reference_grid"] = torch.tensor(self.reference_grid)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        saved = state_dict.pop(prefix + "reference_grid", None)  # load_state_dict passes a copy
        if saved is None:
            self.reference_grid = self.grid  # never carried: measured against its own grid
        elif not isinstance(saved, Tensor) or saved.shape != (2,) or saved.is_floating_point():
            errors.append(f"{prefix}reference_grid must be two whole numbers (rows, cols), got {saved!r}")
        else:
            self.reference_grid = (int(saved[0]), int(saved[1]))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)

    def check_tokens(self, x: Tensor, grid: Grid) -> None:
        """Raise a clear error if `x` does not hold the prefix tokens plus one token per grid cell."""
        expected = self.num_prefix_tokens + grid[0] * grid[1]
        if x.shape[-2] != expected:
            raise ValueError(
                f"{x.shape[-2]} tokens do not match grid {grid[0]}x{grid[1]} with "
                f"{self.num_prefix_tokens} prefix token(s) (expected {expected}); pass the grid "
                "of the image the tokens came from, as ViT.forward does"
            )
