"""An explorer as still pictures for the website (minivit.widgets.frames): the grid of positions
drawn, the manifest the page's player reads, and the frames a lesson's run records."""

import json

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


def test_draw_frames_writes_the_manifest_the_player_reads(tmp_path):
    snaps = {
        "a": [(0, torch.randn(9, 8)), (10, torch.randn(9, 8))],
        "b": [(0, torch.randn(9, 8)), (10, torch.randn(9, 8))],
    }
    seen = []

    def recorder(view, controls):
        seen.append((view, dict(controls)))

    original = widgets.tables.explorer
    widgets.tables.explorer = recorder
    try:
        widgets.learned_explorer(snaps, (3, 3))
    finally:
        widgets.tables.explorer = original
    view, controls = seen[0]
    manifest = frames.draw_frames(view, controls, tmp_path, prefix="frames/x", budget=6)
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest
    assert [c["name"] for c in manifest["controls"]] == list(controls)
    sizes = [len(c["labels"]) for c in manifest["controls"]]
    assert len(manifest["frames"]) == sizes[0] * sizes[1] * sizes[2] <= 6
    for key, path in manifest["frames"].items():
        assert len(key.split("-")) == 3 and path.startswith("frames/x/")
        assert (tmp_path / path.rsplit("/", 1)[1]).read_bytes()[:4] == b"\x89PNG"
    for c, control in zip(manifest["controls"], controls.values(), strict=True):
        assert c["labels"][c["start"]] == str(control.value)  # the explorer's own start is a frame


@pytest.fixture
def fresh_recorder(monkeypatch):
    monkeypatch.setattr(frames, "_recorded", set())
    monkeypatch.setattr(frames, "BUDGET", 4)  # a few frames are enough to check


def test_a_run_with_minivit_frames_records_its_first_explorer_only(tmp_path, monkeypatch, fresh_recorder):
    out = tmp_path / "03_learned"
    monkeypatch.setenv("MINIVIT_FRAMES", str(out))
    monkeypatch.setenv("MINIVIT_SEED", "5")  # the run's seed, which the page names
    (out).mkdir()
    (out / "99.png").write_bytes(b"stale")  # from a larger grid last time
    snaps = {"a": [(0, torch.randn(9, 8)), (10, torch.randn(9, 8))]}
    widgets.learned_explorer(snaps, (3, 3))
    manifest = json.loads((out / "manifest.json").read_text())
    assert not (out / "99.png").exists()
    assert all(p.startswith("frames/03_learned/") for p in manifest["frames"].values())
    assert manifest["run"]["seed"] == 5 and manifest["run"]["threads"] == torch.get_num_threads()
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == len(manifest["frames"])
    stamp = (out / "manifest.json").stat().st_mtime_ns
    widgets.sincos_explorer(grid=(4, 4))  # a second explorer in the same run: not recorded
    assert (out / "manifest.json").stat().st_mtime_ns == stamp and sorted(out.glob("*.png")) == pngs


def test_without_minivit_frames_nothing_is_written(tmp_path, monkeypatch, fresh_recorder):
    monkeypatch.delenv("MINIVIT_FRAMES", raising=False)
    monkeypatch.chdir(tmp_path)
    widgets.sincos_explorer(grid=(4, 4))
    assert list(tmp_path.iterdir()) == []
