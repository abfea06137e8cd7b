"""The learning rate over a run: a linear warmup (by default over the first 5% of the steps), then
cosine decay to 0, or the same rate to the end."""

from __future__ import annotations

import math

SCHEDULES = ("cosine", "constant")


def default_warmup(steps: int) -> int:
    """Warmup steps when none are given: 5% of the run."""
    return max(1, steps // 20)


def lr_at(step: int, *, steps: int, lr: float, warmup: int, schedule: str = "cosine") -> float:
    """Learning rate at `step`: linear warmup over `warmup` steps, then cosine decay to 0 (or, with
    schedule="constant", `lr` to the end)."""
    if step < warmup:
        return lr * (step + 1) / warmup
    if schedule == "constant":
        return lr
    progress = (step - warmup) / max(1, steps - warmup)
    return lr * 0.5 * (1 + math.cos(math.pi * progress))
