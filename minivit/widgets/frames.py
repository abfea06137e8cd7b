"""An explorer as still pictures: its view drawn at a grid of its controls' positions.

The course's website plays every explorer of every lesson without a kernel: the page's controls
switch between frames drawn here. Explorers whose inputs need no training are drawn when the site is
built (`docs/explorers.py`); those that show a model the lesson trains are drawn by the lesson's own
run: with ``MINIVIT_FRAMES`` naming a folder, every explorer the process builds also writes its
frames there (`docs/explorers.py --record` runs those lessons so).

    draw_frames(view, controls, out, prefix)   frames of one explorer into `out`; its manifest
    write_manifest(out, explorers)             out/manifest.json: every explorer's, as the page reads it

A manifest names each control's kind, so that the page gives it the right input: a menu or toggle
for a choice, a slider for a number, a slider with a play button for training time. Every position
of a choice is drawn, every control's starting value and any value asked for by name (`named`); the
numbers are spread over what the budget leaves. Each frame carries a text for screen readers (its
titles) and a hash, from which the page tells when a control moves nothing.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import itertools
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import torch
from matplotlib.figure import Figure
from matplotlib.text import Text

BUDGET = 64  # frames per explorer at most
DPI = 96  # a point of text is 4/3 px at the figure's natural size: 8 pt text is 10.7 px
MIN_TEXT_PX = 9  # the page shows a figure no narrower than keeps its smallest text this tall
TIME = ("step", "snapshot")  # controls that are training time: the page gives them a play button
ENV = "MINIVIT_FRAMES"
NAMED_ENV = "MINIVIT_FRAMES_NAMED"  # JSON: {"explorer index": {"control": [values]}}


def _number(label: str) -> bool:
    try:
        float(label)
    except ValueError:
        return False
    return True


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


def control_kind(name: str, control, labels: Sequence[str]) -> str:
    """'time' (training steps or snapshots), 'choice' (a menu, toggles, a slider over names, or
    one over at most three numbers, which toggles show better) or 'number'."""
    if name in TIME:
        return "time"
    slider = type(control).__name__.endswith("Slider")
    if not slider or not all(_number(x) for x in labels) or len(labels) <= 3:
        return "choice"
    return "number"


def counts_within(sizes: list[int], budget: int, least: Sequence[int] | None = None) -> list[int]:
    """How many positions of each control to draw: their product at most `budget`, at least
    `least` of each (if that fits), spread evenly (the control with the fewest positions drawn so
    far gets one more, while it fits)."""
    counts = list(least) if least is not None else [1] * len(sizes)
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


def spread(size: int, count: int, keep: int | Iterable[int]) -> list[int]:
    """`count` indices of 0..size-1, evenly spread, those in `keep` among them (`count` is raised
    to hold them all)."""
    keep = {keep} if isinstance(keep, int) else set(keep)
    if max(count, len(keep)) >= size:
        return list(range(size))
    picked = {round(i * (size - 1) / (count - 1)) for i in range(count)} if count > 1 else set()
    for k in sorted(keep - picked):
        free = picked - keep
        if len(picked) >= count and free:  # the nearest one not asked for makes room
            picked.discard(min(free, key=lambda i: abs(i - k)))
        picked.add(k)
    return sorted(picked)


def _indices(name: str, wanted: Iterable, values: list, labels: list[str]) -> set[int]:
    """The positions of `wanted` (values or their labels) among a control's, or a ValueError."""
    found = set()
    for w in wanted:
        hits = [i for i, (v, s) in enumerate(zip(values, labels, strict=True)) if v == w or s == str(w)]
        if not hits:
            raise ValueError(
                f"frames asked for {name} = {w!r}, which the control does not offer; it offers "
                f"{', '.join(labels[:12])}{', ...' if len(labels) > 12 else ''}"
            )
        found |= set(hits)
    return found


def describe(fig: Figure) -> str:
    """What a figure shows, for a screen reader: its titles (the figure's, then each panel's)."""
    parts = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) else []
    for ax in fig.axes:
        parts += [ax.get_title(loc) for loc in ("left", "center", "right")]
    return "; ".join(p.strip() for p in parts if p and p.strip())


def smallest_text(fig: Figure) -> float:
    """The size in points of the smallest text a drawn figure shows (its tick labels included)."""
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=10.0)


def png(fig: Figure) -> tuple[bytes, tuple[int, int]]:
    """A figure as a PNG of at most 256 colours (a third of the size, the same to the eye), and
    its size in pixels."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    out = io.BytesIO()
    image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, "png", optimize=True
    )
    return out.getvalue(), image.size


def draw_frames(
    view: Callable[..., Figure],
    controls: Mapping,
    out: str | Path,
    prefix: str,
    budget: int = BUDGET,
    named: Mapping[str, Iterable] | None = None,
    index: int = 0,
) -> dict:
    """Draw `view` at a grid of the controls' positions as `out`/`index`-k.png: every position of a
    choice, every control's starting value and the values in `named` ({control: values}), the
    numbers spread over what the rest of `budget` frames allows. Returns the explorer's manifest:
    its controls (name, label, kind, the labels of the positions drawn, the starting one), and by
    frame (positions joined by '-') its path `prefix`/`index`-k.png, text and hash; the figure's
    natural width and height in px, its smallest text in px, and the narrowest width at which that
    text is still MIN_TEXT_PX tall (`legible_width`)."""
    out = Path(out)
    names = list(controls)
    named = dict(named or {})
    unknown = sorted(set(named) - set(names))
    if unknown:
        raise ValueError(
            f"frames asked for values of {', '.join(unknown)}; the explorer's controls are {names}"
        )
    found = [control_values(controls[n]) for n in names]
    kinds = [control_kind(n, controls[n], labels) for n, (_, labels, _) in zip(names, found, strict=True)]
    keep = []
    for n, (values, labels, start), kind in zip(names, found, kinds, strict=True):
        wanted = {start} | _indices(n, named.get(n, ()), values, labels)
        keep.append(set(range(len(values))) if kind == "choice" else wanted)
    sizes = [len(values) for values, _, _ in found]
    least = [len(k) for k in keep]
    needed = 1
    for c in least:
        needed *= c
    if needed > budget:
        raise ValueError(
            f"{getattr(view, '__name__', 'the explorer')}: every choice and the values asked for "
            f"need {needed} frames, more than the budget of {budget}; ask for fewer values or raise "
            "the budget"
        )
    counts = counts_within(sizes, budget, least)
    picks = [spread(size, c, k) for size, c, k in zip(sizes, counts, keep, strict=True)]
    manifest: dict = {"controls": [], "frames": {}, "texts": {}, "hashes": {}}
    for name, (_, labels, start), kind, pick in zip(names, found, kinds, picks, strict=True):
        c = controls[name]
        manifest["controls"].append(
            {
                "name": name,
                "label": getattr(c, "description", "") or name,
                "kind": kind,
                "labels": [labels[i] for i in pick],
                "start": pick.index(start),
            }
        )
    out.mkdir(parents=True, exist_ok=True)
    width = height = 0
    smallest = float("inf")
    for k, combo in enumerate(itertools.product(*[range(len(p)) for p in picks])):
        kwargs = {n: found[j][0][picks[j][i]] for j, (n, i) in enumerate(zip(names, combo, strict=True))}
        fig = view(**kwargs)
        data, (w, h) = png(fig)
        (out / f"{index}-{k}.png").write_bytes(data)
        key = "-".join(map(str, combo))
        manifest["frames"][key] = f"{prefix}/{index}-{k}.png"
        manifest["texts"][key] = describe(fig)
        manifest["hashes"][key] = hashlib.sha1(data).hexdigest()[:12]
        width, height = max(width, w), max(height, h)
        smallest = min(smallest, smallest_text(fig))
    text_px = smallest * DPI / 72
    # the narrowest the page may show it: its smallest text MIN_TEXT_PX tall
    legible = math.ceil(width * MIN_TEXT_PX / text_px)
    manifest.update(width=width, height=height, text_px=round(text_px, 2), legible_width=legible)
    return manifest


def write_manifest(out: str | Path, explorers: list[dict], run: dict | None = None) -> dict:
    """`out`/manifest.json: the explorers' manifests in the order the lesson builds them, and the
    run that drew them (if a lesson's run did). Returns what it wrote."""
    manifest: dict = {"explorers": explorers}
    if run:
        manifest["run"] = run
    Path(out, "manifest.json").write_text(json.dumps(manifest))
    return manifest


def named_values() -> dict[int, dict[str, list]]:
    """``MINIVIT_FRAMES_NAMED``: the values to draw by explorer (its index in the run) and control,
    as JSON {"0": {"T": [20]}}; {} when unset; a ValueError naming it when it is not that."""
    text = os.environ.get(NAMED_ENV, "").strip()
    if not text:
        return {}
    try:
        raw = json.loads(text)
        named = {
            int(k): {str(c): list(v) for c, v in controls.items()}
            for k, controls in raw.items()
            if isinstance(controls, dict) and all(isinstance(v, list) for v in controls.values())
        }
    except (ValueError, TypeError, AttributeError):
        named = None
    if named is None or len(named) != len(raw):
        raise ValueError(
            f'{NAMED_ENV}={text[:60]!r} is not JSON of the form {{"0": {{"T": [20]}}}} (explorer index, '
            "control, values to draw); unset it to draw the usual positions"
        )
    return named


_recorded: dict[str, list[dict]] = {}  # by folder: the manifests of the explorers this process drew


def record_if_asked(view: Callable[..., Figure], controls: Mapping) -> None:
    """With ``MINIVIT_FRAMES`` naming a folder, draw the frames of every explorer this process
    builds into it (explorer i's frames named frames/<the folder's name>/i-k.png, as the site serves
    them; earlier recordings' frames removed first) and its manifest.json after each. Without it,
    nothing."""
    folder = os.environ.get(ENV, "").strip()
    if not folder:
        return
    out = Path(folder)
    seed = (os.environ.get("MINIVIT_SEED", "0") or "0").strip()
    if not seed.isdigit():  # before a frame is drawn
        raise ValueError(
            f"MINIVIT_SEED={seed!r} is not a whole number >= 0; set it to the run's seed, e.g. 0"
        )
    named = named_values()
    if folder not in _recorded:
        for old in frames_of(out):  # a smaller grid than last time leaves no stale frames
            old.unlink()
        _recorded[folder] = []
    drawn = _recorded[folder]
    index = len(drawn)
    drawn.append(
        draw_frames(view, controls, out, prefix=f"frames/{out.name}", named=named.get(index), index=index)
    )
    run = {  # which run drew them: the page says so
        "seed": int(seed),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "date": datetime.date.today().isoformat(),
    }
    write_manifest(out, drawn, run)


def frames_of(out: Path) -> list[Path]:
    """The frames an earlier recording left in `out` (to be replaced: a smaller grid than last time
    leaves none stale), or a ValueError naming MINIVIT_FRAMES if `out` is a file or holds anything
    but frames (i-k.png or k.png, as `draw_frames` names them now and did before) and their
    manifest.json: frames are written only into an empty folder or one of frames, never over
    others' pictures."""
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
    parts = path.stem.split("-")
    return path.suffix == ".png" and len(parts) <= 2 and all(p.isdigit() for p in parts) and path.is_file()
