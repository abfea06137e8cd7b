"""Measurements on encodings and attention: similarity of position vectors, how much 2-D structure
a table holds, attention entropy, and attention at another softmax temperature.

Looking inside a model (the functions that take a ViT run it in eval mode without gradients and
leave it as it was; the offset functions take scores between patches [..., N, N]):

    block_tokens              what each block receives: content, position added, input; its output
    attention_logits          each block's logits, from the model's own q and k
    logit_terms               a block's logits split into content/position terms (+ bias)
    same_content_scores       a block's logits with one content vector at every position
    offset_table, offset_dependence, direction_asymmetry
                              does a score depend on the offset only, and is it symmetric in it
    position_probe            a linear read-out of (row, col) from the tokens before and after each block
    mean_attention_distances  mean attention distance per block and head

Which tokens belong together (a table's similarity against a network's modules):

    kmeans, adjusted_rand_index, rank_correlation, within_between
    module_recovery           all three measures of a table against the modules, with permutation nulls

How much of a grid's layout a table holds:

    procrustes, structure_score
    grid_recovery             both against a null of the grid's cells shuffled
    layout_tests              similarity against closeness and against "shares a row or a column",
                              each with a null of thousands of shuffles; `holm` adjusts many p-values at once
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from minivit.posenc.base import Grid, PositionalEncoding, grid_coords

if TYPE_CHECKING:
    from minivit.model import ViT


def cosine_similarity(table: Tensor) -> Tensor:
    """Cosine similarity between every pair of position vectors: table [N, D] -> [N, N]."""
    t = F.normalize(table.detach().float(), dim=-1)
    return t @ t.T


def grid_distances(grid: Grid) -> Tensor:
    """Euclidean distance between every pair of grid cells, in patches: [N, N]."""
    rc = grid_coords(grid)
    return torch.cdist(rc, rc)


def structure_score(table: Tensor, grid: Grid) -> float:
    """How much a position table reflects the 2-D layout: the Pearson correlation, over all pairs of
    distinct positions, between their cosine similarity and minus their distance on the grid.

    About 0 for a random table; near 1 when nearby positions have similar vectors and far ones
    dissimilar.
    """
    n = grid[0] * grid[1]
    if table.shape[0] != n:
        raise ValueError(
            f"table has {table.shape[0]} rows, grid {grid[0]}x{grid[1]} has {n} positions; "
            "drop prefix (class token) rows first"
        )
    iu = torch.triu_indices(n, n, offset=1)
    sim = cosine_similarity(table)[iu[0], iu[1]]
    dist = -grid_distances(grid)[iu[0], iu[1]]
    sim, dist = sim - sim.mean(), dist - dist.mean()
    return (sim @ dist / (sim.norm() * dist.norm() + 1e-12)).item()


def entropy(weights: Tensor) -> Tensor:
    """Entropy (nats) of each attention row: weights [..., N] -> [...]. log N means uniform."""
    w = weights.clamp_min(1e-12)
    return -(w * w.log()).sum(-1)


def with_temperature(weights: Tensor, temperature: float) -> Tensor:
    """Attention rows softmax(l) turned into softmax(l / T) without the logits: w^(1/T), renormalised."""
    w = weights.clamp_min(1e-30) ** (1.0 / temperature)
    return w / w.sum(-1, keepdim=True)


def uniform_entropy(n: int) -> float:
    """Entropy of a uniform distribution over n tokens."""
    return math.log(n)


def offset_locality(tables: Tensor) -> Tensor:
    """How much each head's offset table [H, 2R_h + 1, 2R_w + 1] favours near offsets: the
    correlation between its entries and minus the length of the offset. > 0: nearby keys score higher."""
    h, a, b = tables.shape
    dy = torch.arange(a, dtype=torch.float32) - (a - 1) / 2
    dx = torch.arange(b, dtype=torch.float32) - (b - 1) / 2
    near = -(dy[:, None] ** 2 + dx[None, :] ** 2).sqrt().reshape(-1)
    near = near - near.mean()
    t = tables.detach().float().reshape(h, -1)
    t = t - t.mean(1, keepdim=True)
    return (t @ near) / (t.norm(dim=1) * near.norm() + 1e-12)


def procrustes(table: Tensor, reference: Tensor) -> tuple[float, Tensor]:
    """How well a table [N, D] matches a reference layout [N, k] (grid coordinates, or another table)
    up to translation, scale and an orthogonal map, and the table mapped onto the reference.

    Both are centred and scaled to unit norm; the orthogonal map W [D, k] that brings the table
    closest to the reference comes from the SVD of table^T reference (orthogonal Procrustes).

    Returns:
        score: in [0, 1]; 1 when the table is an exact rotated, scaled copy of the reference
            (1 - score^2 is scipy.spatial.procrustes's disparity).
        aligned: [N, k] the table after the map, in the reference's units (for plotting).

    The one SVD is the method; `scipy.linalg.orthogonal_procrustes` wants both of one shape [N, D].
    """
    if table.shape[0] != reference.shape[0]:
        raise ValueError(
            f"table has {table.shape[0]} rows, reference {reference.shape[0]}; "
            "drop prefix (class token) rows first"
        )
    x = table.detach().double()
    y = reference.detach().double()
    x, y_mean = x - x.mean(0), y.mean(0)
    y = y - y_mean
    x_norm, y_norm = x.norm(), y.norm()
    x, y = x / (x_norm + 1e-12), y / (y_norm + 1e-12)
    u, s, vh = torch.linalg.svd(x.T @ y, full_matrices=False)  # (D, r), (r,), (r, k)
    score = s.sum().item()
    aligned = score * (x @ u @ vh) * y_norm + y_mean
    return score, aligned.float()


def attention_agreement(a: Tensor, b: Tensor) -> float:
    """How alike two models' attention is on the same inputs: the mean over rows of the attention
    mass both put on the same keys, sum_k min(a_k, b_k) (1 - total variation distance), in [0, 1].

    a, b: attention weights [..., N, N] of the two models, same shape.
    """
    if a.shape != b.shape:
        raise ValueError(
            f"attention maps of shapes {tuple(a.shape)} and {tuple(b.shape)}; compare the same inputs"
        )
    return torch.minimum(a.float(), b.float()).sum(-1).mean().item()


def mean_attention_distance(weights: Tensor, grid: Grid, num_prefix_tokens: int = 0) -> Tensor:
    """Mean distance (in patches) between a query patch and the patches it attends to, per head,
    averaged over queries and the batch (Dosovitskiy et al. 2021, Fig. 7): weights [B, H, P+N, P+N] -> [H].

    Prefix tokens (class token) are left out as queries and as keys: each patch query's attention
    over the patches is renormalised to sum to 1.
    """
    p = num_prefix_tokens
    w = weights[..., p:, p:].float()
    w = w / w.sum(-1, keepdim=True).clamp_min(1e-12)
    dist = grid_distances(grid).to(w.device)  # (N, N)
    return (w * dist).sum(-1).mean(dim=(0, 2))


# --- looking inside a model --------------------------------------------------------------------------

TERMS = ("content_content", "content_position", "position_content", "position_position", "bias")


@contextmanager
def _inspecting(model: nn.Module) -> Iterator[None]:
    """Eval mode and no gradients for the duration; the model's mode is restored afterwards."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        model.train(was_training)


def _check_layer(model: ViT, layer: int) -> None:
    depth = len(model.blocks)
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < depth:
        raise ValueError(f"layer={layer!r} is not a block of this model; use 0 to {depth - 1}")


def _trace(model: ViT, images: Tensor) -> dict:
    """Run the model once and record, for every block, the tokens before and after the encoding's
    `add_to_tokens`, the output of the block's qkv projection and the block's output."""
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
        with _inspecting(model):
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
    record = _trace(model, images)
    return {key: record[key] for key in ("content", "position", "inputs", "outputs", "grid")}


def attention_logits(model: ViT, images: Tensor) -> list[Tensor]:
    """Each block's attention logits [B, H, P+N, P+N], the scores its softmax takes:
    rotate(q) rotate(k)^T / sqrt(Dh) + bias, from the q and k the model's own qkv projection produced."""
    record = _trace(model, images)
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
    record = _trace(model, images)
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
    root = math.sqrt(attn.head_dim)
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
    grid = tuple(grid) if grid is not None else model.config.grid
    block, pos = model.blocks[layer], model.pos
    p, n = pos.num_prefix_tokens, grid[0] * grid[1]
    x = content[:, None, :].expand(len(content), n, dim)  # (K, N, D)
    if p:
        x = torch.cat([model.cls_token.expand(len(x), p, dim).to(x.dtype), x], dim=1)  # (K, P+N, D)
    with _inspecting(model):
        x = pos.add_to_tokens(x, grid, layer)
        h = block.norm1(x) if block.norm_first else x
        logits = _logits(block.attn, block.attn.qkv(h), grid, pos, layer)
    return logits[..., p:, p:]


def _offset_index(grid: Grid, device=None) -> Tensor:
    """For every (query i, key j) pair in raster order, the index of its offset (r_i - r_j, c_i - c_j)
    in a [2gh - 1, 2gw - 1] table, flattened: [N * N]."""
    gh, gw = grid
    rc = grid_coords(grid, dtype=torch.long, device=device)  # (N, 2)
    off = rc[:, None, :] - rc[None, :, :]  # (N, N, 2)
    return ((off[..., 0] + gh - 1) * (2 * gw - 1) + off[..., 1] + gw - 1).reshape(-1)


def _check_scores(scores: Tensor, grid: Grid) -> None:
    n = grid[0] * grid[1]
    if scores.ndim < 2 or scores.shape[-2:] != (n, n):
        raise ValueError(
            f"scores of shape {tuple(scores.shape)} are not [..., N, N] for grid {grid[0]}x{grid[1]} "
            f"(N={n}); drop prefix (class token) rows and columns first"
        )


def offset_table(scores: Tensor, grid: Grid) -> Tensor:
    """The mean score for each offset: scores [..., N, N] between patches -> [..., 2gh - 1, 2gw - 1],
    entry [dy + gh - 1, dx + gw - 1] = mean of s_ij over pairs with (r_i - r_j, c_i - c_j) = (dy, dx)
    (i the query; the centre entry is the offset (0, 0))."""
    _check_scores(scores, grid)
    gh, gw = grid
    index = _offset_index(grid, scores.device)
    s = scores.double().flatten(-2)  # (..., N*N)
    sums = s.new_zeros(*s.shape[:-1], (2 * gh - 1) * (2 * gw - 1)).index_add_(-1, index, s)
    counts = torch.bincount(index, minlength=sums.shape[-1]).to(s)
    return (sums / counts).reshape(*s.shape[:-1], 2 * gh - 1, 2 * gw - 1)


def offset_dependence(scores: Tensor, grid: Grid) -> dict:
    """How much scores between patches depend on more than the offset: scores [..., N, N] -> dict of
    [...] (reduced over the last two dims only).

        within = mean_ij (s_ij - mean of s over pairs with the offset of ij)^2,  total = var_ij s_ij

    Returns within, total and fraction = within / total: 0 when every score is a function of the
    offset (r_i - r_j, c_i - c_j) alone (RoPE, ALiBi, relative bias with the same content at every
    position), larger when absolute position enters too. varies: whether the scores vary at all
    (total at least 1e-10 of their mean square); fraction is 0 where they do not. Also by_offset
    [..., 2gh - 1, 2gw - 1]: the variance of the score over the pairs at each offset, laid out as in
    `offset_table`.
    """
    _check_scores(scores, grid)
    gh, gw = grid
    index = _offset_index(grid, scores.device)
    s = scores.double().flatten(-2)  # (..., N*N)
    squares = (s - offset_table(scores, grid).flatten(-2)[..., index]) ** 2
    within = squares.mean(-1)
    total = ((s - s.mean(-1, keepdim=True)) ** 2).mean(-1)
    varies = total > 1e-10 * (s**2).mean(-1)
    fraction = torch.where(varies, within / total.clamp_min(1e-300), torch.zeros_like(total))
    counts = torch.bincount(index, minlength=(2 * gh - 1) * (2 * gw - 1)).to(s)
    by_offset = squares.new_zeros(*s.shape[:-1], len(counts)).index_add_(-1, index, squares) / counts
    by_offset = by_offset.reshape(*s.shape[:-1], 2 * gh - 1, 2 * gw - 1)
    return {"within": within, "total": total, "fraction": fraction, "varies": varies, "by_offset": by_offset}


def direction_asymmetry(scores: Tensor, grid: Grid) -> Tensor:
    """How much a score depends on the direction of the offset: scores [..., N, N] -> [...] in [0, 1].

    With T(d) the mean score at offset d (`offset_table`), split T into its parts even and odd in d:
        asymmetry = sum_d ((T(d) - T(-d)) / 2)^2 / sum_d (T(d) - mean T)^2
    0 when s(d) = s(-d) (ALiBi, sinusoidal PE . PE), 1 when s(d) = -s(-d). 0 where T is constant.
    """
    table = offset_table(scores, grid)  # (..., 2gh-1, 2gw-1), d -> -d is a flip of both axes
    odd = (table - table.flip(-2, -1)) / 2
    centred = table - table.mean(dim=(-2, -1), keepdim=True)
    spread = (centred**2).sum(dim=(-2, -1))
    varies = spread > 1e-10 * (table**2).sum(dim=(-2, -1))
    asymmetry = (odd**2).sum(dim=(-2, -1)) / spread.clamp_min(1e-300)
    return torch.where(varies, asymmetry, torch.zeros_like(spread))


def position_probe(model: ViT, train_images: Tensor, test_images: Tensor, ridge: float = 1e-6) -> dict:
    """Linear probes (Alain & Bengio 2016, arXiv 1610.01644) of each patch's row and column from its
    token, at every stage of the model: fit on the tokens of `train_images` [B, C, H, W], scored on
    those of `test_images` (held out).

        Y ~ X W + b,   W = (X^T X + lambda I)^-1 X^T Y   on centred X [B*N, D], Y [B*N, k]

    with lambda = ridge * trace(X^T X) / D, for two targets Y: the coordinates (row, col) (k = 2), and
    the row and the column one-hot (k = gh + gw), read as the class with the largest output.
    Stages: the input of block 0 (position added), then the output of every block (S = depth + 1).
    Prefix tokens are left out.

    Returns a dict:
        r2: [S, 2] R^2 of the (row, col) read-out on the test tokens, 1 - SSE / SST: about 0 (or a
            little below) when the tokens carry nothing linear about position, 1 when they hold it;
        accuracy: [S, 2] share of test patches whose row (col) the one-hot read-out gets right;
        chance: [2] the accuracy of a guess, 1 / gh and 1 / gw;
        stages: the S stage names.
    """
    if isinstance(ridge, bool) or not (
        isinstance(ridge, int | float) and math.isfinite(ridge) and ridge >= 0
    ):
        raise ValueError(f"ridge={ridge!r} is not a finite number >= 0; e.g. ridge=1e-6")
    train, test = _trace(model, train_images), _trace(model, test_images)
    grid = train["grid"]
    if tuple(test["grid"]) != tuple(grid):
        raise ValueError(
            f"train images give grid {grid}, test images {test['grid']}; probe at one image size"
        )
    if min(grid) < 2:
        raise ValueError(
            f"grid {grid[0]}x{grid[1]}: a probe of (row, col) needs at least 2 rows and 2 columns; "
            "use larger images"
        )
    gh, gw = grid
    p = model.pos.num_prefix_tokens
    rc = grid_coords(grid, dtype=torch.long, device=train_images.device)  # (N, 2)
    targets = torch.cat([rc, F.one_hot(rc[:, 0], gh), F.one_hot(rc[:, 1], gw)], 1).double()  # (N, 2+gh+gw)
    stages = ["input of block 0"] + [f"output of block {i}" for i in range(len(model.blocks))]
    r2, accuracy = [], []
    for x_train, x_test in zip(
        [train["inputs"][0], *train["outputs"]], [test["inputs"][0], *test["outputs"]], strict=True
    ):
        d = x_train.shape[-1]
        x = x_train[:, p:].reshape(-1, d).double()  # (B*N, D)
        y = targets.repeat(len(x_train), 1)  # (B*N, 2+gh+gw)
        x_mean, y_mean = x.mean(0), y.mean(0)
        x, y = x - x_mean, y - y_mean
        gram = x.T @ x  # (D, D)
        lam = ridge * gram.trace() / d
        w = torch.linalg.solve(gram + lam * torch.eye(d, dtype=gram.dtype, device=gram.device), x.T @ y)
        pred = (x_test[:, p:].reshape(-1, d).double() - x_mean) @ w + y_mean  # (B'*N, 2+gh+gw)
        truth = rc.repeat(len(x_test), 1)  # (B'*N, 2)
        coords = truth.double()
        sse = ((pred[:, :2] - coords) ** 2).sum(0)
        sst = ((coords - coords.mean(0)) ** 2).sum(0)
        r2.append(1 - sse / sst)
        row, col = pred[:, 2 : 2 + gh].argmax(1), pred[:, 2 + gh :].argmax(1)
        accuracy.append(torch.stack([row == truth[:, 0], col == truth[:, 1]], 1).double().mean(0))
    chance = torch.tensor([1 / gh, 1 / gw], dtype=torch.float64)
    return {"r2": torch.stack(r2), "accuracy": torch.stack(accuracy), "chance": chance, "stages": stages}


def mean_attention_distances(model: ViT, images: Tensor) -> Tensor:
    """`mean_attention_distance` of every block and head of `model` on `images`: [L, H], in patches."""
    with _inspecting(model):
        _, grid, maps = model.tokens(images, need_weights=True)
    p = model.pos.num_prefix_tokens
    return torch.stack([mean_attention_distance(w, grid, p) for w in maps])


# Which tokens belong together: a table's similarity against known modules (lesson 10)


def kmeans(points: Tensor, k: int, *, restarts: int = 10, iterations: int = 100, seed: int = 0) -> Tensor:
    """Cluster labels [n] (0..k-1) of the rows of `points` [n, D]: Lloyd's k-means from k-means++
    starts (Arthur & Vassilvitskii 2007), the best of `restarts` by within-cluster sum of squares.
    A cluster left empty during an iteration is restarted at the point farthest from its centre.
    Kept rather than scikit-learn's `KMeans`: that draws its starts from NumPy's generator (a greedy
    k-means++), so on the same seed it finds other clusters and the recorded sweep's scores would move."""
    x = points.detach().double()
    n = len(x)
    if x.dim() != 2 or not torch.isfinite(x).all():
        raise ValueError(f"points must be finite rows [n, D], got shape {tuple(x.shape)}")
    if not 1 <= k <= n:
        raise ValueError(f"k={k}: give 1 <= k <= {n} (the number of points)")
    for name, value in (("restarts", restarts), ("iterations", iterations)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r}: give a whole number >= 1")
    g = torch.Generator().manual_seed(seed)
    best, best_cost = None, math.inf
    for _ in range(restarts):
        centres = x[torch.randint(n, (1,), generator=g)]
        for _ in range(k - 1):  # k-means++: the next centre drawn in proportion to squared distance
            d2 = torch.cdist(x, centres).min(1).values.square()
            weights = d2 if d2.sum() > 0 else torch.ones(n, dtype=x.dtype)
            centres = torch.cat([centres, x[torch.multinomial(weights, 1, generator=g)]])
        labels = torch.cdist(x, centres).argmin(1)
        for _ in range(iterations):
            for c in range(k):
                if (labels == c).any():
                    centres[c] = x[labels == c].mean(0)
                else:  # empty: restart it at the point farthest from its own centre
                    far = (x - centres[labels]).square().sum(1).argmax()
                    centres[c], labels[far] = x[far], c
            new = torch.cdist(x, centres).argmin(1)
            if torch.equal(new, labels):
                break
            labels = new
        cost = (x - centres[labels]).square().sum().item()
        if cost < best_cost - 1e-12:
            best, best_cost = labels, cost
    return best


def adjusted_rand_index(a: Tensor, b: Tensor) -> float:
    """Agreement of two partitions of the same items (Hubert & Arabie 1985): 1 when they are the same
    up to the names of the groups, 0 on average for unrelated ones (it can be negative). The formula
    written out: scikit-learn's `adjusted_rand_score` agrees to 1e-16 (tests/test_analysis.py) but
    not to the last bit, and is about 7x slower in a null of thousands of shuffles."""
    a, b = torch.as_tensor(a).long().flatten(), torch.as_tensor(b).long().flatten()
    if a.shape != b.shape or len(a) < 2:
        raise ValueError(f"give two labelings of the same items (at least 2), got {len(a)} and {len(b)}")
    _, a = torch.unique(a, return_inverse=True)
    _, b = torch.unique(b, return_inverse=True)
    table = torch.zeros(int(a.max()) + 1, int(b.max()) + 1, dtype=torch.float64)
    table.index_put_((a, b), torch.ones(len(a), dtype=torch.float64), accumulate=True)

    def pairs(t: Tensor) -> Tensor:
        return (t * (t - 1) / 2).sum()

    both, rows, cols = pairs(table), pairs(table.sum(1)), pairs(table.sum(0))
    expected = rows * cols / (len(a) * (len(a) - 1) / 2)
    top = (rows + cols) / 2
    if top == expected:  # both partitions trivial (one group each, or all singletons)
        return 1.0
    return ((both - expected) / (top - expected)).item()


def rank_correlation(a: Tensor, b: Tensor) -> float:
    """Spearman's rank correlation of two equally long sets of numbers: the Pearson correlation of
    their ranks (ties given their average rank, `scipy.stats.rankdata`). Written out rather than
    `scipy.stats.spearmanr`, which agrees to 1e-16 but not to the last bit."""
    from scipy.stats import rankdata  # imported here: scipy.stats takes seconds to import

    ra, rb = (torch.from_numpy(rankdata(x.detach().double().flatten().cpu().numpy()) - 1) for x in (a, b))
    if ra.shape != rb.shape:
        raise ValueError(f"give two sets of numbers of one length, got {len(ra)} and {len(rb)}")
    if (ra == ra[0]).all() or (rb == rb[0]).all():
        raise ValueError("a set of numbers that are all equal has no ranks to correlate")
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return (ra @ rb / (ra.norm() * rb.norm()).clamp_min(1e-300)).item()


def within_between(similarity: Tensor, modules: Tensor) -> float:
    """Mean similarity of two different tokens of one module minus that of two tokens of two modules."""
    modules = torch.as_tensor(modules)
    same = modules[:, None] == modules[None, :]
    off = ~torch.eye(len(modules), dtype=torch.bool)
    if not (same & off).any() or same.all():
        raise ValueError("within - between needs a module of two tokens or more, and two modules or more")
    s = similarity.double()
    return (s[same & off].mean() - s[~same].mean()).item()


def module_recovery(
    table: Tensor, modules: Tensor, weights: Tensor, *, permutations: int = 1000, seed: int = 0
) -> dict:
    """How well a table of token vectors [N, D] finds the modules of the network it was trained on,
    each measure with a permutation null (the same measure with the tokens' modules, or their places
    in the network, shuffled `permutations` times):

        within_between  mean cosine similarity inside a module minus between modules (null: modules
                        shuffled)
        ari             adjusted Rand index of k-means (as many clusters as modules, on the unit
                        vectors) against the modules (null: modules shuffled)
        connectivity    rank correlation over token pairs of cosine similarity and connection
                        strength |w_ij| + |w_ji| (null: tokens shuffled on the network)

    Returns {measure: value, measure + "_null": [mean, 95th percentile], measure + "_p": the share
    of the null at or above the value (with the value itself counted), "clusters": k-means labels}.
    """
    modules = torch.as_tensor(modules).long()
    n = len(modules)
    if table.dim() != 2 or len(table) != n or weights.shape != (n, n):
        raise ValueError(
            f"give a table [N, D], modules [N] and weights [N, N] of one N: got {tuple(table.shape)}, "
            f"{tuple(modules.shape)}, {tuple(weights.shape)}"
        )
    k = len(torch.unique(modules))
    sim = cosine_similarity(table).double()
    clusters = kmeans(F.normalize(table.detach().double(), dim=-1), k, seed=seed)
    strength = (weights.abs() + weights.abs().T).double()
    iu = torch.triu_indices(n, n, offset=1)

    def connectivity(order: Tensor) -> float:
        return rank_correlation(sim[iu[0], iu[1]], strength[order][:, order][iu[0], iu[1]])

    measures = {
        "within_between": lambda order: within_between(sim, modules[order]),
        "ari": lambda order: adjusted_rand_index(clusters, modules[order]),
        "connectivity": connectivity,
    }
    return {"clusters": clusters.tolist(), **_with_nulls(measures, n, permutations, seed)}


def _with_nulls(measures: dict, n: int, permutations: int, seed: int) -> dict:
    """Each measure(order) of N tokens in their own order, and over `permutations` shuffles of it:
    {name: value, name + "_null": [mean, 95th percentile], name + "_p": share of the null at or
    above the value, the value itself counted}."""
    if not isinstance(permutations, int) or permutations < 1:
        raise ValueError(f"permutations={permutations!r}: give a whole number >= 1 (e.g. 1000)")
    g = torch.Generator().manual_seed(seed)
    orders = [torch.randperm(n, generator=g) for _ in range(permutations)]
    out: dict = {}
    for name, measure in measures.items():
        value = measure(torch.arange(n))
        null = torch.tensor([measure(o) for o in orders], dtype=torch.float64)
        out[name] = value
        out[name + "_null"] = [null.mean().item(), torch.quantile(null, 0.95).item()]
        out[name + "_p"] = ((null >= value - 1e-12).sum().item() + 1) / (permutations + 1)
    return out


def grid_recovery(table: Tensor, grid: Grid, *, permutations: int = 1000, seed: int = 0) -> dict:
    """How much a position table [N, D] holds the layout of its grid, each measure with a null from
    the same table against the grid's cells shuffled `permutations` times (a table that knows
    nothing of the layout scores as its null does, however many dimensions it has to fit with):

        procrustes  `procrustes` score against the cells' (row, column) coordinates
        structure   `structure_score`: similarity against closeness on the grid

    Returns {measure: value, measure + "_null": [mean, 95th percentile], measure + "_p"}."""
    n = grid[0] * grid[1]
    if table.dim() != 2 or len(table) != n:
        raise ValueError(
            f"table of shape {tuple(table.shape)} for a {grid[0]}x{grid[1]} grid: give [N, D] with "
            f"N = {n} (drop prefix rows first)"
        )
    coords = grid_coords(grid)
    sim = cosine_similarity(table).double()
    closeness = -grid_distances(grid).double()
    iu = torch.triu_indices(n, n, offset=1)

    def structure(order: Tensor) -> float:
        a, b = sim[iu[0], iu[1]], closeness[order][:, order][iu[0], iu[1]]
        return torch.corrcoef(torch.stack([a, b]))[0, 1].item()

    measures = {"procrustes": lambda order: procrustes(table, coords[order])[0], "structure": structure}
    return _with_nulls(measures, n, permutations, seed)


def same_row_or_column(grid: Grid) -> Tensor:
    """1 where two cells share a row or a column of the grid, else 0: [N, N] (a Latin square's
    structure: the cells whose symbols must differ from each other)."""
    rc = grid_coords(grid)
    return ((rc[:, None, 0] == rc[None, :, 0]) | (rc[:, None, 1] == rc[None, :, 1])).double()


def layout_tests(table: Tensor, grid: Grid, *, permutations: int = 5000, seed: int = 0) -> dict:
    """Does a table [N, D] (or what training added to it) hold the layout of its grid? The Pearson
    correlation, over pairs of distinct cells, of the vectors' cosine similarity with

        closeness       minus the distance on the grid (`structure_score`)
        rows_columns    1 for two cells in one row or one column, else 0 (`same_row_or_column`)

    each against a null of the same table with the grid's cells shuffled `permutations` times (one
    batched computation, so thousands of shuffles cost little: a p-value can go as low as
    1 / (permutations + 1), low enough to survive a correction for many tests, `holm`).

    Returns {measure: value, measure + "_null": [mean, 95th percentile], measure + "_p": the share
    of the null at or above the value, the value itself counted}, as `grid_recovery` does."""
    n = grid[0] * grid[1]
    if table.dim() != 2 or len(table) != n:
        raise ValueError(
            f"table of shape {tuple(table.shape)} for a {grid[0]}x{grid[1]} grid: give [N, D] with "
            f"N = {n} (drop prefix rows first)"
        )
    if not isinstance(permutations, int) or permutations < 1:
        raise ValueError(f"permutations={permutations!r}: give a whole number >= 1 (e.g. 5000)")
    iu = torch.triu_indices(n, n, offset=1)
    sim = cosine_similarity(table).double()[iu[0], iu[1]]
    sim = (sim - sim.mean()) / ((sim - sim.mean()).norm() + 1e-12)
    out: dict = {}
    for name, targets in _shuffled_targets(tuple(grid), permutations, seed).items():
        r = targets @ sim  # Pearson correlation: both sides centred and of unit length
        value, null = r[0].item(), r[1:]
        out[name] = value
        out[name + "_null"] = [null.mean().item(), torch.quantile(null, 0.95).item()]
        out[name + "_p"] = ((null >= value - 1e-12).sum().item() + 1) / (permutations + 1)
    return out


@functools.lru_cache(maxsize=8)
def _shuffled_targets(grid: Grid, permutations: int, seed: int) -> dict[str, Tensor]:
    """`layout_tests`'s targets over the pairs of distinct cells, in the grid's own order (row 0) and
    under `permutations` shuffles of its cells, each centred and scaled to unit length: [1 + P, pairs].
    They do not depend on the table, so many tables share one computation."""
    n = grid[0] * grid[1]
    iu = torch.triu_indices(n, n, offset=1)
    g = torch.Generator().manual_seed(seed)
    orders = torch.rand(permutations, n, generator=g, dtype=torch.float64).argsort(-1)  # [P, N] shuffles
    orders = torch.cat([torch.arange(n)[None], orders])
    pairs = orders[:, iu[0]] * n + orders[:, iu[1]]  # the shuffled cells of each pair, as flat indices
    out = {}
    for name, target in (
        ("closeness", -grid_distances(grid).double()),
        ("rows_columns", same_row_or_column(grid)),
    ):
        t = target.flatten()[pairs]
        t = t - t.mean(-1, keepdim=True)
        out[name] = t / t.norm(dim=-1, keepdim=True)
    return out


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down correction for many tests at once: each p-value adjusted so that calling
    every adjusted p below alpha significant keeps the chance of any wrong call below alpha (the
    family-wise error). The smallest of m p-values is multiplied by m, the next by m - 1, ...,
    each kept at least as large as the one before and at most 1."""
    p = [float(x) for x in pvalues]
    if any(not 0 <= x <= 1 for x in p):
        raise ValueError(f"p-values must lie in [0, 1]; got {[x for x in p if not 0 <= x <= 1][:3]}")
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(sorted(range(len(p)), key=lambda i: p[i])):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted
