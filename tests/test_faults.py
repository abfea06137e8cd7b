"""A killed run loses nothing: `minivit train` killed with SIGKILL at random moments (during a step,
during a checkpoint write) always leaves a checkpoint that loads, and `--resume` then ends with the
same weights and loss curve as a run that was never interrupted, bit for bit. A Ctrl-C or a SIGTERM
loses nothing either: the first one finishes the step, writes a checkpoint at that step and says so;
a second one stops at once. A full disk leaves the last good checkpoint and says so in one line; a
second run into a folder in use is refused, and a dead run's lock is taken over."""

from __future__ import annotations

import errno
import json
import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import time

import pytest
import torch

from minivit.cli import main
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
    subprocess.run([*TRAIN, "--out", str(reference)], check=True, env=ENV, capture_output=True, timeout=600)

    checkpoint = killed / CHECKPOINT
    mid_write = 0
    for kill in range(KILLS):
        before = checkpoint.stat().st_mtime_ns if checkpoint.exists() else None
        # every step writes a checkpoint, so most moments are inside a step or a write
        cmd = [*TRAIN, "--checkpoint-every", "1", "--out", str(killed), *(["--resume"] if kill else [])]
        proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 600
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
        [*TRAIN, "--out", str(killed), "--resume"], env=ENV, capture_output=True, text=True, timeout=600
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
    subprocess.run([*TRAIN, "--out", str(reference)], check=True, env=ENV, capture_output=True, timeout=600)
    checkpoint = stopped / CHECKPOINT
    # one checkpoint every 150 steps: a Ctrl-C between two of them would lose up to 149 steps
    proc = subprocess.Popen(
        [*TRAIN, "--out", str(stopped)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 600
    while not checkpoint.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)  # the first checkpoint (step 150): training is under way
    time.sleep(random.Random(1).uniform(0.05, 0.3))
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=600)[1]
    assert proc.returncode == 130, err
    said = re.search(r"interrupted after step (\d+) of 1500; checkpoint written at step \1 to ", err)
    assert said, err
    step = int(said.group(1))
    assert load_checkpoint(checkpoint)["step"] == step, (step, err)
    assert "continue with the same command and --resume" in err and "Traceback" not in err

    done = subprocess.run(
        [*TRAIN, "--out", str(stopped), "--resume"], env=ENV, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert f"resuming from step {step} of 1500" in done.stdout
    ours, theirs = load_checkpoint(stopped), load_checkpoint(reference)
    for name, value in theirs["model"].items():
        assert torch.equal(ours["model"][name], value), f"{name} differs from the uninterrupted run"
    loss = [json.loads((run / "history.json").read_text())["loss"] for run in (stopped, reference)]
    assert loss[0] == loss[1]


# A SIGTERM (a scheduler's, `kill`'s, Colab's) is handled as the first Ctrl-C


class Terminated(Exception):
    """What SIGTERM does to this test process where fit does not handle it (it would end pytest)."""


@pytest.fixture
def sigterm_is_fatal():
    def fatal(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, fatal)
    yield fatal
    signal.signal(signal.SIGTERM, previous)


def sigterm(at: int):
    """A callback that sends this process SIGTERM after step `at`."""

    def send(step, model, history):
        if step == at:
            os.kill(os.getpid(), signal.SIGTERM)

    return send


def test_a_sigterm_saves_the_step_it_is_at_and_resume_continues_bit_for_bit(tmp_path, sigterm_is_fatal):
    kw = dict(steps=20, batch_size=32, checkpoint_every=10, progress=False, seed=3)
    straight = tiny()
    h_straight = fit(straight, data(), out=tmp_path / "straight", **kw)
    with pytest.raises(
        Interrupted, match=r"stopped by SIGTERM after step 7 of 20; checkpoint written at step 7 to "
    ):
        fit(tiny(), data(), out=tmp_path / "run", callback=sigterm(7), **kw)
    assert signal.getsignal(signal.SIGTERM) is sigterm_is_fatal, "fit must give SIGTERM back as it found it"
    assert load_checkpoint(tmp_path / "run")["step"] == 7
    resumed = tiny()
    h_resumed = fit(resumed, data(), out=tmp_path / "run", resume=True, **kw)
    for name, value in straight.state_dict().items():
        assert torch.equal(resumed.state_dict()[name], value), f"{name} differs from the uninterrupted run"
    assert h_resumed.loss == h_straight.loss


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """`minivit train` with TRAIN's options, never interrupted."""
    out = tmp_path_factory.mktemp("reference") / "run"
    subprocess.run([*TRAIN, "--out", str(out)], check=True, env=ENV, capture_output=True, timeout=600)
    return out


def same_weights(run, reference) -> None:
    ours, theirs = load_checkpoint(run), load_checkpoint(reference)
    assert ours["step"] == theirs["step"]
    for name, value in theirs["model"].items():
        assert torch.equal(ours["model"][name], value), f"{name} differs from the uninterrupted run"


@pytest.mark.slow
def test_sigterm_on_the_command_line_saves_the_step_and_resume_ends_bit_for_bit(tmp_path, reference):
    stopped = tmp_path / "stopped"
    checkpoint = stopped / CHECKPOINT
    proc = subprocess.Popen(
        [*TRAIN, "--out", str(stopped)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 600
    while not checkpoint.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)  # the first checkpoint (step 150): training is under way
    time.sleep(random.Random(2).uniform(0.05, 0.3))
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=600)[1]
    assert proc.returncode == 143, err  # 128 + 15, as a shell reports a SIGTERM
    said = re.search(
        r"minivit: stopped by SIGTERM after step (\d+) of 1500; checkpoint written at step \1 to .*; "
        r"continue with the same command and --resume",
        err,
    )
    assert said and "Traceback" not in err, err
    step = int(said.group(1))
    assert load_checkpoint(checkpoint)["step"] == step
    assert not (stopped / "run.lock").exists(), "a stopped run gives its folder back"

    done = subprocess.run(
        [*TRAIN, "--out", str(stopped), "--resume"], env=ENV, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    same_weights(stopped, reference)


@pytest.mark.slow
def test_a_second_run_started_into_a_training_run_is_refused_and_the_first_loses_nothing(
    tmp_path, capsys, reference
):
    out = tmp_path / "run"
    first = subprocess.Popen(
        [*TRAIN, "--out", str(out)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 600
    while not (out / CHECKPOINT).exists() and first.poll() is None and time.time() < deadline:
        time.sleep(0.01)  # the first run is training
    for extra in (["--resume"], []):  # as the same run continued, and as a new one
        assert main([*TRAIN[3:], "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err
        assert re.search(rf"(is in use by another run \(pid {first.pid} on host|already holds a run)", err), (
            err
        )
    assert first.poll() is None, "the refused runs ended before the first did: nothing was tried"
    assert first.wait(timeout=600) == 0, first.stderr.read()
    same_weights(out, reference)


# A full disk: the write that fails leaves the last good file, says so in one line, and a resume
# once there is room ends where an uninterrupted run does

SMALL = (
    "train --task relation --train-size 64 --test-size 16 --dim 16 --depth 1 --batch-size 16 --steps 30 "
    "--checkpoint-every 10 --threads 1 --quiet"
).split()


def disk_full_at(monkeypatch, write: int) -> None:
    """The disk fills up at the `write`-th file a run writes (1: run.json, 2: the checkpoint at step
    10, 3: at step 20, 4: at step 30, 5: run.json with the metrics): the data never reaches the disk,
    so its fsync fails with ENOSPC, as on a disk that allocates when it writes back. The small
    checksum file written beside each checkpoint is not counted."""
    real, count = os.fsync, [0]

    def fsync(fd):
        if ".sha256." in os.readlink(f"/proc/self/fd/{fd}"):
            return real(fd)
        count[0] += 1
        if count[0] == write:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted") / "run"
    assert main([*SMALL, "--out", str(out)]) == 0
    return out


# (id, which write fails, what the one line says, the step of the checkpoint kept, then what to run)
FULL_DISK_CASES = [
    (
        "at-run-json",
        1,
        r"cannot write .*run.json \(No space left on device\); nothing was written; free some space on",
        None,
        [],  # nothing to resume: the same command again
    ),
    (
        "at-a-checkpoint",
        3,
        r"could not write the checkpoint at step 20 \(No space left on device\); the last good checkpoint "
        r"\(step 10\) is kept at .*checkpoint.pt; free some space on that disk, then continue with the same "
        r"command and --resume",
        10,
        ["--resume"],
    ),
    (
        "at-the-metrics",
        5,
        r"cannot write .*run.json \(No space left on device\); its previous version is kept; free some space",
        30,
        ["--resume"],
    ),
]


@pytest.mark.parametrize(
    ("write", "says", "kept", "then"), [c[1:] for c in FULL_DISK_CASES], ids=[c[0] for c in FULL_DISK_CASES]
)
def test_a_full_disk_keeps_the_last_good_checkpoint_and_loses_nothing(
    tmp_path, capsys, monkeypatch, uninterrupted, write, says, kept, then
):
    out = tmp_path / "run"
    disk_full_at(monkeypatch, write)
    assert main([*SMALL, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(says, err), err
    kept_files = ["checkpoint.pt", "checkpoint.pt.sha256", "run.json"]
    assert sorted(p.name for p in out.iterdir()) == (kept_files if kept else [])
    if kept:
        assert load_checkpoint(out)["step"] == kept
    monkeypatch.undo()  # room again
    assert main([*SMALL, "--out", str(out), *then]) == 0
    ours, theirs = load_checkpoint(out), load_checkpoint(uninterrupted)
    for name, value in theirs["model"].items():
        assert torch.equal(ours["model"][name], value), f"{name} differs from the uninterrupted run"
    history = [json.loads((run / "history.json").read_text()) for run in (out, uninterrupted)]
    assert history[0]["loss"] == history[1]["loss"]


# Two runs into one folder: the second is refused while the first lives; a dead run's lock is taken over

HOLD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("runsafety", sys.argv[1])
runsafety = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runsafety)
with runsafety.run_lock(sys.argv[2]):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_into_a_folder_in_use_is_refused_and_writes_nothing(tmp_path, capsys):
    import minivit.runsafety

    out = tmp_path / "run"
    holder = subprocess.Popen(  # another run, alive, that holds the folder (without importing torch)
        [sys.executable, "-c", HOLD, minivit.runsafety.__file__, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        lock = (out / "run.lock").read_bytes()
        for extra in ([], ["--resume"]):
            assert main([*SMALL, "--out", str(out), *extra]) == 2
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1, err
            assert re.search(
                rf"--out .*run is in use by another run \(pid {holder.pid} on host {socket.gethostname()}, "
                r"started [\d: -]+\); wait for it to end, or choose another --out",
                err,
            ), err
            assert [p.name for p in out.iterdir()] == ["run.lock"] and (out / "run.lock").read_bytes() == lock
        with pytest.raises(ValueError, match=rf"out .*run is in use by another run \(pid {holder.pid} "):
            fit(tiny(), data(), steps=2, out=out, progress=False)
        assert [p.name for p in out.iterdir()] == ["run.lock"]
    finally:
        holder.communicate("")  # that run ends
    assert not (out / "run.lock").exists()
    assert main([*SMALL, "--steps", "2", "--out", str(out)]) == 0  # the folder is free again


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def test_a_lock_left_by_a_dead_run_is_taken_over_and_said(tmp_path, capsys, uninterrupted):
    out = tmp_path / "run"
    out.mkdir()
    pid = dead_pid()
    (out / "run.lock").write_text(
        json.dumps({"pid": pid, "host": socket.gethostname(), "started": "earlier"})
    )
    assert main([*SMALL, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"took over the stale lock of a run no longer running (pid {pid} on host" in err, err
    assert not (out / "run.lock").exists()
    for name, value in load_checkpoint(uninterrupted)["model"].items():
        assert torch.equal(load_checkpoint(out)["model"][name], value), name


def test_a_lock_of_a_run_on_another_host_is_refused_with_the_file_to_delete(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.lock").write_text(json.dumps({"pid": 1, "host": "elsewhere", "started": "earlier"}))
    before = (out / "run.lock").read_bytes()
    assert main([*SMALL, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(
        r"--out .*run is locked by a run on another host \(pid 1 on host elsewhere, started earlier\), which "
        r"cannot be checked from here; if that run has ended, delete .*run.lock; else choose another --out",
        err,
    ), err
    assert [p.name for p in out.iterdir()] == ["run.lock"] and (out / "run.lock").read_bytes() == before


# A SIGTERM outside the training loop (before the first step, in the final evaluation) says what it
# kept, gives the folder back, and --resume finishes the run (d12)


@pytest.mark.parametrize("moment", ["before-the-first-step", "in-the-final-evaluation"])
def test_a_sigterm_outside_the_steps_is_said_and_resume_finishes(tmp_path, capsys, monkeypatch, moment):
    import minivit.cli.training as training

    out = tmp_path / "run"
    name = "fit_plan" if moment == "before-the-first-step" else "evaluate"
    real = getattr(training, name)

    def killed(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        return real(*args, **kwargs)

    def fatal(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, fatal)
    try:
        monkeypatch.setattr(training, name, killed)
        code = main([*SMALL, "--steps", "4", "--out", str(out)])
    except Terminated:
        code = None  # as the signal's default would have: stopped without a word
    finally:
        signal.signal(signal.SIGTERM, previous)
    monkeypatch.undo()
    err = capsys.readouterr().err.strip()
    says = (
        "stopped by SIGTERM before the first checkpoint; the same command with --resume starts from step 0"
        if moment == "before-the-first-step"
        else r"stopped by SIGTERM; the last good checkpoint \(step 4\) is kept at .*; continue with the same "
        "command and --resume"
    )
    assert code == 143 and re.search(says, err) and "Traceback" not in err, (code, err)
    assert not (out / "run.lock").exists(), "a stopped run gives its folder back"
    assert main([*SMALL, "--steps", "4", "--out", str(out), "--resume"]) == 0
    assert "metrics" in json.loads((out / "run.json").read_text())


# The environment variables torchrun sets, bad or missing, are named (f13, f14, f17, f22); a lone
# process started with WORLD_SIZE says what it waits for (f16)


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"WORLD_SIZE": "abc"}, r"WORLD_SIZE='abc' is not a whole number >= 1"),
        ({"WORLD_SIZE": "0"}, r"WORLD_SIZE='0' is not a whole number >= 1"),
        ({"WORLD_SIZE": "2"}, r"RANK is not set \(this process's number, 0 to 1"),
        ({"WORLD_SIZE": "2", "RANK": "2"}, r"RANK='2' is not a whole number >= 0 and < 2"),
        ({"WORLD_SIZE": "2", "RANK": "0", "LOCAL_RANK": "abc"}, r"LOCAL_RANK='abc' is not a whole number"),
        ({"WORLD_SIZE": "2", "RANK": "0"}, r"MASTER_ADDR and MASTER_PORT \(where they meet\) are not set"),
    ],
    ids=["world-abc", "world-0", "no-rank", "rank-past", "local-abc", "no-master"],
)
def test_bad_or_missing_torchrun_variables_are_named(tmp_path, capsys, monkeypatch, env, says):
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main([*SMALL, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(says, err), err
    assert not (tmp_path / "run").exists()


def test_a_lone_process_with_world_size_says_what_it_waits_for(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**ENV, "WORLD_SIZE": "2", "RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "minivit.cli", *SMALL, "--device", "cpu", "--out", str(tmp_path / "run")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = select.select([proc.stderr], [], [], 60)[0]  # said before it waits, not after torch's timeout
        line = proc.stderr.readline() if ready else "(nothing said in 60 s)"
    finally:
        proc.kill()
        proc.communicate()
    assert re.search(r"process 0 of 2 \(WORLD_SIZE=2\) waits at 127.0.0.1:\d+ for the other 1 to start", line)
