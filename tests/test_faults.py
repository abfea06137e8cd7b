"""A killed run loses nothing: `minivit train` killed with SIGKILL at random moments (during a step,
during a checkpoint write) always leaves a checkpoint that loads, and `--resume` then ends with the
same weights and loss curve as a run that was never interrupted, bit for bit."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
import torch

from minivit.train import CHECKPOINT, load_checkpoint

KILLS = 20
TRAIN = [
    sys.executable,
    "-m",
    "minivit.cli",
    "train",
    "--task",
    "relation",
    "--train-size",
    "256",
    "--test-size",
    "16",
    "--dim",
    "16",
    "--depth",
    "1",
    "--batch-size",
    "32",
    "--steps",
    "1500",
    "--threads",
    "1",
    "--device",
    "cpu",
    "--quiet",
]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def changed(path, since: int | None) -> bool:
    """Whether `path` exists and was written after `since` (its earlier mtime, None if it was absent)."""
    try:
        now = path.stat().st_mtime_ns
    except FileNotFoundError:
        return False
    return since is None or now != since


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing(tmp_path):
    rng = random.Random(0)
    reference, killed = tmp_path / "reference", tmp_path / "killed"
    subprocess.run([*TRAIN, "--out", str(reference)], check=True, env=ENV, capture_output=True, timeout=300)

    checkpoint = killed / CHECKPOINT
    mid_write = 0
    for kill in range(KILLS):
        before = checkpoint.stat().st_mtime_ns if checkpoint.exists() else None
        # every step writes a checkpoint, so most moments are inside a step or a write
        cmd = [*TRAIN, "--checkpoint-every", "1", "--out", str(killed), *(["--resume"] if kill else [])]
        proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while not changed(checkpoint, before) and proc.poll() is None and time.time() < deadline:
            time.sleep(0.01)  # wait until this process has trained at least one step
        assert proc.poll() is None, f"kill {kill}: the run ended before the kill: {proc.stderr.read()}"
        time.sleep(rng.uniform(0, 0.3))
        mid_write += (killed / f".{CHECKPOINT}.{proc.pid}.tmp").exists()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        state = load_checkpoint(checkpoint)  # raises if the kill left a broken file
        assert 0 < state["step"] < 1500, state["step"]
        json.loads((killed / "run.json").read_text())
    print(f"{KILLS} kills, {mid_write} of them with a checkpoint being written")
    assert len(list(killed.glob(f".{CHECKPOINT}.*.tmp"))) <= 1, "half-written files of killed runs pile up"

    done = subprocess.run(
        [*TRAIN, "--out", str(killed), "--resume"], env=ENV, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    ours, theirs = load_checkpoint(killed), load_checkpoint(reference)
    assert ours["step"] == theirs["step"] == 1500
    for name, value in theirs["model"].items():
        assert torch.equal(ours["model"][name], value), f"{name} differs from the uninterrupted run"
    loss = [json.loads((run / "history.json").read_text())["loss"] for run in (killed, reference)]
    assert loss[0] == loss[1]
