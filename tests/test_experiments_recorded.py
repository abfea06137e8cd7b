"""The recorded results the lessons read (minivit/experiments/recorded/) change only where a command
names them with --out: without it a sweep writes a file of its own in the current folder, and a
sweep that trains nothing leaves its file as it is (a recorded result keeps its provenance)."""

from __future__ import annotations

import hashlib
import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from minivit.experiments import init_scale, network, resolution

RECORDED = resources.files("minivit.experiments") / "recorded"


def fingerprint() -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in RECORDED.iterdir() if p.is_file()}


@pytest.mark.parametrize("module", [init_scale, network, resolution], ids=lambda m: m.__name__.split(".")[-1])
def test_a_sweep_without_out_writes_a_file_of_its_own_in_the_current_folder(module):
    out = Path(module.DEFAULT_OUT)
    assert out.parent == Path(".") and out.suffix == ".json", module.DEFAULT_OUT


def test_a_resolution_sweep_without_out_leaves_the_recorded_results(
    tmp_path, monkeypatch, capsys, tiny_resolution
):
    tiny_resolution(variants=("learned",))
    monkeypatch.chdir(tmp_path)
    before = fingerprint()
    resolution.main(["--settings", "tiny", "--seeds", "1", "--quiet", "--threads", "1"])
    assert "wrote resolution.json" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["resolution.json"]
    assert fingerprint() == before


def test_a_sweep_that_trains_nothing_rewrites_nothing(tmp_path, monkeypatch, capsys, tiny_resolution):
    """`resolution --seeds 3` on the recorded result (every run there): nothing trained, the file's
    bytes (its provenance, its key order) as they were; a sweep that adds a run writes it."""
    copy = tmp_path / "resolution.json"
    shutil.copyfile(RECORDED / "resolution.json", copy)
    monkeypatch.setattr(resolution, "run_seeds", lambda *a, **k: pytest.fail("trained a recorded run"))
    resolution.main(["--seeds", "3", "--quiet", "--out", str(copy)])
    assert "already holds every run asked for; nothing trained, nothing written" in capsys.readouterr().out
    assert copy.read_bytes() == (RECORDED / "resolution.json").read_bytes()

    monkeypatch.undo()
    tiny_resolution(variants=("learned",))
    resolution.main(["--settings", "tiny", "--seeds", "1", "--quiet", "--threads", "1", "--out", str(copy)])
    written = json.loads(copy.read_text())
    assert {r["setting"] for r in written["runs"]} >= {"tiny", "relation"}  # the recorded runs kept
    assert written["earlier"][-1] == json.loads((RECORDED / "resolution.json").read_text())["provenance"]
