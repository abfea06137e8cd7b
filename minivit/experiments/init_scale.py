"""The initial scale of a learned position table decides what it becomes (Ito et al. 2024,
"Learning interpretable positional encodings in transformers depends on initialization",
arXiv 2406.08272), on the Latin square task (`minivit.data.lst`).

A learnable table per block, initialised N(0, sigma^2). In the authors' logged runs (their
repository's processed_data/ito_models, 15 seeds per sigma) every sigma from 0.1 to 2 fits its
training puzzles; started small the table generalizes to the human study's puzzles (0.93-0.96 at
sigma <= 0.5), started at sigma = 2 it does not (0.38): the model has fitted its training puzzles
another way. The fixed 2-D sinusoid is the comparison.

    python -m minivit.experiments.init_scale --setting reference-64 --seeds 3 --sigmas 0.1 2.0 \
        --evals 16                                             # lesson 07 (about 35 minutes, 2 cores)
    python -m minivit.experiments.init_scale --setting reference-64-reach --seeds 3 --sigmas 0.1 2.0 \
        --evals 16 --no-sinusoid --out minivit/experiments/recorded/init_scale_reach.json  # 100x reach
    python -m minivit.experiments.init_scale --setting reference-100 --seeds 3 --sigmas 0.1 2.0 \
        --evals 16 --no-sinusoid --out minivit/experiments/recorded/init_scale_reference.json
                                                    # the paper's width (10 minutes a run on 2 cores)
    python -m minivit.experiments.init_scale --setting reference --device cuda --seeds 15 \
        --sigmas 0.1 0.5 1.0 1.5 2.0 --out init_scale_full.json  # the reference run, whole

Every sweep runs on the reference's own puzzle files (a copy ships with minivit), split as the
reference splits them (`lst.reference_splits`); the sweep file is written after every run, and a
re-run trains only what it does not hold yet. Runs that never trained (`is_dead`) are named and
left out of every mean.

What matters is sigma against how far training moves the table. Adam moves an entry by typically
about the learning rate per step (a few times more at most), so the sum of the table's learning
rates over a run, its *reach* (`Setting.reach`), says roughly how far it can travel.

The `reference` setting against the reference code (github.com/ljhearne/LSTNN_public, files under
lstnn/ and scripts/, line numbers at commit d139c51):

    aspect            reference                                        minivit (reference)
    puzzles, split    9,000 generated (3,000 per grade), 8,100 to      the same files and rows
                      train and 900 held out (stratified, random_state (lst.reference_splits); kept
                      42 in curricula.py, commit eef1642); the human   apart: the same 108
                      study's 108 puzzles to validate
    input tokens      one-hot over 1-4 and the query, a blank cell     one-hot over blank, 1-4, query;
                      all zeros (dataset.py 242-248)                   the same once embedded with a bias
    embedding         Linear(5, 160) with bias (transformer_main 231)  1x1 patch embedding, with bias
    readout           the last token, cell 15 (transformer_main 305)   pool="last"
    position table    one per block, 16 x 160, `randn * sigma`, added  per_block=True, N(0, sigma^2),
                      before attention, at the others' rate            position_lr_scale 1
                      (learnable_pe 15, transformer_main 415)
    2-D sinusoid      owned by every block: dropout(x + pe), p = 0.1,  per_block=True, dropout=0.1;
                      on at evaluation too (PositionalEncoding2D       scored both ways
                      51-84; run_transformer never calls eval())       (accuracy, accuracy_dropout_on)
    blocks            4, post-LN, 1 head, width 160 (419-422)          the same
    MLP               Linear-GELU-Linear-GELU (372-376)                no last GELU (not measured)
    weight init       PyTorch's defaults, nn.MultiheadAttention's      init="torch": the same
    optimizer         AdamW lr 1e-4, betas (0.9, 0.999), wd 0,         the same
                      constant, no warmup (run_transformer 143-146)
    batches           128, reshuffled each epoch, the last partial     128, reshuffled; the last
                      batch kept: 64 steps an epoch                    partial batch dropped (36 of
                                                                       8,100 puzzles an epoch, each
                                                                       epoch others: not measured)
    length            4,001 epochs, 256,064 steps                      the same (reference-200: its
                                                                       first 201 epochs)
    scores            train: the mean of the epoch's batch accuracies  accuracy on every set after
                      while it trains; held-out: a mean over 8         training, in eval mode; the
                      batches (the last of 4 puzzles)                  batch curve as it trains
    precision         fp32                                             fp32 on a CPU, bf16 on a GPU

`reference-64` is the course's own, CPU-sized set-up, not the paper's: width 64, the tables at the
reference's learning rate and the other weights at 3x it, 8,000 steps, everything else as above;
`reference-64-reach` gives the tables 100x the rate. Lesson 07 quotes no paper number for them.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from minivit import analysis
from minivit.config import INITS, ViTConfig, preset
from minivit.data import lst
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate, predict
from minivit.experiments import command_line, provenance, read_result, resumable, write_result
from minivit.model import ViT
from minivit.posenc.base import grid_coords
from minivit.posenc.learned import Learned
from minivit.posenc.sinusoidal import sincos_2d
from minivit.train import History, default_warmup, fit, lr_at, pick_device, seed_everything

SIGMAS = (0.1, 0.2, 0.5, 1.0, 1.5, 2.0)
PUZZLES = ("generated", "reference")
REFERENCE = "sincos2d"
GRID = (4, 4)

# Ito et al. 2024, mean over 15 seeds: sigma -> (held-out generated puzzles, puzzles kept apart)
PUBLISHED: dict[str, tuple[float, float]] = {
    "0.1": (0.970, 0.925),
    "0.2": (0.986, 0.956),
    "0.5": (0.986, 0.946),
    "1.0": (0.981, 0.894),
    "1.5": (0.916, 0.616),
    "2.0": (0.847, 0.377),
    REFERENCE: (0.985, 0.977),
}


@dataclass(frozen=True)
class Setting:
    """Model size, training length and data of one sweep (the defaults are the published ones)."""

    dim: int = 160
    depth: int = 4
    steps: int = 12800  # about 230 epochs of 7,200 puzzles: past where the published results plateau
    lr: float = 1e-4
    batch_size: int = 128
    n_train: int = 8192
    n_eval: int = 1000
    optimizer: str = "adamw"
    position_lr_scale: float = 1.0  # the tables' learning rate, as a multiple of the others'
    schedule: str = "constant"  # the reference trains at a constant learning rate, no warmup
    warmup: int | None = 0
    max_rounds: int | None = 1  # generated puzzles like the reference's: one round of deduction
    init: str = "trunc_normal"  # the other weights' init (ViTConfig.init; "torch": the reference's)
    sincos_per_block: bool = False  # the 2-D sinusoid added before every block (the reference)...
    sincos_dropout: float = 0.0  # ...as dropout(x + pe), p = 0.1 in the reference
    puzzles: str = "generated"  # "generated" (lst.splits) or "reference" (Ito et al.'s own files)
    split: str = "published"  # the reference puzzles' split: "published" (theirs) or "random"

    def __post_init__(self) -> None:
        for name, value, known in (
            ("puzzles", self.puzzles, PUZZLES),
            ("split", self.split, lst.SPLITS),
            ("init", self.init, INITS),
        ):
            if value not in known:
                raise ValueError(f"Setting({name}={value!r}): use one of {', '.join(known)}")

    @property
    def reach(self) -> float:
        """About how far Adam can move one table entry in the whole run: the sum of the tables'
        learning rate over the steps (lr * steps at a constant rate; about lr * steps / 2 with warmup
        and cosine decay)."""
        warmup = default_warmup(self.steps) if self.warmup is None else self.warmup
        total = sum(
            lr_at(s, steps=self.steps, lr=self.lr, warmup=warmup, schedule=self.schedule)
            for s in range(self.steps)
        )
        return total * self.position_lr_scale

    def config(self, encoding: str) -> ViTConfig:
        """The LST model with a learned table initialised N(0, sigma^2) (encoding "0.1", ...) or the
        fixed 2-D sinusoid (encoding "sincos2d")."""
        base = preset("lst").with_(dim=self.dim, depth=self.depth, init=self.init)
        if encoding == REFERENCE:
            options = {"per_block": True, "dropout": self.sincos_dropout} if self.sincos_per_block else {}
            return base.with_(position=REFERENCE, position_options=options)
        return base.with_(position_options={**base.position_options, "std": float(encoding)})


# Ito et al.'s reference run, aspect by aspect (the table above): its init, its sinusoid, its puzzles
# and split; its epoch is 64 steps (8,100 puzzles in batches of 128, the last partial batch kept)
REFERENCE_RUN = {
    "init": "torch",
    "sincos_per_block": True,
    "sincos_dropout": 0.1,
    "puzzles": "reference",
    "split": "published",
}
EPOCH = 64
# the course's CPU-sized set-up: width 64, the tables at the reference's learning rate and the
# other weights at 3x it (position_lr_scale 1/3)
CPU_RUN = {**REFERENCE_RUN, "dim": 64, "lr": 3e-4, "position_lr_scale": 1 / 3}
SETTINGS = {
    # the reference run: 4,001 epochs (its logs' "e-4000"), 256,064 steps; for a GPU
    "reference": Setting(steps=4001 * EPOCH, **REFERENCE_RUN),
    # the same, stopped at its logs' epoch 200 (201 epochs, 12,864 steps), where the logged runs have
    # both regimes already (σ = 2: train 0.98, the study's puzzles 0.39; σ = 0.1: 1.00 and 0.95)
    "reference-200": Setting(steps=201 * EPOCH, **REFERENCE_RUN),
    # stopped after 101 epochs (6,464 steps): about 10 minutes a run on 2 CPU cores
    "reference-100": Setting(steps=101 * EPOCH, **REFERENCE_RUN),
    # lesson 07's recorded sweep, 8,000 steps (125 epochs): about 3 minutes a run on 2 CPU cores
    "reference-64": Setting(steps=8000, **CPU_RUN),
    # the same with the tables at 100x the reference's rate (1e-2): 100x their reach
    "reference-64-reach": Setting(steps=8000, **{**CPU_RUN, "position_lr_scale": 100 / 3}),
    # lesson 07's live runs: width 32 at 10x the reference's rate (the tables at 3.3x), 2,500 steps
    # (about 30 s a run on 2 CPU cores)
    "lesson": Setting(steps=2500, **{**CPU_RUN, "dim": 32, "lr": 1e-3}),
}


def encodings(sigmas: tuple[float, ...] = SIGMAS) -> list[str]:
    return [str(float(s)) for s in sigmas] + [REFERENCE]


def label(encoding: str) -> str:
    return "2-D sinusoid" if encoding == REFERENCE else f"σ = {encoding}"


def make_data(setting: Setting, seed: int = 0, puzzles: str | Path | None = None) -> dict[str, lst.LSTSet]:
    """Train / held-out / kept-apart puzzles (the same for every run of a sweep): generated by
    `lst.splits`, or with `setting.puzzles == "reference"` Ito et al.'s own (`lst.reference_splits`:
    its 9,000 generated puzzles split as `setting.split` says, the human study's 108 kept apart),
    from the copy inside minivit or from the folder `puzzles`."""
    if setting.puzzles == "reference":
        return lst.reference_splits(puzzles, split=setting.split, seed=seed)
    if puzzles is not None:
        raise ValueError(
            f"puzzles={str(puzzles)!r} is for the reference's puzzles; this setting generates its own"
        )
    return lst.splits(
        setting.n_train, setting.n_eval, setting.n_eval, seed=seed, max_rounds=setting.max_rounds
    )


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


def train_one(
    encoding: str,
    seed: int,
    setting: Setting,
    data: dict[str, lst.LSTSet],
    *,
    device: str | torch.device | None = None,
    progress: bool = True,
    evals: int = 0,
) -> tuple[ViT, dict[str, Any]]:
    """Train one model; returns it and its record (accuracies, alignment, how far the table moved).
    With `evals` > 0 the record also holds the accuracy on every set at `evals` points of the run,
    evenly spaced ("evals": {"step": [...], set: [...]})."""
    seed_everything(seed)
    model = ViT(setting.config(encoding))
    start = tables(model)
    every = max(1, setting.steps // evals) if evals else 0
    during: dict[str, list] = {"step": [], **{name: [] for name in data}}
    scoring = [0.0]  # seconds spent on them, not counted as training time

    def score(step: int, m: torch.nn.Module, _: History) -> None:
        if every and (step % every == 0 or step == setting.steps) and step not in during["step"]:
            t = time.perf_counter()
            during["step"].append(step)
            for name, ds in data.items():
                during[name].append(round(evaluate(m, ds), 4))  # evaluate leaves m in training mode
            scoring[0] += time.perf_counter() - t

    t0 = time.perf_counter()
    history = fit(
        model,
        data["train"],
        **_options(setting, encoding),
        seed=seed,
        device=device,
        progress=progress,
        desc=f"{label(encoding)}, seed {seed}",
        callback=score if every else None,
    )
    seconds = time.perf_counter() - t0 - scoring[0]
    record = _record(encoding, seed, setting, model, history, start, seconds, data)
    if every:
        record["evals"] = during
    return model, record


def train_many(
    runs: list[tuple[str, int]],
    setting: Setting,
    data: dict[str, lst.LSTSet],
    *,
    device: str | torch.device | None = None,
    progress: bool = True,
    evals: int = 0,
) -> list[tuple[ViT, dict[str, Any]]]:
    """`train_one` for every (encoding, seed) in `runs`, with the runs of one model shape (every
    sigma; the 2-D sinusoid) trained at once as an ensemble (`minivit.ensemble`) on a GPU, and on a
    CPU at the small widths where that is faster (benchmarks/loop.py: 1.5-3x at width 32; at width
    160 on 2 cores, 0.65x, so those runs go one by one). Runs scored as they train (`evals`) go
    one by one."""
    if evals or not _as_ensemble(setting, device):
        return [
            train_one(e, seed, setting, data, device=device, progress=progress, evals=evals)
            for e, seed in runs
        ]
    out: dict[tuple[str, int], tuple[ViT, dict[str, Any]]] = {}
    groups = ([r for r in runs if r[0] != REFERENCE], [r for r in runs if r[0] == REFERENCE])
    for group in (g for g in groups if g):
        models = []
        for encoding, seed in group:
            seed_everything(seed)
            models.append(ViT(setting.config(encoding)))
        starts = [tables(m) for m in models]
        t0 = time.perf_counter()
        histories = fit_ensemble(
            models,
            data["train"],
            **_options(setting, group[0][0]),
            seeds=[seed for _, seed in group],
            device=device,
            progress=progress,
            desc=f"{len(group)} runs: " + ", ".join(sorted({label(e) for e, _ in group})),
        )
        seconds = (time.perf_counter() - t0) / len(group)
        for (encoding, seed), model, history, start in zip(group, models, histories, starts, strict=True):
            record = _record(encoding, seed, setting, model, history, start, seconds, data)
            out[encoding, seed] = model, record
    return [out[r] for r in runs]


def _as_ensemble(setting: Setting, device: str | torch.device | None) -> bool:
    return pick_device(device).type == "cuda" or setting.dim <= 64


def _options(setting: Setting, encoding: str) -> dict[str, Any]:
    """`fit`'s options for one run of `setting`."""
    return {
        "steps": setting.steps,
        "batch_size": setting.batch_size,
        "lr": setting.lr,
        "weight_decay": 0.0,
        "warmup": setting.warmup,
        "schedule": setting.schedule,
        "grad_clip": None,
        "optimizer": setting.optimizer,
        "position_lr_scale": setting.position_lr_scale if encoding != REFERENCE else 1.0,
    }


def _record(
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


def sweep(
    setting: Setting,
    *,
    seeds: int | list[int] = 3,
    sigmas: tuple[float, ...] = SIGMAS,
    data_seed: int = 0,
    puzzles: str | Path | None = None,
    device: str | torch.device | None = None,
    probe: int = 256,
    progress: bool = True,
    done: list[dict[str, Any]] | None = None,
    save: Callable[[list[dict[str, Any]]], None] | None = None,
    evals: int = 0,
    sinusoid: bool = True,
) -> list[dict[str, Any]]:
    """Every encoding x seed, on the puzzles of `make_data`, seed by seed (each seed's runs at once
    as ensembles where that pays: `train_many`). Each run's attention on `probe` kept-apart puzzles
    (held-out ones where none are kept apart) is compared with the 2-D sinusoid model of the same
    seed (`agreement_with_sincos`).

    Runs already in `done` (records of an earlier, interrupted sweep) are kept and not trained
    again; a seed whose sinusoid is among them trains it again to compare with (on a CPU to the
    same weights), without recording it twice. `save(runs)` is called with every run so far each
    time one finishes (a group trained at once finishes together). `sinusoid=False` trains no
    2-D sinusoid and compares no attention."""
    data = make_data(setting, data_seed, puzzles)
    probe_images = data.get("apart", data["test"]).tensors[0][:probe]
    seeds = list(range(seeds)) if isinstance(seeds, int) else list(seeds)
    runs = list(done or [])
    recorded = {(r["encoding"], r["seed"]) for r in runs}
    one_by_one = evals or not _as_ensemble(setting, device)  # as train_many decides
    for seed in seeds:
        order = [(e, seed) for e in [REFERENCE, *encodings(sigmas)[:-1]] if sinusoid or e != REFERENCE]
        todo = [r for r in order if r not in recorded]
        if not todo:
            continue
        if sinusoid and todo[0][0] != REFERENCE:
            todo.insert(0, (REFERENCE, seed))  # again, only to compare with
        reference = None
        for group in [[r] for r in todo] if one_by_one else [todo]:
            for (encoding, _), (model, record) in zip(
                group,
                train_many(group, setting, data, device=device, progress=progress, evals=evals),
                strict=True,
            ):
                maps = attention(model, probe_images)
                reference = maps if encoding == REFERENCE else reference
                if (encoding, seed) in recorded:
                    continue
                if reference is not None:
                    record["agreement_with_sincos"] = analysis.attention_agreement(maps, reference)
                runs.append(record)
                recorded.add((encoding, seed))
            if save is not None:
                save(runs)
    return runs


def summarize(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Mean and standard deviation over the live seeds, per encoding and measure; runs that never
    trained (`is_dead`) are counted apart ("dead") and left out of every mean."""
    out: dict[str, dict[str, float]] = {}
    for encoding in dict.fromkeys(r["encoding"] for r in runs):
        rs = [r for r in runs if r["encoding"] == encoding and not is_dead(r)]
        values: dict[str, list[float]] = {}
        add = functools.partial(_add, values)
        for r in rs:
            for split, acc in r["accuracy"].items():
                add(split, acc)
            for split, acc in r.get("accuracy_dropout_on", {}).items():
                add(split + "_dropout_on", acc)
            for view in ("seen", "new"):
                add("test_" + view, r.get("test_by_view", {}).get(view))
            add("agreement_with_sincos", r.get("agreement_with_sincos"))
            if "alignment" in r:
                for key, per_block in r["alignment"].items():
                    add(key, sum(per_block) / len(per_block))
        out[encoding] = {"seeds": len(rs), "dead": sum(r["encoding"] == encoding for r in runs) - len(rs)}
        for key, v in values.items():
            t = torch.tensor(v, dtype=torch.float64)
            out[encoding][key] = t.mean().item()
            out[encoding][key + "_std"] = t.std().item() if len(v) > 1 else 0.0
    return out


def _add(values: dict[str, list[float]], key: str, value: float | None) -> None:
    if value is not None:
        values.setdefault(key, []).append(value)


DEFAULT_OUT = "minivit/experiments/recorded/init_scale.json"  # where the lessons read it from (package data)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m minivit.experiments.init_scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--setting", choices=sorted(SETTINGS), default="reference-64")
    ap.add_argument(
        "--puzzles",
        choices=("generated", "reference"),
        help="override the setting's puzzles: generated ones, or Ito et al.'s (the copy inside minivit)",
    )
    ap.add_argument(
        "--reference-folder",
        metavar="DIR",
        help="read the reference's puzzles from DIR (its processed_data folder: "
        f"{', '.join(lst.REFERENCE_FILES)} and {lst.STUDY_FILE}) instead of minivit's copy",
    )
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sigmas", type=float, nargs="+", default=list(SIGMAS))
    ap.add_argument("--steps", type=int, help="override the setting's steps")
    ap.add_argument("--lr", type=float, help="override the setting's learning rate")
    ap.add_argument("--optimizer", choices=("adamw", "sgd"), help="override the setting's optimizer")
    ap.add_argument(
        "--evals",
        type=int,
        default=0,
        help="score every set at this many points of each run (runs then train one by one)",
    )
    ap.add_argument(
        "--no-sinusoid",
        action="store_true",
        help="train only the learned tables: no 2-D sinusoid, no attention compared with it",
    )
    ap.add_argument("--device", help="cuda, mps or cpu (default: the best available)")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    ap.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help="the result, written after every run; runs it already holds are kept, not trained again",
    )
    ap.add_argument("--fresh", action="store_true", help="start again, replacing what --out holds")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    setting = SETTINGS[args.setting]
    names = ("steps", "lr", "optimizer", "puzzles")
    setting = replace(setting, **{k: getattr(args, k) for k in names if getattr(args, k) is not None})
    if args.reference_folder and setting.puzzles != "reference":
        ap.error(
            f"--reference-folder is for the reference's puzzles; add --puzzles reference to {args.setting}"
        )
    device = pick_device(args.device)
    try:
        before = None
        if not args.fresh:  # a file from before a Setting field was removed still carries on
            before = resumable(args.out, setting, restart="--fresh to start it again", keep_removed=True)
    except ValueError as err:
        ap.error(str(err))
    done = before["runs"] if before else []
    earlier = before.get("seconds", 0) if done else 0
    t0 = time.perf_counter()
    result: dict[str, Any] = {}

    def save(runs: list[dict[str, Any]]) -> None:
        result.update(
            {
                "provenance": provenance("minivit.experiments.init_scale", argv, device),
                "setting_name": args.setting,
                "setting": asdict(setting),
                "puzzles": setting.puzzles,
                "seconds": round(earlier + time.perf_counter() - t0, 1),
                "published": PUBLISHED,
                "summary": summarize(runs),
                "runs": runs,
            }
        )
        write_result(result, args.out)

    runs = sweep(
        setting,
        seeds=args.seeds,
        sigmas=tuple(args.sigmas),
        puzzles=args.reference_folder,
        device=device,
        progress=not args.quiet,
        done=done,
        save=save,
        evals=args.evals,
        sinusoid=not args.no_sinusoid,
    )
    if result:
        print(f"wrote {args.out}")
    else:  # nothing left to train
        print(f"{args.out} already holds every run asked for ({len(runs)} runs); --fresh starts again")
        result = read_result(args.out)
    for encoding, s in result["summary"].items():
        dead = f"  ({s['dead']} never trained, left out)" if s.get("dead") else ""
        if not s["seeds"]:
            print(f"{label(encoding):>14}: no run trained{dead}")
            continue
        print(
            f"{label(encoding):>14}: train {s['train']:.3f}  test {s['test']:.3f}  "
            f"apart {s.get('apart', float('nan')):.3f} ± {s.get('apart_std', float('nan')):.3f}  "
            + (f"agreement {s['agreement_with_sincos']:.3f}" if "agreement_with_sincos" in s else "")
            + dead
        )


if __name__ == "__main__":
    sys.exit(command_line(main, "python -m minivit.experiments.init_scale"))
