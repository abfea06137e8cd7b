"""Where a run's randomness comes from: `seed_everything`, the batch order (a seeded shuffle of the
training set each epoch, kept on the device and shared out under torchrun), and the seed of each
step's augmentation, so that a resumed run (and each process) draws what it would have."""

from __future__ import annotations

import random

import numpy as np
import torch
from torch import Tensor


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (all devices)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def augment_seed(seed: int, rank: int, step: int) -> int:
    """The augmentation generator's seed at `step` of the run seeded `seed`, in process `rank`."""
    return ((seed * 1_000_003 + rank) * 1_000_003 + step) % 2**63


class _Batches:
    """The batch order: a seeded shuffle of the training set each epoch, kept on the device; under
    torchrun every process draws the same global batch and takes its share."""

    def __init__(self, n: int, batch_size: int, seed: int, device: torch.device, rank: int, world: int):
        self.n, self.batch_size, self.device, self.rank, self.world = n, batch_size, device, rank, world
        self.generator = torch.Generator().manual_seed(seed)
        self.order, self.cursor = self._shuffle(), 0

    def _shuffle(self) -> Tensor:
        return torch.randperm(self.n, generator=self.generator).to(self.device)

    def next(self) -> Tensor:
        """This process's indices of the next batch (on the device)."""
        if self.cursor + self.batch_size > self.n:  # a new epoch
            self.order, self.cursor = self._shuffle(), 0
        idx = self.order[self.cursor : self.cursor + self.batch_size][self.rank :: self.world]
        self.cursor += self.batch_size
        return idx
