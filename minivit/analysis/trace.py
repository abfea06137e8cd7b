"""Looking inside a model: run it once and record what each block receives and returns, the logits
its softmax takes, and those logits split into what content and position contribute (Ke et al.
2021, arXiv 2006.15595). The functions that take a ViT run it in eval mode without gradients and
leave it as it was."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from minivit.posenc.base import Grid, PositionalEncoding

if TYPE_CHECKING:
    from minivit.model import ViT


TERMS = ("content_content", "content_position", "position_content", "position_position", "bias")


@contextmanager
def inspecting(model: nn.Module) -> Iterator[None]:
    """Eval mode and no gradients for the duration; the model's mode is restored afterwards."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        model.train(was_training)


def _on_model(model: nn.Module, x: Tensor) -> Tensor:
    """`x` on the device of the model's parameters (a model trained on a GPU, inputs made on the CPU)."""
    first = next(model.parameters(), None)
    return x if first is None else x.to(first.device)


def _check_layer(model: ViT, layer: int) -> None:
    depth = len(model.blocks)
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < depth:
        raise ValueError(f"layer={layer!r} is not a block of this model; use 0 to {depth - 1}")


def trace(model: ViT, images: Tensor) -> dict:
    """Run the model once and record, for every block, the tokens before and after the encoding's
    `add_to_tokens`, the output of the block's qkv projection and the block's output (on the model's
    device: images are moved there)."""
    images = _on_model(model, images)
    record: dict = {"content": [], "position": [], "inputs": [], "qkv": [], "outputs": []}
    pos = model.pos
    add_to_tokens = pos.add_to_tokens

    def recording_add(x: Tensor, grid: Grid, layer: int) -> Tensor:
        out = add_to_tokens(x, grid, layer)
        record["content"].append(x)
        record["position"].append(out - x)
        record["inputs"].append(out)
        return out

    hooks = []
    for block in model.blocks:
        hooks.append(block.attn.qkv.register_forward_hook(lambda m, a, out: record["qkv"].append(out)))
        hooks.append(block.register_forward_hook(lambda m, a, out: record["outputs"].append(out[0])))
    pos.add_to_tokens = recording_add  # an instance attribute shadows the method while we record
    try:
        with inspecting(model):
            grid = model.tokens(images)[1]
    finally:
        del pos.add_to_tokens
        for hook in hooks:
            hook.remove()
    if len(record["inputs"]) != len(model.blocks):
        raise RuntimeError(
            f"recorded {len(record['inputs'])} calls of add_to_tokens for {len(model.blocks)} blocks; "
            "the analysis needs a model that calls pos.add_to_tokens once before each block, as ViT does"
        )
    record["grid"] = grid
    return record


def _split_heads(attn: nn.Module, qkv: Tensor) -> tuple[Tensor, Tensor]:
    """The output of a qkv projection [B, N, 3D] -> q, k [B, H, N, Dh], as `Attention.forward` splits it."""
    B, N, _ = qkv.shape
    q, k, _ = qkv.view(B, N, 3, attn.heads, attn.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
    return q, k


def _logits(attn: nn.Module, qkv: Tensor, grid: Grid, pos: PositionalEncoding, layer: int) -> Tensor:
    """Logits [B, H, N, N] = rotate(q) rotate(k)^T / sqrt(Dh) + bias, as `explicit_attention` forms them."""
    q, k = pos.rotate(*_split_heads(attn, qkv), grid, layer)
    logits = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    bias = pos.attn_bias(grid, layer)
    return logits if bias is None else logits + bias.to(logits.dtype)


def block_tokens(model: ViT, images: Tensor) -> dict:
    """What every block of `model` receives and returns on `images` [B, C, H, W].

    Returns a dict of lists with one tensor [B, P+N, D] per block (P prefix tokens first), and the grid:
        content: the tokens before the encoding's `add_to_tokens` for this block;
        position: what `add_to_tokens` added (zero where the encoding adds nothing);
        inputs: content + position, the tokens the block takes;
        outputs: the tokens the block returns (before the model's final norm);
        grid: (gh, gw).
    """
    record = trace(model, images)
    return {key: record[key] for key in ("content", "position", "inputs", "outputs", "grid")}


def attention_logits(model: ViT, images: Tensor) -> list[Tensor]:
    """Each block's attention logits [B, H, P+N, P+N], the scores its softmax takes:
    rotate(q) rotate(k)^T / sqrt(Dh) + bias, from the q and k the model's own qkv projection produced."""
    record = trace(model, images)
    return [
        _logits(block.attn, qkv, record["grid"], model.pos, layer)
        for layer, (block, qkv) in enumerate(zip(model.blocks, record["qkv"], strict=True))
    ]


def logit_terms(model: ViT, images: Tensor, layer: int = 0) -> dict:
    """Block `layer`'s attention logits split into what content and position contribute (the four
    terms of Ke et al. 2021, arXiv 2006.15595), exactly:

        logit_ij = q(c_i).k(c_j) + q(c_i).k(e_j) + q(e_i).k(c_j) + q(e_i).k(e_j) + bias_ij

    (each product divided by sqrt(Dh)), where e is what the encoding's `add_to_tokens` added before
    this block and c the tokens it was added to (`block_tokens`; for `peg`, e is a convolution of
    the tokens, so itself made of content). A pre-LN block normalises c + e first; LayerNorm is
    linear once its per-token scale s = sqrt(var(c + e) + eps) is fixed, so
    LN(c + e) = [g (c - mean c) / s + b] + [g (e - mean e) / s] splits exactly. The content part
    keeps LayerNorm's and the projections' biases; RoPE's rotation, being linear, applies to each
    part; `bias` is the encoding's `attn_bias`.

    Returns a dict:
        content_content, content_position, position_content, position_position, bias:
            [B, H, P+N, P+N] (query content . key position is `content_position`);
        logits: [B, H, P+N, P+N] their sum (the block's logits, see `attention_logits`);
        shares: {term: [H]} each term's share of how the logits vary over keys (softmax ignores
            a constant per query): mean over b, i, j of |T_ij - mean_j T_ij|, over the sum for all terms.
    """
    _check_layer(model, layer)
    if not model.pos.rotate_is_linear:
        raise ValueError(
            f"logit_terms splits the logits into content and position terms through the encoding's "
            f"rotation, which must be linear in q and k; {type(model.pos).__name__}'s is not (PoPE takes "
            "softplus of each channel); use attention_logits for its logits"
        )
    record = trace(model, images)
    block, grid, pos = model.blocks[layer], record["grid"], model.pos
    attn = block.attn
    c, e = record["content"][layer], record["position"][layer]
    with torch.no_grad():
        if block.norm_first:
            norm = block.norm1
            x = record["inputs"][layer]
            scale = (x.var(-1, unbiased=False, keepdim=True) + norm.eps).sqrt()  # (B, P+N, 1)
            c = (c - c.mean(-1, keepdim=True)) / scale * norm.weight + norm.bias
            e = (e - e.mean(-1, keepdim=True)) / scale * norm.weight
        qc, kc = pos.rotate(*_split_heads(attn, attn.qkv(c)), grid, layer)  # content keeps the biases
        qe, ke = pos.rotate(*_split_heads(attn, F.linear(e, attn.qkv.weight)), grid, layer)
        bias = pos.attn_bias(grid, layer)
    root = math.sqrt(qc.shape[-1])  # the rotated width, as `explicit_attention` divides by
    terms = {
        "content_content": qc @ kc.transpose(-2, -1) / root,
        "content_position": qc @ ke.transpose(-2, -1) / root,
        "position_content": qe @ kc.transpose(-2, -1) / root,
        "position_position": qe @ ke.transpose(-2, -1) / root,
    }
    zero = torch.zeros_like(terms["content_content"])
    terms["bias"] = zero if bias is None else zero + bias.to(zero.dtype)
    logits = sum(terms.values())
    spread = torch.stack([(t - t.mean(-1, keepdim=True)).abs().mean(dim=(0, 2, 3)) for t in terms.values()])
    spread = spread / spread.sum(0, keepdim=True).clamp_min(1e-30)  # (5, H)
    return {**terms, "logits": logits, "shares": dict(zip(TERMS, spread, strict=True))}


def same_content_scores(model: ViT, content: Tensor, layer: int = 0, grid: Grid | None = None) -> Tensor:
    """Block `layer`'s logits between patches when every patch enters the block as the same vector:
    content [D] or [K, D] (K vectors, one pass each) -> [K, H, N, N].

    Each patch token is c, prefix tokens are the model's class token; the encoding then adds its
    position (`add_to_tokens`) and the block scores them as usual. Whatever the scores do across
    positions comes from position alone. `grid` defaults to the training grid.
    """
    _check_layer(model, layer)
    dim = model.config.dim
    if content.ndim == 1:
        content = content[None]
    if content.ndim != 2 or content.shape[-1] != dim:
        raise ValueError(
            f"content of shape {tuple(content.shape)} is not [D] or [K, D] with D={dim}; "
            "pass token vectors of the model's width"
        )
    content = _on_model(model, content)
    grid = tuple(grid) if grid is not None else model.config.grid
    block, pos = model.blocks[layer], model.pos
    p, n = pos.num_prefix_tokens, grid[0] * grid[1]
    x = content[:, None, :].expand(len(content), n, dim)  # (K, N, D)
    if p:
        x = torch.cat([model.cls_token.expand(len(x), p, dim).to(x.dtype), x], dim=1)  # (K, P+N, D)
    with inspecting(model):
        x = pos.add_to_tokens(x, grid, layer)
        h = block.norm1(x) if block.norm_first else x
        logits = _logits(block.attn, block.attn.qkv(h), grid, pos, layer)
    return logits[..., p:, p:]
