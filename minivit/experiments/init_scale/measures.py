"""What a run of the σ sweep is measured by: accuracy on every set, by grade and by whether a held-out
puzzle's view was seen in training; the learning curve; the learned tables, how far they moved and
how much of the grid they hold; and whether the run trained at all (`is_dead`)."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from minivit import analysis
from minivit.data import lst
from minivit.evaluate import evaluate, predict
from minivit.experiments.init_scale.setting import GRID, Setting
from minivit.model import ViT
from minivit.posenc.base import grid_coords
from minivit.posenc.learned import Learned
from minivit.posenc.sincos import sincos_2d
from minivit.train import History, seed_everything


def tables(model: ViT) -> Tensor | None:
    """The learned tables [L, 16, D] of a model (None for a fixed encoding)."""
    if not isinstance(model.pos, Learned):
        return None
    return model.pos.table.detach().float().cpu().clone()


def start_tables(run: dict[str, Any], setting: Setting) -> Tensor:
    """The tables [L, 16, D] a recorded run started from, drawn again: `train_one` seeds, then builds
    the model, so the same seed and setting give the same draw. Check it against the record
    (`moved_rms` is the rms of the end tables minus these) before trusting it."""
    if "tables" not in run:
        raise ValueError(f"run {run.get('encoding')!r}, seed {run.get('seed')} has no learned tables")
    seed_everything(run["seed"])
    return tables(ViT(setting.config(run["encoding"])))


def attention(model: ViT, images: Tensor) -> Tensor:
    """Every block's attention on `images`, heads averaged: [L, B, 16, 16]."""
    model.eval()
    with torch.no_grad():
        maps = model.attention_maps(images)
    return torch.stack([m.mean(1) for m in maps]).cpu()


def alignment(table: Tensor) -> dict[str, list[float]]:
    """Per block: Procrustes score against the grid coordinates, against the 2-D sinusoid, and the
    correlation of similarity with grid distance."""
    coords = grid_coords(GRID)
    sincos = sincos_2d(GRID, table.shape[-1])
    return {
        "procrustes_grid": [analysis.procrustes(t, coords)[0] for t in table],
        "procrustes_sincos": [analysis.procrustes(t, sincos)[0] for t in table],
        "structure": [analysis.structure_score(t, GRID) for t in table],
    }


def measure_run(
    encoding: str,
    seed: int,
    setting: Setting,
    model: ViT,
    history: History,
    start: Tensor | None,
    seconds: float,
    data: dict[str, lst.LSTSet],
) -> dict[str, Any]:
    model.cpu().eval()
    last = history.loss[-max(1, min(100, len(history.loss) // 10)) :]
    record: dict[str, Any] = {
        "encoding": encoding,
        "seed": seed,
        "optimizer": setting.optimizer,
        "seconds": round(seconds, 1),
        "final_loss": history.loss[-1],
        "loss_end": sum(last) / len(last),  # the mean loss of the last tenth of the run (100 steps at most)
        "answers_given": len(torch.unique(predict(model, data["train"].tensors[0]))),
        "curve": _curve(history),
        "accuracy": {name: evaluate(model, ds) for name, ds in data.items()},
        "accuracy_by_grade": {name: _by_grade(model, ds) for name, ds in data.items() if name != "train"},
        "test_by_view": _by_view(model, data),
    }
    record["dead"] = is_dead(record)
    if model.config.dropout or getattr(model.pos, "dropout", 0):  # also as the reference scores: dropout on
        record["accuracy_dropout_on"] = {name: evaluate(model, ds, dropout=True) for name, ds in data.items()}
    end = tables(model)
    if end is not None:
        record["moved_rms"] = (end - start).pow(2).mean().sqrt().item()
        record["alignment"] = alignment(end)
        record["grid"] = [analysis.grid_recovery(t, GRID, seed=seed) for t in end]
        record["tables"] = [[[round(v, 4) for v in row] for row in t] for t in end.tolist()]
    return record


DEAD_LOSS = math.log(4)  # the loss of one answer distribution for every puzzle, over 4 answers


def is_dead(record: dict[str, Any]) -> bool:
    """A run that never trained: its loss at the end within 1% of ln 4, or one answer for every
    training puzzle. Such runs are reported apart and left out of every comparison."""
    loss = record.get("loss_end", record["final_loss"])
    return abs(loss - DEAD_LOSS) <= 0.01 * DEAD_LOSS or record.get("answers_given", 4) == 1


def _curve(history: History, points: int = 64) -> dict[str, list[float]]:
    """The training loss and batch accuracy, averaged over `points` equal stretches of the run."""
    n = len(history.loss)
    edges = [round(i * n / points) for i in range(points + 1)]
    spans = [(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]
    return {
        "step": [history.step[b - 1] + 1 for _, b in spans],  # steps done by the end of each stretch
        "loss": [round(sum(history.loss[a:b]) / (b - a), 4) for a, b in spans],
        "accuracy": [round(sum(history.accuracy[a:b]) / (b - a), 4) for a, b in spans],
    }


def _by_view(model: ViT, data: dict[str, lst.LSTSet]) -> dict[str, float]:
    """Held-out accuracy on the puzzles whose view (query cell, its row and column: `lst.views`) some
    training puzzle has, and on those whose view is new."""
    test = data["test"]
    seen = lst.seen_view(test.cells, data["train"].cells)
    right = predict(model, test.tensors[0]) == test.tensors[1]
    out = {"seen_fraction": seen.float().mean().item()}
    for name, mask in (("seen", seen), ("new", ~seen)):
        out[name] = right[mask].float().mean().item() if mask.any() else None
    return out


def _by_grade(model: ViT, ds: lst.LSTSet) -> dict[str, float]:
    images, labels = ds.tensors[:2]
    right = predict(model, images) == labels
    out = {}
    for grade in lst.GRADES:
        mask = torch.tensor([g == grade for g in ds.grades])
        if mask.any():
            out[grade] = right[mask].float().mean().item()
    return out
