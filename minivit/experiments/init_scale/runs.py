"""Training the σ sweep: one run, the runs of one shape at once as an ensemble where that pays, every
encoding x seed carried on from an interrupted sweep, and the mean over seeds."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from minivit import analysis
from minivit.data import lst
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate
from minivit.experiments.init_scale.measures import attention, is_dead, measure_run, tables
from minivit.experiments.init_scale.setting import REFERENCE, SIGMAS, Setting, encodings, label, make_data
from minivit.model import ViT
from minivit.train import History, fit, pick_device, seed_everything


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
    record = measure_run(encoding, seed, setting, model, history, start, seconds, data)
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
    160 on 2 cores, 0.65x, so those runs go one by one). With `evals`, every run is scored at the
    same points as `train_one` scores it."""
    if not _as_ensemble(setting, device):
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
        every = max(1, setting.steps // evals) if evals else None
        during = [{"step": [], **{name: [] for name in data}} for _ in group]
        scoring = [0.0]  # seconds spent on them, not counted as training time

        def score(step, members, _, during=during, scoring=scoring) -> None:
            t = time.perf_counter()
            for m, seen in zip(members, during, strict=True):
                seen["step"].append(step)
                for name, ds in data.items():
                    seen[name].append(round(evaluate(m, ds), 4))
            scoring[0] += time.perf_counter() - t

        t0 = time.perf_counter()
        histories = fit_ensemble(
            models,
            data["train"],
            **_options(setting, group[0][0]),
            seeds=[seed for _, seed in group],
            device=device,
            progress=progress,
            desc=f"{len(group)} runs: " + ", ".join(sorted({label(e) for e, _ in group})),
            eval_every=every,
            callback=score if evals else None,
        )
        seconds = (time.perf_counter() - t0 - scoring[0]) / len(group)
        for (encoding, seed), model, history, start, seen in zip(
            group, models, histories, starts, during, strict=True
        ):
            record = measure_run(encoding, seed, setting, model, history, start, seconds, data)
            if evals:
                record["evals"] = seen
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
