"""A killed run loses nothing: `minivit train` killed with SIGKILL at random moments (during a step,
during a checkpoint write) always leaves a checkpoint that loads, and `--resume` then ends with the
same weights and loss curve as a run that was never interrupted, bit for bit. A Ctrl-C loses nothing
either: the first one finishes the step, writes a checkpoint at that step and says so; a second one
stops at once."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest
import torch

from minivit.train import CHECKPOINT, Interrupted, fit, load_checkpoint
from tests.test_checkpoint import data, tiny

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


def ctrl_c(times: int, at: int):
    """A callback that presses Ctrl-C `times` times after step `at`."""

    def press(step, model, history):
        if step == at:
            for _ in range(times):
                os.kill(os.getpid(), signal.SIGINT)

    return press


def test_a_first_ctrl_c_saves_the_step_it_is_at_and_resume_continues_bit_for_bit(tmp_path):
    kw = dict(steps=20, batch_size=32, checkpoint_every=10, progress=False, seed=3)
    straight = tiny()
    h_straight = fit(straight, data(), out=tmp_path / "straight", **kw)
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(
        Interrupted, match=r"interrupted after step 7 of 20; checkpoint written at step 7 to "
    ):
        fit(tiny(), data(), out=tmp_path / "run", callback=ctrl_c(1, at=7), **kw)
    assert signal.getsignal(signal.SIGINT) is handler, "fit must give Ctrl-C back as it found it"
    state = load_checkpoint(tmp_path / "run")
    assert state["step"] == 7 and len(state["history"]["loss"]) == 7  # not the step-10 checkpoint's schedule
    resumed = tiny()
    h_resumed = fit(resumed, data(), out=tmp_path / "run", resume=True, **kw)
    for name, value in straight.state_dict().items():
        assert torch.equal(resumed.state_dict()[name], value), f"{name} differs from the uninterrupted run"
    assert h_resumed.loss == h_straight.loss


def test_a_second_ctrl_c_stops_at_once(tmp_path):
    kw = dict(steps=20, batch_size=32, checkpoint_every=10, progress=False, seed=3)
    with pytest.raises(KeyboardInterrupt) as raised:
        fit(tiny(), data(), out=tmp_path / "run", callback=ctrl_c(2, at=7), **kw)
    assert not isinstance(raised.value, Interrupted)  # raised inside step 7's callback, nothing saved after
    assert not (tmp_path / "run" / CHECKPOINT).exists()


@pytest.mark.slow
def test_ctrl_c_on_the_command_line_saves_the_step_and_resume_ends_bit_for_bit(tmp_path):
    reference, stopped = tmp_path / "reference", tmp_path / "stopped"
    subprocess.run([*TRAIN, "--out", str(reference)], check=True, env=ENV, capture_output=True, timeout=300)
    checkpoint = stopped / CHECKPOINT
    # one checkpoint every 150 steps: a Ctrl-C between two of them would lose up to 149 steps
    proc = subprocess.Popen(
        [*TRAIN, "--out", str(stopped)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 120
    while not checkpoint.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)  # the first checkpoint (step 150): training is under way
    time.sleep(random.Random(1).uniform(0.05, 0.3))
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, err
    said = re.search(r"interrupted after step (\d+) of 1500; checkpoint written at step \1 to ", err)
    assert said, err
    step = int(said.group(1))
    assert load_checkpoint(checkpoint)["step"] == step, (step, err)
    assert "continue with the same command and --resume" in err and "Traceback" not in err

    done = subprocess.run(
        [*TRAIN, "--out", str(stopped), "--resume"], env=ENV, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert f"resuming from step {step} of 1500" in done.stdout
    ours, theirs = load_checkpoint(stopped), load_checkpoint(reference)
    for name, value in theirs["model"].items():
        assert torch.equal(ours["model"][name], value), f"{name} differs from the uninterrupted run"
    loss = [json.loads((run / "history.json").read_text())["loss"] for run in (stopped, reference)]
    assert loss[0] == loss[1]
