"""Frames of each lesson's first explorer for the website, drawn when the site is built.

A recipe builds what the lesson passes to its first explorer and calls the lesson's own
`minivit.widgets.*_explorer`, with the widget wiring swapped for a recorder: the recorder keeps the
explorer's view function (the package's `*_view`, which draws with `minivit.viz`) and its controls,
then draws the view at a grid of the controls' positions (at most BUDGET frames, every control's
own starting value among them). The page's sliders switch between those pictures; the notebook
computes any position.

Only explorers whose inputs need no training have a recipe: the encodings drawn by hand (02, 05,
06, 12), the recorded sweep (07) and the augmentation of eight training images (09). The others
show a trained model of the lesson's run, which the site does not train; their pages say so.

Frames are cached in docs/_build/frames/NN/ under a key of the package's sources and recorded
files and this file: a build redraws a lesson's frames only when one of them changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 24  # frames per explorer at most
DPI = 64


def recipe_02():
    from minivit import widgets

    return widgets.sincos_explorer(grid=(8, 8))


def recipe_05():
    from minivit import widgets

    return widgets.rope_explorer(head_dim=32)


def recipe_06():
    from minivit import widgets

    return widgets.alibi_explorer(grid=(8, 8))


def recipe_07():
    from minivit import widgets
    from minivit.experiments import recorded

    runs = recorded("init_scale.json")["runs"]
    reach_runs = recorded("init_scale_reach.json")["runs"]
    # as the lesson: open on the σ = 0.1 seed whose first table holds the most layout
    grid_seed = max(
        (r for r in reach_runs if r["encoding"] == "0.1"),
        key=lambda r: r["grid"][0]["structure"] - r["grid"][0]["structure_null"][1],
    )["seed"]
    return widgets.init_scale_explorer(
        {"1e-2": reach_runs, "1e-4": runs},
        sweep="1e-2",
        sigma="0.1",
        seed=grid_seed,
        block=0,
        sweep_label="tables' lr",
    )


def recipe_09():
    from minivit import widgets
    from minivit.experiments import capstone

    with contextlib.redirect_stdout(io.StringIO()):  # cpu_setting's line on a missing Fashion-MNIST
        setting = capstone.SETTINGS[capstone.cpu_setting()]
        data = capstone.load(setting, download=False)
    sample, labels = data.train.tensors[0][:8], data.train.tensors[1][:8]
    return widgets.augment_explorer(sample, labels, 10)


def recipe_12():
    from minivit import widgets

    return widgets.family_explorer()


RECIPES: dict[str, Callable] = {
    "02_sinusoidal": recipe_02,
    "05_rope": recipe_05,
    "06_alibi": recipe_06,
    "07_init_scale": recipe_07,
    "09_capstone": recipe_09,
    "12_rope_family": recipe_12,
}


def control_values(control) -> tuple[list, list[str], int]:
    """A control's positions (values), their labels, and the index of its starting value."""
    if hasattr(control, "_options_values"):  # SelectionSlider, Dropdown, ToggleButtons
        values = list(control._options_values)
        labels = [str(x) for x in control._options_labels]
    else:  # IntSlider, FloatSlider
        count = int(round((control.max - control.min) / control.step)) + 1
        values = [control.min + i * control.step for i in range(count)]
        if isinstance(control.value, int):
            values = [int(v) for v in values]
        else:
            values = [round(v, 10) for v in values]
        labels = [f"{v:g}" for v in values]
    if control.value in values:
        start = values.index(control.value)
    else:  # a float slider's value between its steps
        start = min(range(len(values)), key=lambda i: abs(values[i] - control.value))
    return values, labels, start


def counts_within(sizes: list[int], budget: int) -> list[int]:
    """How many positions of each control to draw: their product at most `budget`, spread evenly
    (the control with the fewest positions drawn so far gets one more, while it fits)."""
    counts = [1] * len(sizes)
    while True:
        total = 1
        for c in counts:
            total *= c
        grow = [
            i
            for i, (c, s) in enumerate(zip(counts, sizes, strict=True))
            if c < s and total // c * (c + 1) <= budget
        ]
        if not grow:
            return counts
        counts[min(grow, key=lambda i: counts[i])] += 1


def spread(size: int, count: int, start: int) -> list[int]:
    """`count` indices of 0..size-1, evenly spread, one of them `start`."""
    if count >= size:
        return list(range(size))
    picked = sorted({round(i * (size - 1) / (count - 1)) for i in range(count)} if count > 1 else {start})
    if start not in picked:
        nearest = min(picked, key=lambda i: abs(i - start))
        picked = sorted((set(picked) - {nearest}) | {start})
    return picked


def record(recipe: Callable):
    """Run a recipe with the widgets' wiring swapped for a recorder: (view, controls)."""
    import minivit.widgets as widgets_package

    seen = []

    def recorder(view, controls):
        seen.append((view, dict(controls)))
        return None

    modules = [m for name, m in sys.modules.items() if name.startswith("minivit.widgets")]
    saved = [(m, m.explorer) for m in modules if hasattr(m, "explorer")]
    assert saved, f"no explorer wiring found in {widgets_package.__name__}"
    try:
        for m, _ in saved:
            m.explorer = recorder
        recipe()
    finally:
        for m, original in saved:
            m.explorer = original
    if len(seen) != 1:
        raise RuntimeError(f"the recipe {recipe.__name__} built {len(seen)} explorers; it should build one")
    return seen[0]


def draw(lesson: str, recipe: Callable, out: Path) -> dict:
    """Draw a lesson's explorer at a grid of positions into `out`; return its manifest."""
    from matplotlib.figure import Figure

    view, controls = record(recipe)
    names = list(controls)
    found = [control_values(controls[n]) for n in names]
    counts = counts_within([len(values) for values, _, _ in found], BUDGET)
    picks = [spread(len(values), c, start) for (values, _, start), c in zip(found, counts, strict=True)]
    manifest = {"controls": [], "frames": {}}
    for name, (_values, labels, start), pick in zip(names, found, picks, strict=True):
        c = controls[name]
        manifest["controls"].append(
            {
                "name": name,
                "label": getattr(c, "description", "") or name,
                "labels": [labels[i] for i in pick],
                "start": pick.index(start),
            }
        )
    out.mkdir(parents=True, exist_ok=True)
    for k, combo in enumerate(itertools.product(*[range(len(p)) for p in picks])):
        kwargs = {n: found[j][0][picks[j][i]] for j, (n, i) in enumerate(zip(names, combo, strict=True))}
        fig: Figure = view(**kwargs)
        fig.savefig(out / f"{k}.png", format="png", dpi=DPI)
        manifest["frames"]["-".join(map(str, combo))] = f"frames/{lesson}/{k}.png"
    return manifest


def source_key() -> str:
    """A hash of what the frames depend on: the package's sources and recorded files, and this file."""
    h = hashlib.sha256()
    files = sorted((ROOT / "minivit").rglob("*.py")) + sorted((ROOT / "minivit").rglob("*.json"))
    for p in [Path(__file__), *files]:
        h.update(p.relative_to(ROOT).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _draw_one(lesson: str, out: str) -> tuple[str, dict, float]:
    """Draw one lesson's frames in a worker process (one thread): (lesson, manifest, seconds)."""
    import matplotlib

    matplotlib.use("Agg")
    import torch

    torch.set_num_threads(1)
    start = time.time()
    manifest = draw(lesson, RECIPES[lesson], Path(out))
    (Path(out) / "manifest.json").write_text(json.dumps(manifest))
    return lesson, manifest, time.time() - start


def build_all(folder: Path, quiet: bool = False, workers: int = 2) -> dict[str, dict]:
    """Every recipe's frames in folder/NN_name/ (cached by source_key), drawn by `workers` processes
    of one thread each; {lesson: manifest}."""
    os.environ["OMP_NUM_THREADS"] = "1"
    key = source_key()
    manifests, todo = {}, []
    for lesson in RECIPES:
        out = folder / lesson
        stamp = folder / f"{lesson}.key"
        if stamp.exists() and stamp.read_text() == key and (out / "manifest.json").exists():
            manifests[lesson] = json.loads((out / "manifest.json").read_text())
            continue
        if out.exists():
            shutil.rmtree(out)
        stamp.unlink(missing_ok=True)
        todo.append(lesson)
    if todo:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # no torch state carried into the workers
        with context.Pool(min(workers, len(todo))) as pool:
            for lesson, manifest, seconds in pool.starmap(_draw_one, [(t, str(folder / t)) for t in todo]):
                manifests[lesson] = manifest
                (folder / f"{lesson}.key").write_text(key)
                if not quiet:
                    print(f"frames of {lesson}: {len(manifest['frames'])} in {seconds:.1f} s")
    return {lesson: manifests[lesson] for lesson in RECIPES}
