"""How much memory a training run needs, estimated before the model is built or the data made, so a
run too large for the machine is refused with one line instead of failing in the allocator.

Per step, for a ViT of P parameters, depth L, width D, MLP ratio r, H heads, N tokens (patches and a
class token) and batch B, in the dtype of the activations (4 bytes; 3 on average under autocast):

    parameters, gradients and optimizer state   P * (4 + 4 + 8) bytes (AdamW; SGD's momentum: 4)
    activations kept for the backward pass      B * N * D * ((10 + 2r) L + 10) values, + 2 B N D L for RoPE
    attention weights, where they are made      2 B H N^2 L values (a logit bias on the CPU, or attention
                                                written out), none in the fused kernels otherwise

(the constants are measured on the CPU with one step of `fit`: within about 10% for the encodings,
widths and depths tried). An evaluation (batches of 512, no gradients) needs far less per image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from minivit import posenc
from minivit.config import ViTConfig, grid_of
from minivit.devices import autocast_dtype, device_memory
from minivit.posenc.base import PositionalEncoding

EVAL_BATCH = 512  # `evaluate`'s batch
ACTIVATIONS_PER_BLOCK = 10  # values of width D per token a block keeps, besides its MLP's 2r
ACTIVATIONS_OUTSIDE = 10  # the patch embedding, the position, the last norm and their gradients
ATTENTION_COPIES = 2  # logits and weights, per head and block, where attention is not fused


def gigabytes(n: float) -> str:
    """`n` bytes as "1.2 GB" (or "3.4 MB" below 0.1 GB)."""
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


@dataclass
class Estimate:
    """Bytes a run needs: a part that does not grow with the batch, one that grows with each image of
    the batch, and what the evaluation at the end needs at its own batch. `parts` names each (for the
    message)."""

    fixed: int
    per_image: int
    evaluation: int
    batch_size: int
    parts: dict[str, int] = field(default_factory=dict)
    encoding: str = ""  # the positional encoding, if its parameters are most of the model's
    encoding_options: list[str] = field(default_factory=list)  # the options it was given

    @property
    def total(self) -> int:
        return self.fixed + max(self.per_image * self.batch_size, self.evaluation)

    def largest_batch(self, available: int) -> int:
        """The largest batch that fits in `available` bytes (0 if none does)."""
        if self.fixed + self.evaluation > available or self.per_image == 0:
            return 0 if self.fixed + self.evaluation > available else self.batch_size
        return max(0, (available - self.fixed) // self.per_image)


def _overrides(pos: PositionalEncoding | type[PositionalEncoding], hook: str) -> bool:
    klass = pos if isinstance(pos, type) else type(pos)
    return getattr(klass, hook) is not getattr(PositionalEncoding, hook)


def estimate(
    config: ViTConfig,
    *,
    batch_size: int,
    image_size: tuple[int, int] | None = None,
    model: nn.Module | None = None,
    optimizer: str = "adamw",
    autocast: bool = False,
    device_type: str = "cpu",
    fused: bool = True,
    data_bytes: int = 0,
    evaluation_batch: int = EVAL_BATCH,
    members: int = 1,
    encoding: bool = True,
) -> Estimate:
    """The memory one training step of a ViT with `config` needs at `batch_size` on images of
    `image_size` (default: the config's), on a device of `device_type`.

    Args:
        model: the built model, if there is one (else its parameters are counted from the config
            and only its encoding is built, on the meta device: cheap for any config).
        autocast: activations in bf16/fp16 (a GPU's mixed precision).
        fused: attention through `F.scaled_dot_product_attention` (`Attention.fused`).
        data_bytes: memory the data takes on this device (counted in the fixed part).
        evaluation_batch: the batch of an evaluation (no gradients) after training (0: none).
        members: models trained at once (`fit_ensemble`): `batch_size` is then all their images.
        encoding: False leaves out the encoding's parameters (a lower bound; without `model`, then
            nothing is built at all: an encoding may build one table per block).
    """
    from minivit.model import count_parameters, encoding_of

    if model is not None:
        pos = model.pos
        params, own = sum(p.numel() for p in model.parameters()), sum(p.numel() for p in pos.parameters())
    elif encoding:  # counted from the config: nothing built but the encoding (on the meta device)
        pos = encoding_of(config)
        params, own = count_parameters(config, pos), sum(p.numel() for p in pos.parameters())
    else:
        pos, params, own = posenc.REGISTRY[config.position], count_parameters(config, encoding=False), 0
    h, w = image_size or config.image_size
    n = grid_of((h, w), config.patch_size)
    tokens = n[0] * n[1] + config.num_prefix_tokens
    d, depth, heads = config.dim, config.depth, config.heads
    r = int(d * config.mlp_ratio) / d
    value = 3 if autocast else 4
    per_token = (ACTIVATIONS_PER_BLOCK + 2 * r) * depth + ACTIVATIONS_OUTSIDE
    per_token += 2 * depth if _overrides(pos, "rotate") else 0
    per_token += 2 if _overrides(pos, "add_to_tokens") else 0
    has_bias = _overrides(pos, "attn_bias")
    # where attention is made in full: a bias on the CPU's fused path, or attention written out; on a
    # GPU the fused kernels make none, but a learned bias gets a gradient of that size
    made = not fused or (has_bias and device_type != "cuda")
    learned = own > 0 and any(p.requires_grad for p in pos.parameters())
    bias_grad = has_bias and device_type == "cuda" and learned
    copies = ATTENTION_COPIES if made else (1 if bias_grad else 0)
    image = config.in_channels * h * w
    per_image = value * (tokens * d * per_token + image) + 4 * copies * heads * tokens**2 * depth
    state = members * (params * (16 if optimizer == "adamw" else 12) + (2 * params if autocast else 0))
    # the bias itself, [H, N, N]: one per block where it is learned, one cached for all where fixed
    bias = 4 * heads * tokens**2 * ((depth if own else 1) if has_bias else 0)
    eval_image = value * (tokens * d * (4 + r) + image) + 4 * (2 if made else 0) * heads * tokens**2
    evaluation = int(evaluation_batch * eval_image)
    parts = {"data": data_bytes, "the model and its optimizer": state, "the attention bias": bias}
    encoding = config.position if own > params / 2 else ""
    fixed = data_bytes + state + bias
    return Estimate(
        fixed, int(per_image), evaluation, batch_size, parts, encoding, list(config.position_options)
    )


def check(
    est: Estimate,
    available: int | None,
    *,
    where: str,
    names: Mapping[str, str] | None = None,
) -> None:
    """Raise a ValueError with the estimate, what `where` has and what to lower, if `est` needs more
    than `available` bytes (None: unknown, nothing is checked). `names` maps the argument names
    used in the advice (batch_size, image_size, patch_size, dim, depth, train_size, test_size) to
    what the user typed (e.g. "--batch-size")."""
    if available is None or est.total <= available:
        return
    names = {
        k: (names or {}).get(k, k)
        for k in ("batch_size", "image_size", "patch_size", "dim", "depth", "train_size", "test_size")
    }
    step = est.per_image * est.batch_size
    parts = [f"{k} {gigabytes(v)}" for k, v in est.parts.items() if v]
    parts.append(f"one step at {names['batch_size']} {est.batch_size} {gigabytes(step)}")
    if est.evaluation > step:
        parts.append(f"evaluation {gigabytes(est.evaluation)}")
    largest = est.largest_batch(available)
    tokens = f"lower {names['image_size']} or raise {names['patch_size']} (fewer tokens)"
    if est.parts.get("data", 0) > available / 2:
        advice = f"lower {names['train_size']}, {names['test_size']} or {names['image_size']}"
    elif largest >= 1 and step >= max(est.parts.values()):
        advice = f"lower {names['batch_size']} to {largest} or less, or {tokens}"
    elif step >= max(est.parts.values()) or est.evaluation >= max(est.parts.values()):
        advice = f"{tokens}, or lower {names['dim']} or {names['depth']}"
    elif est.encoding:
        given = ", ".join(est.encoding_options)
        advice = f"most of it is the {est.encoding} encoding's parameters: " + (
            f"use smaller values of its options ({given})" if given else tokens
        )
    else:
        advice = f"lower {names['dim']} or {names['depth']}"
    raise ValueError(
        f"this run needs about {gigabytes(est.total)} of memory ({', '.join(parts)}), more than the "
        f"{gigabytes(available)} {where} has free; {advice}"
    )


def check_training(
    model: nn.Module,
    data: Sequence[torch.Tensor],
    *,
    batch_size: int,
    optimizer: str,
    device: torch.device,
    precision: str,
    evaluation_batch: int = 0,
    members: int = 1,
) -> None:
    """Raise a ValueError with the estimate, what the device has free and what to lower, if a
    training step of this ViT (a model without a ViTConfig is not checked) on images like `data`'s
    (images, labels) at `batch_size` per process needs more memory than `device` has free. Data on
    the CPU is already in memory; on a GPU, `fit` copies it there. With `members`, an ensemble of
    that many such models, `batch_size` images each (`fit_ensemble`: attention written out)."""
    config = getattr(model, "config", None)
    if not isinstance(config, ViTConfig):
        return
    est = estimate(
        config,
        batch_size=batch_size * members,
        image_size=tuple(data[0].shape[-2:]),
        model=model,
        optimizer=optimizer,
        autocast=autocast_dtype(device, precision) is not None,
        device_type=device.type,
        fused=members == 1 and all(getattr(m, "fused", True) for m in model.modules()),
        data_bytes=sum(t.numel() * t.element_size() for t in data) if device.type == "cuda" else 0,
        evaluation_batch=evaluation_batch,
        members=members,
    )
    check(
        est, device_memory(device), where="this machine" if device.type != "cuda" else f"the GPU ({device})"
    )
