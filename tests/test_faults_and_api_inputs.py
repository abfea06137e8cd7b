"""What is left around a run and the Python API: a diverging run's advice in the options the user typed
(a clip the option takes, not None), a full disk at the lock file, free space said with the digits
that tell it from the need, a Ctrl-C at the command's exit, a lock no run holds; and the public
functions given a bad value, a request for more memory than the machine has, or a model that cannot
take the images, each refused in one line that names it and the fix; the experiments' --out checked
before anything trains."""

from __future__ import annotations

import errno
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

import minivit.runsafety as runsafety
from minivit.cli import main
from minivit.experiments import command_line
from minivit.folders import CHECKPOINT, check_writable
from minivit.train import TrainingDiverged, fit
from tests.cli_helpers import ENV, SMALL, one_line, run_cli
from tests.test_checkpoint import data, tiny

ROOT = Path(__file__).resolve().parents[1]


# A69, C08: a run without clipping (--grad-clip 0) that diverges is told a clip the option takes,
# in the command's options, in its warning and in its error


def test_a_diverging_run_without_clipping_is_told_a_clip_the_option_takes(tmp_path, capsys):
    argv = [*SMALL[:-6], "--steps", "20", "--dim", "16", "--batch-size", "16"]
    argv += ["--optimizer", "sgd", "--lr", "1000", "--grad-clip", "0", "--out", str(tmp_path / "run")]
    code, err = run_cli(argv, capsys)
    warning, error = err.splitlines()
    assert code == 2 and "Traceback" not in err
    advice = r"lower the learning rate \(--lr 1000.0\) or clip gradients \(--grad-clip 1.0\)$"
    assert re.search(r"^minivit: warning: runaway loss: .*" + advice, warning), warning
    assert re.search(r"^minivit: error: loss became nan at step \d+; .*" + advice, error), error
    assert "None" not in err and "lr=" not in err and "grad_clip" not in err


def test_fit_without_clipping_is_told_a_clip_it_takes():
    def blow_up(step, model, history):
        with torch.no_grad():
            model.head.weight.fill_(float("nan"))

    with pytest.raises(TrainingDiverged, match=r"clip gradients \(grad_clip=1.0\)"):
        fit(tiny(), data(64), steps=4, batch_size=16, grad_clip=None, callback=blow_up, progress=False)


def test_a_run_that_clips_already_is_told_a_harder_clip_not_its_own():
    def blow_up(step, model, history):
        with torch.no_grad():
            model.head.weight.fill_(float("nan"))

    with pytest.raises(TrainingDiverged, match=r"clip harder \(grad_clip=0.25; it clips at 0.5\)$"):
        fit(tiny(), data(64), steps=4, batch_size=16, grad_clip=0.5, callback=blow_up, progress=False)


# C04: the disk fills before the lock file is written: one line, and no empty run.lock left


def test_a_full_disk_at_the_lock_file_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runsafety.os, "pwrite", full)
    out = tmp_path / "run"
    one_line(
        *run_cli([*SMALL, "--out", str(out)], capsys),
        r"cannot lock .*run.lock \(No space left on device\); free some space on that disk, or choose "
        r"another --out$",
    )
    assert not out.exists()
    out.mkdir()
    with pytest.raises(
        ValueError, match=r"cannot lock .*run.lock \(No space left on device\); free some .*another out$"
    ):
        fit(tiny(), data(64), steps=2, batch_size=16, out=out, progress=False)
    assert list(out.iterdir()) == []


# C12: free space and need are said with the digits that tell them apart


def test_free_space_and_need_are_said_with_the_digits_that_tell_them_apart(tmp_path, monkeypatch):
    import minivit.folders as folders

    (tmp_path / CHECKPOINT).write_bytes(b"\0" * 230_000)
    monkeypatch.setattr(folders.shutil, "disk_usage", lambda path: SimpleNamespace(free=160_000))
    with pytest.raises(ValueError, match=r"has 0.16 MB free, less than the 0.23 MB a second checkpoint"):
        check_writable(tmp_path, model_bytes=10**5)


# D04: a second Ctrl-C while the command exits (torch's exit handlers running) prints no traceback

SECOND_CTRL_C_AT_EXIT = """
import atexit, os, signal, sys, time
def second_ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)
atexit.register(second_ctrl_c)  # runs after those registered later (torch's), as the process ends
from minivit.cli import main
sys.exit(main())
"""


def test_a_ctrl_c_while_the_command_exits_prints_no_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SECOND_CTRL_C_AT_EXIT, *SMALL, "--out", str(tmp_path / "run")],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr


# D09: a lock file whose flock no one holds is stale, whatever process now has its pid


def test_a_lock_no_run_holds_is_taken_over_though_its_pid_lives(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    alive = os.getppid()  # a live process of this host that is not a run of minivit
    (out / "run.lock").write_text(
        f'{{"pid": {alive}, "host": "{socket.gethostname()}", "started": "earlier"}}'
    )
    assert main([*SMALL, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"took over the stale lock of a run no longer running (pid {alive} on host" in err, err
    assert not (out / "run.lock").exists() and (out / CHECKPOINT).exists()


def test_where_the_disk_cannot_lock_a_live_pid_is_refused_with_the_file_to_delete(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(runsafety, "_flock", lambda fd: None)
    out = tmp_path / "run"
    out.mkdir()
    alive = os.getppid()
    (out / "run.lock").write_text(
        f'{{"pid": {alive}, "host": "{socket.gethostname()}", "started": "earlier"}}'
    )
    one_line(
        *run_cli([*SMALL, "--out", str(out)], capsys),
        rf"is in use by another run \(pid {alive} on host .*\); wait for it to end, or choose another --out; "
        r"if that run has ended, delete .*run.lock$",
    )


# E31, E37, E38, E39, E41: the public functions refuse a bad value in one line that names it


def _claim(value, bound=0):
    from minivit import lesson

    return lesson.claim("x", value, ">", bound)


def _odd_one_out(n):
    from minivit.data import odd_one_out

    return odd_one_out(n)


def _parse(text):
    from minivit.data.lst.files import parse_puzzles

    return parse_puzzles(text)


def _resample(new_grid):
    from minivit.posenc.learned import resample

    return resample(torch.rand(36, 8), (6, 6), new_grid)


def _fit(model):
    from minivit.data import odd_one_out

    return fit(model, odd_one_out(16), steps=2, batch_size=8, progress=False)


API_CASES = [
    ("claim-label-not-a-number", lambda: _claim({"a": 1.0, "b": "high"}), ValueError,
     r"claim 'x': the value at 'b' is 'high', not a number; pass a number"),
    ("claim-item-not-a-number", lambda: _claim([1.0, None]), ValueError,
     r"claim 'x': the value at 1 is None"),
    ("claim-bound-not-a-number", lambda: _claim(1.0, "high"), ValueError, r"claim 'x': the bound is 'high'"),
    ("generator-beyond-memory", lambda: _odd_one_out(10**12), ValueError,
     r"odd_one_out\(n=1000000000000, image_size=24\) needs about [\d,.]+ GB of memory, more than the .* has "
     r"free; pass a smaller n or image_size"),
    ("puzzles-none", lambda: _parse(None), TypeError,
     r"parse_puzzles takes text or lines of text, got NoneType"),
    ("puzzles-int", lambda: _parse(12), TypeError, r"parse_puzzles takes text or lines of text, got int"),
    ("puzzles-line-int", lambda: _parse([12]), TypeError, r"line 1 is int, not text"),
    ("resample-beyond-memory", lambda: _resample((10**6, 10**6)), ValueError,
     r"resample to new_grid=\(1000000, 1000000\) needs about [\d,.]+ GB of memory, .*a smaller new_grid"),
    ("fit-a-linear-layer", lambda: _fit(torch.nn.Linear(4, 2)), ValueError,
     r"the model \(Linear\) cannot take the training images \(3, 24, 24\) \(RuntimeError: mat1 and "
     r"mat2 .*\); pass a model that maps images \[B, C, H, W\] to class scores"),
    ("fit-too-few-scores", lambda: _fit(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(1728, 4))),
     ValueError, r"the model \(Sequential\) gives 4 scores an image, but the training labels run to \d"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "says"), [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_a_public_function_refuses_a_bad_value_in_one_line(monkeypatch, call, error, says):
    monkeypatch.delenv("MINIVIT_CLAIMS", raising=False)
    with pytest.raises(error, match=says) as caught:
        call()
    assert len(str(caught.value).splitlines()) == 1


def test_a_model_that_is_not_minivit_s_still_trains():
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(1728, 9))
    assert len(_fit(model).loss) == 2 and model.training


# I20: python -m minivit.lesson repoint with a name that is not OWNER/NAME


def test_repoint_refuses_a_name_in_one_line_and_writes_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "minivit.lesson", "repoint", "not a repo"],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    err = done.stderr.strip()
    assert done.returncode == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "repository 'not a repo' is not OWNER/NAME (e.g. " in err and done.stdout == ""


# I06 for every experiment: init_scale --fresh and the capstone check --out before they train


def _read_only(monkeypatch):
    real = Path.write_bytes

    def refuse(self, data):
        if self.name.startswith(".write-test-"):
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", refuse)


def _trained(*args, **kwargs):
    raise AssertionError("trained before --out was checked")


@pytest.mark.parametrize("where", ["a-folder", "read-only"])
@pytest.mark.parametrize("experiment", ["init_scale-fresh", "capstone", "capstone-seeds"])
def test_an_experiment_s_out_is_checked_before_it_trains(tmp_path, capsys, monkeypatch, experiment, where):
    import minivit.experiments.capstone as capstone
    import minivit.experiments.init_scale.command as init_scale

    out = tmp_path / "result.json"
    if where == "a-folder":
        out.mkdir()
        says = rf"--out {out} is a folder; name the result's file"
    else:
        _read_only(monkeypatch)
        says = r"cannot write --out .*result.json \(Read-only file system in .*\); nothing was trained"
    if experiment == "init_scale-fresh":
        monkeypatch.setattr(init_scale, "sweep", _trained)
        argv = ["--setting", "reference-64", "--quiet", "--steps", "2", "--seeds", "1", "--sigmas", "0.1"]
        module, argv = init_scale, [*argv, "--no-sinusoid", "--fresh", "--out", str(out)]
    else:
        monkeypatch.setattr(capstone, "run", _trained)
        seeds = ["--seeds", "0", "1"] if experiment == "capstone-seeds" else []
        module, argv = capstone, ["--setting", "stand-in", "--encodings", "none", *seeds, "--out", str(out)]
    with pytest.raises(SystemExit) as exit_:
        command_line(lambda: module.main(argv), module.__name__)
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and "Traceback" not in err and re.search(says, err.splitlines()[-1]), err
    assert out.is_dir() if where == "a-folder" else not out.exists()
