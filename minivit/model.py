"""A Vision Transformer whose positional encoding is a plug-in (Dosovitskiy et al. 2021, arXiv 2010.11929).

    images [B, C, H, W] -> PatchEmbed -> tokens [B, P+N, D] (+ class token) -> Blocks -> norm
           -> pool -> head -> logits [B, classes]

The patch grid (gh, gw) travels with the tokens: each block passes it to the positional encoding,
so a model trained at one image size runs at any other size divisible by the patch size.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from minivit import posenc
from minivit.attention import Attention
from minivit.config import ViTConfig, grid_of
from minivit.devices import device_memory
from minivit.posenc.base import Grid, PositionalEncoding


class PatchEmbed(nn.Module):
    """Cut an image into non-overlapping p x p patches and project each to width D."""

    def __init__(self, patch_size: int, in_channels: int, dim: int):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_channels, dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, images: Tensor) -> tuple[Tensor, Grid]:
        """Returns tokens [B, N, D] in raster order and the grid (gh, gw), N = gh * gw."""
        grid = grid_of(tuple(images.shape[-2:]), self.patch_size)
        x = self.proj(images)  # (B, D, gh, gw)
        return x.flatten(2).transpose(1, 2), grid  # (B, N, D)


class MLP(nn.Sequential):
    def __init__(self, dim: int, hidden: int, dropout: float = 0.0):
        super().__init__(
            nn.Linear(dim, hidden),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, dim),
            nn.Dropout(dropout),
        )


class Block(nn.Module):
    """Transformer block: pre-LN x + attn(norm(x)), x + mlp(norm(x)); or post-LN norm(x + attn(x))."""

    def __init__(self, config: ViTConfig):
        super().__init__()
        self.norm_first = config.norm_first
        self.norm1 = nn.LayerNorm(config.dim)
        self.attn = Attention(config.dim, config.heads, config.dropout)
        self.norm2 = nn.LayerNorm(config.dim)
        self.mlp = MLP(config.dim, int(config.dim * config.mlp_ratio), config.dropout)

    def forward(
        self, x: Tensor, grid: Grid, pos: PositionalEncoding, layer: int, need_weights: bool = False
    ) -> tuple[Tensor, Tensor | None]:
        if self.norm_first:
            a, weights = self.attn(self.norm1(x), grid, pos, layer, need_weights)
            x = x + a
            return x + self.mlp(self.norm2(x)), weights
        a, weights = self.attn(x, grid, pos, layer, need_weights)
        x = self.norm1(x + a)
        return self.norm2(x + self.mlp(x)), weights


def _checkable(images: Tensor, training: bool) -> bool:
    """Whether a forward pass checks its images for NaN: on the CPU, and in eval mode anywhere, but
    not inside torch.compile or vmap (an ensemble's), nor in a GPU training step, whose data `fit`
    checked once and which must not wait for the device."""
    if torch.compiler.is_compiling() or torch._C._are_functorch_transforms_active():
        return False
    return images.device.type == "cpu" or (not training and images.device.type != "meta")


class ViT(nn.Module):
    """Vision Transformer built from a ViTConfig; `model.pos` is its positional encoding."""

    def __init__(self, config: ViTConfig):
        super().__init__()
        _check_weights_fit(config)
        self.config = config
        self.patch_embed = PatchEmbed(config.patch_size, config.in_channels, config.dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, config.dim)) if config.pool == "cls" else None
        self.pos = _build_encoding(config)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.depth))
        # pre-LN blocks leave the residual stream unnormalised; post-LN blocks end normalised
        self.norm = nn.LayerNorm(config.dim) if config.norm_first else nn.Identity()
        self.head = nn.Linear(config.dim, config.num_classes)
        self._initialise(_init_weights if config.init == "trunc_normal" else _torch_init)

    def _initialise(self, init) -> None:
        """`init` applied to every module, as `self.apply(init)` does and in its order (so one seed
        gives the same weights), except that the encoding decides where it reaches inside it
        (`PositionalEncoding.init_weights`; by default everywhere, as `apply`)."""
        for child in self.children():
            if child is self.pos:
                self.pos.init_weights(init)
            else:
                child.apply(init)
        init(self)

    def tokens(self, images: Tensor, *, need_weights: bool = False) -> tuple[Tensor, Grid, list[Tensor]]:
        """Final normalised tokens [B, P+N, D], the grid, and each block's attention [B, H, P+N, P+N]
        (an empty list unless `need_weights`)."""
        if not isinstance(images, Tensor) or images.dim() != 4:
            got = f"shape {tuple(images.shape)}" if isinstance(images, Tensor) else type(images).__name__
            fix = (
                "add a batch axis with images[None]"
                if getattr(images, "ndim", 0) == 3
                else "pass [B, C, H, W]"
            )
            raise ValueError(f"images must be a tensor [B, C, H, W], got {got}; {fix}")
        if images.dtype != self.patch_embed.proj.weight.dtype:
            raise ValueError(
                f"images are {images.dtype}, the model's weights {self.patch_embed.proj.weight.dtype}; "
                f"pass images.to({self.patch_embed.proj.weight.dtype}) (e.g. pixels in [0, 1])"
            )
        if images.shape[1] != self.config.in_channels:
            raise ValueError(
                f"images have {images.shape[1]} channels but the model expects "
                f"{self.config.in_channels}; pass [B, {self.config.in_channels}, H, W]"
            )
        if _checkable(images, self.training) and not torch.isfinite(images).all():
            raise ValueError(
                "images hold NaN or inf values; pass finite float images (e.g. pixels in [0, 1]): the "
                "model's outputs would be NaN"
            )
        x, grid = self.patch_embed(images)  # (B, N, D)
        if self.cls_token is not None:
            x = torch.cat([self.cls_token.expand(len(x), -1, -1), x], dim=1)  # (B, 1+N, D)
        attention = []
        for layer, block in enumerate(self.blocks):
            x = self.pos.add_to_tokens(x, grid, layer)
            x, weights = block(x, grid, self.pos, layer, need_weights)
            if need_weights:
                attention.append(weights)
        return self.norm(x), grid, attention

    def pool(self, x: Tensor) -> Tensor:
        """Tokens [B, P+N, D] -> one vector per image [B, D]; with pool "tokens", the N patch tokens
        [B, N, D] (the head then gives one output per token)."""
        if self.config.pool == "tokens":
            return x[:, self.config.num_prefix_tokens :]
        if self.config.pool == "mean":
            return x.mean(dim=1)
        if self.config.pool == "cls":
            return x[:, 0]
        return x[:, -1]  # "last"

    def features(self, images: Tensor) -> Tensor:
        """Pooled features [B, D], the input of the classification head."""
        return self.pool(self.tokens(images)[0])

    def forward(self, images: Tensor) -> Tensor:
        """Class logits [B, num_classes] for images [B, C, H, W] of any size divisible by the patch;
        with pool "tokens", outputs [B, N, num_classes], one per patch token in raster order."""
        return self.head(self.features(images))

    def attention_maps(self, images: Tensor) -> list[Tensor]:
        """Each block's attention weights [B, H, P+N, P+N] (explicit path, same result as forward)."""
        return self.tokens(images, need_weights=True)[2]

    def parameter_groups(self, weight_decay: float) -> list[dict]:
        """AdamW groups: decay matrices; no decay on biases, norms, tokens, and what the encoding exempts."""
        exempt = {f"pos.{n}" for n in self.pos.no_weight_decay()}
        decay, no_decay = [], []
        for name, p in self.named_parameters():
            if not p.requires_grad:
                continue
            if p.ndim < 2 or name in exempt or name == "cls_token":
                no_decay.append(p)
            else:
                decay.append(p)
        return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def encoding_of(config: ViTConfig) -> PositionalEncoding:
    """The positional encoding a ViT of `config` has, built on the meta device: its own checks and
    its shapes, nothing allocated."""
    with torch.device("meta"):
        return _build_encoding(config)


def _build_encoding(config: ViTConfig) -> PositionalEncoding:
    """The positional encoding of a ViT of `config`, built on the current device."""
    return posenc.build(
        config.position,
        dim=config.dim,
        heads=config.heads,
        depth=config.depth,
        grid=config.grid,
        num_prefix_tokens=config.num_prefix_tokens,
        **config.position_options,
    )


def count_parameters(
    config: ViTConfig, pos: PositionalEncoding | None = None, *, encoding: bool = True
) -> int:
    """The parameters of a ViT of `config`, counted from its shape without building it (so a config
    of 100,000 blocks is counted at once); `pos` is its encoding if already built (`encoding_of`).
    With `encoding=False`, those of the blocks, embedding and head only: nothing is built."""
    d, c, p = config.dim, config.in_channels, config.patch_size
    hidden = int(d * config.mlp_ratio)
    block = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d  # norm1, qkv, proj, norm2
    block += (d * hidden + hidden) + (hidden * d + d)  # the MLP's two layers
    embed = c * p * p * d + d + (d if config.pool == "cls" else 0)  # patch projection, class token
    outside = (2 * d if config.norm_first else 0) + d * config.num_classes + config.num_classes  # norm, head
    own = sum(t.numel() for t in (pos or encoding_of(config)).parameters()) if encoding else 0
    return embed + config.depth * block + outside + own


def _check_weights_fit(config: ViTConfig) -> None:
    """Raise a ValueError before allocating anything if the weights of a ViT with `config` alone need
    more memory than the device it is built on has free (a model built on the meta device, which
    allocates nothing, is not checked)."""
    device = torch.empty(0).device  # where factory functions put tensors now
    if device.type == "meta":
        return
    available = device_memory(device)
    if available is None:
        return
    n, own = count_parameters(config, encoding=False), 0  # too large without its encoding: not built
    if 4 * n <= available:
        pos = encoding_of(config)  # an encoding may build one table per block (rope-mixed)
        own = sum(p.numel() for p in pos.parameters())
        n += own
    if 4 * n <= available:
        return
    options = ", ".join(config.position_options)
    advice = "lower dim or depth"
    if own > n / 2:
        advice = f"most are the {config.position} encoding's: use fewer tokens (image_size, patch_size)" + (
            f" or other values of its options ({options})" if options else ""
        )
    raise ValueError(
        f"a ViT of this config has {n:,} parameters: {4 * n / 1e9:.1f} GB of weights alone, more than the "
        f"{available / 1e9:.1f} GB this machine has free; {advice}"
    )


def _torch_init(m: nn.Module) -> None:
    """PyTorch's own init, as a model built from nn.MultiheadAttention, nn.Linear and nn.LayerNorm
    has it (Ito et al.'s reference code): every Linear keeps its default (kaiming-uniform weights,
    std 1/sqrt(3 fan_in), and uniform biases), except the attention's, which nn.MultiheadAttention
    resets: its joint q/k/v projection xavier-uniform with zero bias, its output projection's bias
    zero. About 2-3x larger than minivit's truncated normal at width 160."""
    if isinstance(m, Attention):
        nn.init.xavier_uniform_(m.qkv.weight)
        nn.init.zeros_(m.qkv.bias)
        nn.init.zeros_(m.proj.bias)


def _init_weights(m: nn.Module) -> None:
    """Linear weights N(0, 0.02^2) cut at +-2 std (0.04) and not rescaled, so their spread is 0.0176:
    TensorFlow's truncated normal, as in BERT. timm's trunc_normal_(std=.02) cuts at +-2 absolute,
    which leaves N(0, 0.02^2) whole, 12% wider. minivit keeps its cut-off, under which every recorded
    result (minivit/experiments/recorded) was trained."""
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02, a=-0.04, b=0.04)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.LayerNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)
