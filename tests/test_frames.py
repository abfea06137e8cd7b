"""An explorer as still pictures for the website (minivit.widgets.frames): the grid of positions
drawn, the manifest the page's player reads, and the frames a lesson's run records."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from minivit import widgets
from minivit.widgets import frames


def test_counts_within_the_budget_spread_evenly():
    assert frames.counts_within([3, 20], 24) == [3, 8]
    assert frames.counts_within([2, 2, 2], 24) == [2, 2, 2]  # everything fits
    assert frames.counts_within([50], 24) == [24]
    counts = frames.counts_within([7, 9, 11], 24)
    product = counts[0] * counts[1] * counts[2]
    assert product <= 24 and all(product // c * (c + 1) > 24 for c in counts)  # none can grow


def test_spread_keeps_the_start():
    assert frames.spread(10, 3, 0) == [0, 4, 9] or frames.spread(10, 3, 0) == [0, 5, 9]
    picked = frames.spread(10, 3, 7)
    assert 7 in picked and len(picked) == 3
    assert frames.spread(4, 9, 2) == [0, 1, 2, 3]


def test_spread_keeps_every_value_asked_for():
    picked = frames.spread(21, 4, {0, 13, 20})
    assert {0, 13, 20} <= set(picked) and len(picked) == 4
    assert frames.spread(21, 2, {3, 7, 11}) == [3, 7, 11]  # more asked for than the count: all of them


def record_learned(snaps, grid):
    """The (view, controls) that learned_explorer hands its wiring."""
    seen = []

    def recorder(view, controls):
        seen.append((view, dict(controls)))

    original = widgets.tables.explorer
    widgets.tables.explorer = recorder
    try:
        widgets.learned_explorer(snaps, grid)
    finally:
        widgets.tables.explorer = original
    return seen[0]


def snapshots(inits=("a", "b"), steps=(0, 10), positions=9):
    return {name: [(step, torch.randn(positions, 8)) for step in steps] for name in inits}


def test_draw_frames_gives_the_manifest_the_player_reads(tmp_path):
    view, controls = record_learned(snapshots(), (3, 3))
    manifest = frames.draw_frames(view, controls, tmp_path, prefix="frames/x", budget=6, index=2)
    assert [c["name"] for c in manifest["controls"]] == list(controls)
    assert [c["kind"] for c in manifest["controls"]] == ["choice", "time", "number"]
    sizes = [len(c["labels"]) for c in manifest["controls"]]
    assert len(manifest["frames"]) == sizes[0] * sizes[1] * sizes[2] <= 6
    assert sizes[0] == 2  # every position of a choice
    for key, path in manifest["frames"].items():
        assert len(key.split("-")) == 3 and path.startswith("frames/x/2-")
        data = (tmp_path / path.rsplit("/", 1)[1]).read_bytes()
        assert data[:4] == b"\x89PNG"
        assert manifest["hashes"][key] == hashlib.sha1(data).hexdigest()[:12]
        assert "structure score" in manifest["texts"][key]  # the figure's own title, for its alt
    for c, control in zip(manifest["controls"], controls.values(), strict=True):
        assert c["labels"][c["start"]] == str(control.value)  # the explorer's own start is a frame
    assert manifest["width"] == 9 * frames.DPI and manifest["text_px"] >= 8 * frames.DPI / 72
    assert manifest["legible_width"] * manifest["text_px"] >= manifest["width"] * frames.MIN_TEXT_PX


def test_draw_frames_draws_the_values_asked_for_by_name(tmp_path):
    view, controls = record_learned(snapshots(inits=("a",), positions=25), (5, 5))
    manifest = frames.draw_frames(
        view, controls, tmp_path, prefix="p", budget=4, named={"position": [17, "23"]}
    )
    position = manifest["controls"][2]
    assert {"17", "23", "0"} <= set(position["labels"])  # asked for, and the start
    with pytest.raises(ValueError, match="position = 99, which the control does not offer"):
        frames.draw_frames(view, controls, tmp_path, prefix="p", named={"position": [99]})
    with pytest.raises(ValueError, match="values of colour"):
        frames.draw_frames(view, controls, tmp_path, prefix="p", named={"colour": [1]})
    with pytest.raises(ValueError, match="more than the budget of 2"):
        frames.draw_frames(view, controls, tmp_path, prefix="p", budget=2, named={"position": [3, 4]})


def test_a_slider_over_names_or_few_numbers_is_a_choice_and_over_more_a_number():
    import ipywidgets as W

    numbers, few, names = ["0.1", "2.0", "5", "10"], ["0.1", "2.0"], ["none", "rope"]
    assert frames.control_kind("sigma", W.SelectionSlider(options=numbers), numbers) == "number"
    assert (
        frames.control_kind("sigma", W.SelectionSlider(options=few), few) == "choice"
    )  # toggles read better
    assert frames.control_kind("enc", W.SelectionSlider(options=names), names) == "choice"
    assert frames.control_kind("mix", W.ToggleButtons(options=["1", "2"]), ["1", "2"]) == "choice"
    assert frames.control_kind("step", W.SelectionSlider(options=[0, 10]), ["0", "10"]) == "time"


@pytest.fixture
def fresh_recorder(monkeypatch):
    monkeypatch.setattr(frames, "_recorded", {})
    monkeypatch.setattr(frames, "BUDGET", 4)  # a few frames are enough to check


def test_a_run_with_minivit_frames_records_every_explorer(tmp_path, monkeypatch, fresh_recorder):
    out = tmp_path / "03_learned"
    monkeypatch.setenv("MINIVIT_FRAMES", str(out))
    monkeypatch.setenv("MINIVIT_SEED", "5")  # the run's seed, which the page names
    monkeypatch.setenv("MINIVIT_FRAMES_NAMED", '{"1": {"base": [10]}}')
    monkeypatch.setattr(frames, "BUDGET", 8)
    out.mkdir()
    (out / "99.png").write_bytes(b"stale")  # from an older recording
    (out / "0-99.png").write_bytes(b"stale")  # from a larger grid last time
    widgets.learned_explorer(snapshots(inits=("a",)), (3, 3))
    manifest = json.loads((out / "manifest.json").read_text())
    assert not (out / "99.png").exists() and not (out / "0-99.png").exists()
    assert len(manifest["explorers"]) == 1
    assert manifest["run"]["seed"] == 5 and manifest["run"]["threads"] == torch.get_num_threads()
    widgets.sincos_explorer(grid=(4, 4))  # a second explorer in the same run: recorded beside it
    manifest = json.loads((out / "manifest.json").read_text())
    first, second = manifest["explorers"]
    assert all(p.startswith("frames/03_learned/0-") for p in first["frames"].values())
    assert all(p.startswith("frames/03_learned/1-") for p in second["frames"].values())
    base = next(c for c in second["controls"] if c["name"] == "base")
    assert "10" in base["labels"]  # asked for by MINIVIT_FRAMES_NAMED
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == len(first["frames"]) + len(second["frames"])


@pytest.mark.parametrize("text", ["[1]", '{"0": [20]}', '{"x": {"T": [1]}}', "not json"])
def test_a_bad_minivit_frames_named_is_named(tmp_path, monkeypatch, fresh_recorder, text):
    monkeypatch.setenv("MINIVIT_FRAMES", str(tmp_path / "f"))
    monkeypatch.setenv("MINIVIT_FRAMES_NAMED", text)
    with pytest.raises(ValueError, match="MINIVIT_FRAMES_NAMED=.* is not JSON of the form"):
        widgets.sincos_explorer(grid=(4, 4))
    assert not (tmp_path / "f").exists()  # before anything is written


def test_without_minivit_frames_nothing_is_written(tmp_path, monkeypatch, fresh_recorder):
    monkeypatch.delenv("MINIVIT_FRAMES", raising=False)
    monkeypatch.chdir(tmp_path)
    widgets.sincos_explorer(grid=(4, 4))
    assert list(tmp_path.iterdir()) == []


def test_a_frame_worker_that_cannot_start_stops_the_build_with_an_error(tmp_path):
    """docs/explorers.py draws in spawned workers. One that cannot import what it is to run (here:
    the module, gone once the build has begun) stops the build with an error, where a
    multiprocessing Pool started new workers forever and the build hung."""
    root = Path(__file__).resolve().parents[1]
    script = (
        "import shutil, sys, pathlib\n"
        f"tmp = pathlib.Path({str(tmp_path)!r})\n"
        "shutil.copy('docs/explorers.py', tmp / 'gone_explorers.py')\n"
        "sys.path.insert(0, str(tmp))\n"
        "import gone_explorers\n"
        "(tmp / 'gone_explorers.py').unlink()\n"
        "shutil.rmtree(tmp / '__pycache__', ignore_errors=True)\n"
        "gone_explorers.source_key = lambda: 'key'\n"
        "gone_explorers.build_all(tmp / 'out', quiet=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert done.returncode != 0 and "BrokenProcessPool" in done.stderr, done.stderr[-2000:]
