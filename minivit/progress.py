"""What a run records and shows as it trains: its History, the meter that reads each step's loss and
accuracy off the device (every `sync_every` steps, in one wait) and stops a run whose loss is no
longer finite (`TrainingDiverged`), and the progress bar."""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from tqdm.auto import tqdm

from minivit.checkpoint import kept


@dataclass
class History:
    """What happened during training: per-step loss and batch accuracy, and periodic evaluations
    (for a masked-token regression, "accuracy" is R², the fraction of the variance explained)."""

    step: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    eval_step: list[int] = field(default_factory=list)
    eval_accuracy: list[float] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said once while training, e.g. a runaway loss

    @property
    def final_eval(self) -> float | None:
        return self.eval_accuracy[-1] if self.eval_accuracy else None


class TrainingDiverged(RuntimeError):
    """The loss became NaN or infinite."""


RUNAWAY = 100  # a loss this many times the first step's, still finite, is a run going wrong


FIRST_STEP = (
    "that is before any update, so the learning rate is not the cause: the untrained model's output is "
    "not finite; check the weights it starts from and its encoding's options"
)


_WORDING: ContextVar[Callable[[str], str]] = ContextVar("wording", default=lambda text: text)


@contextlib.contextmanager
def worded(wording: Callable[[str], str]) -> Iterator[None]:
    """While active, a warning said during training (and kept in its History) passes through
    `wording` first: `minivit train` names its options there (--lr 2.0), not fit's (lr=2.0)."""
    token = _WORDING.set(wording)
    try:
        yield
    finally:
        _WORDING.reset(token)


class _Meter:
    """Loss and batch accuracy of each step, kept on the device until `flush` reads them all at once
    (under torchrun: averaged over the processes, as one process would see the global batch). Keeps
    one History per model trained at once (`minivit.ensemble`), each named for the errors."""

    def __init__(
        self,
        histories: list[History],
        world: int,
        path: Path | None,
        hint: str,
        names=None,
        score: str = "acc",
    ):
        self.histories, self.world, self.path, self.hint = histories, world, path, hint
        self.names, self.score = names, score
        self.steps: list[int] = []
        self.values: list[Tensor] = []

    def add(self, step: int, loss: Tensor, correct: Tensor) -> None:
        """Loss and accuracy of one step: scalars, or one per model [K]."""
        self.steps.append(step)
        self.values.append(torch.stack([loss.detach().float().reshape(-1), correct.reshape(-1)], -1))

    def flush(self) -> None:
        """Append the waiting steps to the histories; raise TrainingDiverged at a NaN or inf loss."""
        if not self.steps:
            return
        both = torch.stack(self.values)  # (steps, models, 2)
        if self.world > 1:
            torch.distributed.all_reduce(both)
            both = both / self.world
        rows = both.tolist()  # the one wait for the device
        steps, self.steps, self.values = self.steps, [], []
        for step, row in zip(steps, rows, strict=True):
            for k, (loss, accuracy) in enumerate(row):
                if not math.isfinite(loss):
                    who = f" of {self.names[k]}" if self.names else ""
                    raise TrainingDiverged(
                        f"loss{who} became {loss} at step {step + 1}; {kept(self.path)}"
                        + (FIRST_STEP if step == 0 else self.hint)
                    )
                history = self.histories[k]
                history.step.append(step)
                history.loss.append(loss)
                history.accuracy.append(accuracy)
                first = history.loss[0]
                if first > 0 and loss > RUNAWAY * first and not any("runaway" in w for w in history.warnings):
                    who = f" of {self.names[k]}" if self.names else ""
                    text = _WORDING.get()(
                        f"runaway loss{who}: {loss:.3g} at step {step + 1}, {loss / first:.3g} times its "
                        f"start ({first:.3g}); the run is diverging and will learn little; {self.hint}"
                    )
                    history.warnings.append(text)
                    tqdm.write(f"minivit: warning: {text}", file=sys.stderr)

    def summary(self) -> dict[str, str]:
        """What the progress bar shows (averaged over the models): the last loss, the accuracy of
        the last 20 batches, the last evaluation."""
        hs = [h for h in self.histories if h.loss]
        post = {}
        if hs:
            post["loss"] = f"{np.mean([h.loss[-1] for h in hs]):.3f}"
            post[self.score] = f"{np.mean([h.accuracy[-20:] for h in hs]):.2f}"
        evals = [h.eval_accuracy[-1] for h in self.histories if h.eval_accuracy]
        if evals:
            post["eval"] = f"{np.mean(evals):.2f}"
        return post


def _progress(start: int, steps: int, desc: str | None, enabled: bool) -> tqdm:
    # at most ~50 redraws per run: in a notebook each redraw is a message to the front end, and a
    # flood of them (a slow machine, a long run) can overrun the kernel's output queue
    return tqdm(
        desc=desc or "training",
        disable=not enabled,
        leave=True,
        initial=start,
        total=steps,
        mininterval=0.5,
        miniters=max(1, (steps - start) // 50),
    )
