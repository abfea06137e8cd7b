"""Frames of every lesson's explorers for the website, and where they come from.

The page's controls switch between pictures of an explorer at a grid of its controls' positions
(`minivit.widgets.frames`: every position of a choice, every value NAMED below, the numbers spread
over at most BUDGET frames); the notebook computes any position. The frames come from one of two
places:

- **drawn at build time**, for explorers whose inputs need no training (02, 05, 06, 12: encodings
  drawn by hand; 07: the recorded sweep; 09: the augmentation of eight training images). A recipe
  builds what the lesson passes to its explorer and calls the lesson's own `*_explorer` with the
  widget wiring swapped for a recorder. Cached in docs/_build/frames/NN/ under a key of the
  package's sources and recorded files and this file.
- **recorded by the lesson's run**, for explorers that show a model the lesson trains (00, 01, 03,
  04, 08, 10, 11). `python docs/explorers.py --record` runs those lessons top to bottom with the
  committed run's seed and threads (0 and 2) and ``MINIVIT_FRAMES`` set, so every explorer writes
  its frames into docs/frames/NN/ (committed: the site does not train). Run it again after such a
  lesson's code changes; `make frames` does.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "docs" / "frames"  # frames recorded by lesson runs (committed)
LESSONS = ROOT / "lessons"

sys.path.insert(0, str(ROOT))  # the package of this checkout, also when it is not installed
from minivit.widgets.frames import BUDGET, NAMED_ENV, draw_frames, write_manifest  # noqa: E402


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


def recipe_12_spiral():
    from minivit import widgets

    return widgets.spiral_explorer()


# a lesson's recipes, one per explorer, in the order the lesson builds them
RECIPES: dict[str, list[Callable]] = {
    "02_sinusoidal": [recipe_02],
    "05_rope": [recipe_05],
    "06_alibi": [recipe_06],
    "07_init_scale": [recipe_07],
    "09_capstone": [recipe_09],
    "12_rope_family": [recipe_12, recipe_12_spiral],
}

# The values of a control that a lesson's text names (sets, compares, asks for), by lesson and
# explorer (its index in the lesson): drawn whatever the budget spreads. Every position of a choice
# (a menu or toggles) is drawn anyway. tests/test_site.py finds each on the lesson's page.
NAMED: dict[str, dict[int, dict[str, list]]] = {
    "01_attention": {0: {"temperature": [0.5, 1.0, 2.0, 5.0, 20.0], "query": [8], "index": [0]}},
    "02_sinusoidal": {0: {"dim": [16, 64, 256], "base": [10, 100, 10000], "position": [0, 27]}},
    "03_learned": {0: {"snapshot": [0, 5, 10]}},
    "04_relative": {0: {"clip": [1, 3], "head": [0, 1, 2, 3]}},
    "05_rope": {0: {"base": [10, 100, 10000], "index": [0, 7], "angle": [0, 45, 135]}},
    "06_alibi": {0: {"heads": [2, 4, 6, 8, 12], "head": [2, 3, 8], "query": [18]}},
    "07_init_scale": {0: {"block": [0, 1]}},
    "08_resolution": {0: {"size": [16, 24, 48]}},
    "09_capstone": {0: {"alpha": [0.2, 1.0]}},
    "11_looking_inside": {0: {"query": [0]}},
    "12_rope_family": {0: {"strength": [0]}, 1: {"directions": [2, 4, 8, 12]}},
}


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


def draw(lesson: str, out: Path) -> dict:
    """Draw each of a lesson's explorers (its recipes) at a grid of positions into `out`; write and
    return the lesson's manifest."""
    explorers = []
    for index, recipe in enumerate(RECIPES[lesson]):
        view, controls = record(recipe)
        named = NAMED.get(lesson, {}).get(index)
        explorers.append(
            draw_frames(
                view, controls, out, prefix=f"frames/{lesson}", budget=BUDGET, named=named, index=index
            )
        )
    return write_manifest(out, explorers)


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
    manifest = draw(lesson, Path(out))
    return lesson, manifest, time.time() - start


def build_all(folder: Path, quiet: bool = False, workers: int = 2) -> dict[str, dict]:
    """Every lesson's frames in folder/NN_name/: the recipes' (cached by source_key), drawn by
    `workers` processes of one thread each, and the recorded ones copied from docs/frames/;
    {lesson: manifest}."""
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
        from concurrent.futures import ProcessPoolExecutor

        # spawned workers carry no torch state; a worker that fails (or cannot start: a package that
        # does not import) raises here, where a Pool would wait for it forever
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=context) as pool:
            for lesson, manifest, seconds in pool.map(_draw_one, todo, [str(folder / t) for t in todo]):
                manifests[lesson] = manifest
                (folder / f"{lesson}.key").write_text(key)
                if not quiet:
                    count = sum(len(e["frames"]) for e in manifest["explorers"])
                    print(f"frames of {lesson}: {count} in {seconds:.1f} s")
    for lesson in recorded_lessons():
        out = folder / lesson
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(RECORDED / lesson, out)
        manifests[lesson] = json.loads((out / "manifest.json").read_text())
    return {lesson: manifests[lesson] for lesson in sorted(manifests)}


def recorded_lessons() -> list[str]:
    """The lessons whose frames a run recorded into docs/frames/ (those without a recipe)."""
    if not RECORDED.is_dir():
        return []
    found = [p.name for p in RECORDED.iterdir() if (p / "manifest.json").exists()]
    return sorted(name for name in found if name not in RECIPES)


def to_record() -> list[Path]:
    """The lessons with an explorer and no recipe: their frames come from a run of the lesson."""
    return [
        py
        for py in sorted(LESSONS.glob("[0-9][0-9]_*.py"))
        if py.stem not in RECIPES and "_explorer(" in py.read_text()
    ]


def record_runs(prefixes: list[str] | None = None, seed: int = 0, threads: int = 2) -> None:
    """Run each lesson of `to_record()` (or those starting with `prefixes`) top to bottom with the
    committed run's seed and threads, every explorer writing its frames into docs/frames/NN/.
    The run is the claims sweep's (benchmarks/claims.py): a fresh kernel, claims strict."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import claims

    lessons = [py for py in to_record() if not prefixes or any(py.stem.startswith(p) for p in prefixes)]
    if prefixes and not lessons:
        sys.exit(f"none of {', '.join(prefixes)} is a lesson whose frames are recorded: "
                 f"{', '.join(py.stem for py in to_record())}")  # fmt: skip
    for py in lessons:
        out = RECORDED / py.stem
        os.environ["MINIVIT_FRAMES"] = str(out)
        os.environ[NAMED_ENV] = json.dumps({str(i): v for i, v in NAMED.get(py.stem, {}).items()})
        start = time.time()
        run = claims.run_lesson(py, seed, threads, timeout=1800)
        if not run["ok"]:
            sys.exit(f"{py.stem} stopped: {run['error']}; its frames in {out} are not to be trusted")
        manifest = json.loads((out / "manifest.json").read_text())
        seconds = time.time() - start
        count = sum(len(e["frames"]) for e in manifest["explorers"])
        print(f"frames of {py.stem}: {count} (the lesson ran in {seconds:.0f} s)")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="record the frames of explorers that show a trained model")
    parser.add_argument("--record", nargs="*", metavar="NN", help="run these lessons (default: all)")
    args = parser.parse_args()
    if args.record is None:
        parser.error("nothing to do: pass --record (every lesson whose frames a run records) or --record 03")
    record_runs(args.record or None)
