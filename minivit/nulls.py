"""Null runs: training with its cause taken away, so that a claim about what training does can be seen
to fail where the effect is absent.

``MINIVIT_NULL`` (read by every `fit`, `fit_ensemble` and so every ``minivit train``) chooses it:

- ``labels``: every training set's labels (a regression's targets and their mask) are permuted across
  its examples by a seeded permutation before training. The images, the label counts, the model, the
  optimizer and the schedule stay; what links an image to its label is gone, so nothing about the
  task can be learned. Evaluation data keep their true labels (a null model scores chance on them).
- ``noise``: every step's gradient is replaced, parameter by parameter (member by member in an
  ensemble), by Gaussian noise of the same norm, before clipping. The optimizer still moves every
  weight as far as it would, in no direction the task gives: what a claim about how far training
  moves something must beat.
- unset or empty: ordinary training.

``benchmarks/claims.py --null labels`` runs lessons with it and records every claim, so that
``lessons/CLAIMS.md`` shows each claim about training against its null.
"""

from __future__ import annotations

import os

import torch
from torch.utils.data import TensorDataset

KINDS = ("labels", "noise")
_SALT = 0x5EED_0F_0A11  # the null's permutation and noise are drawn apart from the run's own randomness


def kind() -> str | None:
    """The null asked for by ``MINIVIT_NULL`` (None: ordinary training), or a ValueError naming the
    choices."""
    text = os.environ.get("MINIVIT_NULL", "").strip()
    if not text:
        return None
    if text not in KINDS:
        raise ValueError(
            f"MINIVIT_NULL={text!r} is not a null run; use one of {', '.join(KINDS)}, or leave it unset "
            "for ordinary training"
        )
    return text


def shuffled(train: TensorDataset, seed: int) -> TensorDataset:
    """`train` with every tensor after the first (labels; a regression's targets and mask) permuted
    across examples, the same permutation for all of them; the images stay in place."""
    n = len(train.tensors[0])
    order = torch.randperm(n, generator=torch.Generator().manual_seed((seed + _SALT) % 2**63))
    return TensorDataset(train.tensors[0], *(t[order.to(t.device)] for t in train.tensors[1:]))


def training_set(train: TensorDataset, seed: int) -> TensorDataset:
    """What a run trains on: `train`, or its shuffled copy under ``MINIVIT_NULL=labels``."""
    return shuffled(train, seed) if kind() == "labels" else train


class NoiseGradients:
    """Replaces gradients with Gaussian noise of the same norm under ``MINIVIT_NULL=noise`` (a no-op
    otherwise). `members`: the leading dimension of stacked (ensemble) parameters, each member's
    slice getting noise of its own slice's norm; 0 for a plain model."""

    def __init__(self, seed: int, device: torch.device, members: int = 0):
        self.on = kind() == "noise"
        self.members = members
        self.generator = None
        if self.on:
            self.generator = torch.Generator(device=device).manual_seed((seed + _SALT) % 2**63)

    @torch.no_grad()
    def __call__(self, params) -> None:
        if not self.on:
            return
        for p in params:
            g = p.grad
            if g is None:
                continue
            noise = torch.randn(g.shape, generator=self.generator, device=g.device, dtype=torch.float32)
            if self.members:  # each member's slice its own size
                shape = (g.shape[0],) + (1,) * (g.dim() - 1)
                size = g.float().reshape(g.shape[0], -1).norm(dim=1).view(shape)
                length = noise.reshape(g.shape[0], -1).norm(dim=1).view(shape)
            else:
                size, length = g.float().norm(), noise.norm()
            g.copy_((noise * size / length.clamp_min(1e-12)).to(g.dtype))


def describe() -> str:
    """One line saying which null this process trains under ('' for ordinary training)."""
    return {
        "labels": "null run: every training set's labels shuffled (MINIVIT_NULL=labels)",
        "noise": "null run: every gradient replaced by noise of its size (MINIVIT_NULL=noise)",
    }.get(kind() or "", "")
