"""An explorer as still pictures: its view drawn at a grid of its controls' positions.

The course's website plays each lesson's first explorer without a kernel: the page's sliders switch
between frames drawn here. Explorers whose inputs need no training are drawn when the site is built
(`docs/explorers.py`); those that show a model the lesson trains are drawn by the lesson's own run:
with ``MINIVIT_FRAMES`` naming a folder, the first explorer a process builds also writes its frames
there (`docs/explorers.py --record` runs those lessons so).

    draw_frames(view, controls, out, prefix)   frames and manifest.json into `out`; the manifest
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import torch
from matplotlib.figure import Figure

BUDGET = 24  # frames per explorer at most
DPI = 64
ENV = "MINIVIT_FRAMES"


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


def draw_frames(
    view: Callable[..., Figure],
    controls: Mapping,
    out: str | Path,
    prefix: str,
    budget: int = BUDGET,
) -> dict:
    """Draw `view` at a grid of the controls' positions (at most `budget` frames, every control's
    starting value among them) as `out`/k.png, and write `out`/manifest.json: the controls (name,
    label, the labels of the positions drawn, the starting one) and the frames, each named
    `prefix`/k.png. Returns the manifest."""
    out = Path(out)
    names = list(controls)
    found = [control_values(controls[n]) for n in names]
    counts = counts_within([len(values) for values, _, _ in found], budget)
    picks = [spread(len(values), c, start) for (values, _, start), c in zip(found, counts, strict=True)]
    manifest: dict = {"controls": [], "frames": {}}
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
        fig = view(**kwargs)
        fig.savefig(out / f"{k}.png", format="png", dpi=DPI)
        manifest["frames"]["-".join(map(str, combo))] = f"{prefix}/{k}.png"
    (out / "manifest.json").write_text(json.dumps(manifest))
    return manifest


_recorded: set[str] = set()  # the folders this process has written: the first explorer only


def record_if_asked(view: Callable[..., Figure], controls: Mapping) -> None:
    """With ``MINIVIT_FRAMES`` naming a folder, draw the frames of the first explorer this process
    builds into it (the frames are named frames/<the folder's name>/k.png, as the site serves
    them). Without it, nothing."""
    folder = os.environ.get(ENV, "").strip()
    if not folder or folder in _recorded:
        return
    out = Path(folder)
    seed = (os.environ.get("MINIVIT_SEED", "0") or "0").strip()
    if not seed.isdigit():  # before a frame is drawn
        raise ValueError(
            f"MINIVIT_SEED={seed!r} is not a whole number >= 0; set it to the run's seed, e.g. 0"
        )
    ours = frames_of(out)
    _recorded.add(folder)
    for old in ours:  # a smaller grid than last time leaves no stale frames
        old.unlink()
    manifest = draw_frames(view, controls, out, prefix=f"frames/{out.name}", budget=BUDGET)
    manifest["run"] = {  # which run drew them: the page says so
        "seed": int(seed),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "date": datetime.date.today().isoformat(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest))


def frames_of(out: Path) -> list[Path]:
    """The frames an earlier recording left in `out` (to be replaced: a smaller grid than last time
    leaves none stale), or a ValueError naming MINIVIT_FRAMES if `out` is a file or holds anything
    but frames (k.png, as `draw_frames` names them) and their manifest.json: frames are written only
    into an empty folder or one of frames, never over others' pictures."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{ENV}={str(out)!r} names a file, not a folder; name a folder for the frames")
    if not out.is_dir():
        return []
    found = sorted(out.iterdir())
    others = [p.name for p in found if p.name != "manifest.json" and not _is_frame(p)]
    if others:
        raise ValueError(
            f"{ENV}={str(out)!r} holds files that are not frames ({', '.join(others[:3])}"
            f"{', ...' if len(others) > 3 else ''}); name an empty folder, or one frames were recorded in"
        )
    return [p for p in found if _is_frame(p)]


def _is_frame(path: Path) -> bool:
    return path.suffix == ".png" and path.stem.isdigit() and path.is_file()
