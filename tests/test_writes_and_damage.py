"""Nothing silently wrong, nothing lost, around the command: a write that fails part-way (a disk that
fills during a checkpoint, a file-size limit, a name too long, a folder in the way, a reader that
goes away) ends in one line with the last good file kept and no partial one; damaged state (a
checkpoint's bytes changed, NaN outputs, an edited run.json, a damaged sweep or recorded result) is
named, not used; a run going wrong says so; the experiment commands check their options before any
work; and the command's messages speak its own options."""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from minivit.checkpoint import check_writable, checksum_file, record_checksum
from minivit.cli import main
from minivit.experiments import command_line, read_result, recorded, write_result
from minivit.runsafety import SaveFailed, write_atomic, write_json
from minivit.train import CHECKPOINT, fit, load_checkpoint, load_model, save_checkpoint
from tests.cli_helpers import BASE, ENV, SMALL, one_line, run_cli
from tests.test_checkpoint import data, tiny


def files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("trained") / "run"
    assert main([*SMALL, "--out", str(out)]) == 0
    return out


@pytest.fixture
def copy(run, tmp_path):
    return shutil.copytree(run, tmp_path / "copy")


# 1. A write that fails part-way ends in one line and loses nothing


def torch_save_fails_midway(code, reason):
    """torch.save as it fails on a disk that fills (or a file-size limit) part-way: some bytes
    written, the OSError, then torch's zip writer's own RuntimeError while it closes."""

    def save(obj, f, *args, **kwargs):
        f.write(b"part of a checkpoint")
        try:
            raise OSError(code, reason)
        except OSError:  # raised while handling it, as torch's is: the OSError is its context
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 474176 vs 474068")  # noqa: B904

    return save


@pytest.mark.parametrize(
    ("code", "reason", "advice"),
    [
        (errno.ENOSPC, "No space left on device", "free some space on that disk"),
        (
            errno.EFBIG,
            "File too large",
            r"the file is larger than this shell's file-size limit \(ulimit -f\)",
        ),
    ],
    ids=["disk-fills-mid-write", "file-size-limit"],
)
def test_a_checkpoint_write_that_fails_part_way_keeps_the_last_good_one(
    tmp_path, monkeypatch, code, reason, advice
):
    path = tmp_path / CHECKPOINT
    save_checkpoint({"step": 1, "w": torch.ones(3)}, path)
    before = files(tmp_path)
    monkeypatch.setattr(torch, "save", torch_save_fails_midway(code, reason))
    with pytest.raises(
        SaveFailed,
        match=rf"cannot write .*checkpoint.pt \({reason}\); its previous version is kept; {advice}",
    ):
        save_checkpoint({"step": 2, "w": torch.zeros(3)}, path)
    monkeypatch.undo()
    assert files(tmp_path) == before, "the last good checkpoint and its checksum, and no partial file"
    assert load_checkpoint(path)["step"] == 1


def test_a_disk_that_fills_during_a_run_stops_it_in_one_line_with_the_last_checkpoint(tmp_path, monkeypatch):
    real = torch.save
    calls = []

    def save(obj, f, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # the second checkpoint of the run
            return torch_save_fails_midway(errno.ENOSPC, "No space left on device")(obj, f)
        return real(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", save)
    with pytest.raises(
        SaveFailed,
        match=r"could not write the checkpoint at step 4 \(No space left on device\); the last good "
        r"checkpoint \(step 2\) is kept at .*; free some space on that disk, then continue with resume=True",
    ):
        fit(tiny(), data(), steps=10, checkpoint_every=2, out=tmp_path, progress=False)
    monkeypatch.undo()
    assert load_checkpoint(tmp_path)["step"] == 2
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_file_size_limit_below_the_checkpoint_ends_the_command_in_one_line(tmp_path):
    """`ulimit -f` below the checkpoint's size (f09): torch's RuntimeError after the OSError was a
    traceback."""
    out = tmp_path / "run"
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))\n"
        "from minivit.cli import main\n"
        f"sys.exit(main({[*SMALL[:-2], '--dim', '64', '--batch-size', '16', '--out', str(out)]!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=300)
    err = done.stderr.strip()
    one_line(done.returncode, err, "file-size limit (ulimit -f); raise it (ulimit -f unlimited)")
    assert "could not write the checkpoint at step" in err
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp") or p.name == "run.lock"]


def test_a_folder_in_the_way_of_a_file_is_named(tmp_path):
    (tmp_path / "run.json").mkdir()
    with pytest.raises(
        SaveFailed, match=r"cannot write .*run.json \(.*\); nothing was written; a folder .* in the way"
    ):
        write_json(tmp_path / "run.json", {"a": 1})
    assert (tmp_path / "run.json").is_dir()


def test_any_failure_of_a_write_removes_the_partial_file(tmp_path):
    (tmp_path / "result.json").write_text("{}")

    def half(f):
        f.write(b'{"half": ')
        raise TypeError("Object of type Tensor is not JSON serializable")

    with pytest.raises(
        SaveFailed, match=r"\(TypeError: Object of type Tensor .*\); its previous version is kept"
    ):
        write_atomic(tmp_path / "result.json", half)
    assert files(tmp_path) == {"result.json": b"{}"}


def test_a_recorded_result_written_where_a_folder_is_is_refused_and_nothing_lost(tmp_path):
    write_result({"runs": [1]}, tmp_path / "sweep.json")
    with pytest.raises(SaveFailed):
        write_result({"runs": [1, 2]}, tmp_path / "sweep.json" / "x")  # under a file
    assert read_result(tmp_path / "sweep.json") == {"runs": [1]}


@pytest.mark.parametrize("what", ["name", "path"])
def test_an_out_too_long_for_the_file_system_is_one_line(tmp_path, capsys, what):
    out = tmp_path / ("x" * 300) if what == "name" else tmp_path.joinpath(*["d" * 220] * 20)
    code, err = run_cli([*SMALL, "--out", str(out)], capsys)
    one_line(code, err, "File name too long; use a shorter folder name")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_where_the_lock_goes_is_one_line(tmp_path, capsys):
    (tmp_path / "run" / "run.lock").mkdir(parents=True)
    code, err = run_cli([*SMALL, "--out", str(tmp_path / "run")], capsys)
    one_line(code, err, r"run.lock is a folder, where the run keeps a file; move that folder away")
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["run.lock"]


def test_a_folder_where_the_checkpoint_goes_is_named_by_resume_and_eval(copy, capsys):
    (copy / CHECKPOINT).unlink()
    (copy / CHECKPOINT).mkdir()
    before = files_and_folders(copy)
    code, err = run_cli([*SMALL, "--out", str(copy), "--resume"], capsys)
    one_line(code, err, "checkpoint.pt is a folder, where the run keeps a file; move that folder away")
    code, err = run_cli(["eval", str(copy)], capsys)
    one_line(
        code, err, "checkpoint.pt is a folder, where a run keeps its checkpoint file; move that folder away"
    )
    assert "checkpoint.pt/checkpoint.pt" not in err
    assert files_and_folders(copy) == before


def files_and_folders(folder):
    return sorted((p.name, p.is_dir()) for p in folder.iterdir())


def test_output_piped_into_head_does_not_stop_or_break_the_run(tmp_path):
    """`minivit train ... | head -1` (p01): the reader goes after one line; the run goes on to the end
    and writes everything, with no BrokenPipeError."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "minivit.cli", *SMALL, "--out", str(out), "--resume"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err
    assert "BrokenPipe" not in err and "Traceback" not in err, err
    assert "metrics" in json.loads((out / "run.json").read_text())


# 2. Damaged state is detected, not used


def flip_bytes(path, every=997, start=None):
    data = bytearray(path.read_bytes())
    for i in range(start or len(data) // 3, len(data) * 2 // 3, every):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_checkpoint_whose_bytes_changed_is_refused_by_eval_and_resume(copy, capsys):
    """Bit rot that leaves finite weights (k03): torch does not check its zip's CRCs, so without the
    checksum eval scored the damaged model and --resume of the finished run overwrote its metrics."""
    flip_bytes(copy / CHECKPOINT)
    before = files(copy)
    says = "does not match the checksum recorded beside it in checkpoint.pt.sha256"
    one_line(*run_cli(["eval", str(copy)], capsys), says)
    one_line(*run_cli([*SMALL, "--out", str(copy), "--resume"], capsys), says)
    assert files(copy) == before, "run.json's metrics and history must not be replaced"
    with pytest.raises(ValueError, match=says):
        load_model(copy)


def test_the_checksum_is_sha256sums_own_format(run):
    line = checksum_file(run / CHECKPOINT).read_text()
    done = subprocess.run(
        ["sha256sum", "-c", checksum_file(run / CHECKPOINT).name], cwd=run, capture_output=True
    )
    assert line.endswith(f"  {CHECKPOINT}\n") and done.returncode == 0, done


@pytest.mark.parametrize("stop", ["before-the-rename", "after-the-rename"])
def test_a_kill_between_the_checkpoint_and_its_checksum_leaves_a_pair_that_loads(tmp_path, monkeypatch, stop):
    path = tmp_path / CHECKPOINT
    save_checkpoint({"step": 1}, path)
    import minivit.checkpoint as ck

    real = ck.write_atomic
    if stop == "before-the-rename":
        monkeypatch.setattr(os, "replace", _killed_at(os.replace, lambda dst: dst == path))
    else:
        calls = []

        def write(target, *args, **kwargs):
            calls.append(target)
            if len(calls) == 3:  # the checkpoint, its checksums (both), then the old one dropped: stop there
                raise KeyboardInterrupt
            return real(target, *args, **kwargs)

        monkeypatch.setattr(ck, "write_atomic", write)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint({"step": 2}, path)
    monkeypatch.undo()
    assert load_checkpoint(path)["step"] == (1 if stop == "before-the-rename" else 2)
    save_checkpoint({"step": 3}, path)  # and the next save goes on as usual
    assert load_checkpoint(path)["step"] == 3 and len(checksum_file(path).read_text().splitlines()) == 1


def _killed_at(real, when):
    def replace(src, dst, *args, **kwargs):
        if when(Path(dst)):
            raise KeyboardInterrupt
        return real(src, dst, *args, **kwargs)

    return replace


def test_a_checkpoint_without_a_checksum_still_loads(run, tmp_path):
    """A checkpoint copied without its .sha256 (or written before checksums were) is read as before."""
    shutil.copy(run / CHECKPOINT, tmp_path / CHECKPOINT)
    assert load_checkpoint(tmp_path)["step"] == 2


def test_eval_of_a_model_whose_outputs_are_nan_says_so(copy, capsys):
    """A diverged run's kept checkpoint (k04): argmax of NaN is class 0, reported as an accuracy."""
    state = torch.load(copy / CHECKPOINT, weights_only=True)
    for value in state["model"].values():
        if value.is_floating_point():
            value.fill_(1e30)
    torch.save(state, copy / CHECKPOINT)
    record_checksum(copy / CHECKPOINT)
    code, err = run_cli(["eval", str(copy)], capsys)
    one_line(code, err, r"gives NaN or inf outputs \(16 of 16 images\), so there is no accuracy to report")


def edit_run(folder, **changes):
    saved = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**saved, **changes}))


def test_eval_refuses_a_run_json_edited_to_another_task(copy, capsys):
    edit_run(copy, task="where")  # 9 classes; the checkpoint's model has 4
    one_line(
        *run_cli(["eval", str(copy)], capsys),
        r"says task='where' \(9 classes, 3 channel\(s\)\), but its checkpoint's",
    )


def test_eval_refuses_a_run_json_edited_to_an_absurd_test_size_before_making_it(copy, capsys, monkeypatch):
    edit_run(copy, test_size=10**12)

    def made(*args, **kwargs):
        raise AssertionError("the test set was made before the size was checked")

    monkeypatch.setattr("minivit.cli.runs.load_task", made)
    code, err = run_cli(["eval", str(copy)], capsys)
    one_line(
        code, err, r"its test_size=1000000000000 in run.json is more than this machine can test \(edited\?\)"
    )


def test_a_damaged_sweep_file_is_named_with_the_remedy(tmp_path, capsys):
    from minivit.experiments.network import main as network

    bad = tmp_path / "bad.json"
    bad.write_text('{"setting": {"modules": 4,')
    argv = ["--seeds", "1", "--steps", "2", "--threads", "1", "--quiet", "--out", str(bad)]
    with pytest.raises(SystemExit) as exit_:  # the command's own one-line error
        command_line(lambda: network(argv), "network")
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_.value.code == 2 and f"{bad} is not a result's JSON" in err
    assert "damaged or cut short; give another --out, or move it away" in err
    assert bad.read_text() == '{"setting": {"modules": 4,'


def test_a_damaged_recorded_result_names_the_file_and_how_to_restore_it(tmp_path, monkeypatch):
    import minivit.experiments as experiments

    (tmp_path / "recorded").mkdir()
    (tmp_path / "recorded" / "cut.json").write_text('{"summary": {"a": 1}, "runs": [')
    (tmp_path / "recorded" / "edited.json").write_text('{"summary": {"a": 1}}')
    monkeypatch.setattr(experiments.resources, "files", lambda package: tmp_path)
    with pytest.raises(
        ValueError,
        match=r"the recorded result .*cut.json is not valid JSON .*: damaged or edited; restore it "
        r"\(git checkout -- minivit/experiments/recorded/cut.json",
    ):
        recorded("cut.json")
    sweep = recorded("edited.json")
    assert sweep["summary"]["a"] == 1 and json.loads(json.dumps(sweep)) == {"summary": {"a": 1}}
    with pytest.raises(
        KeyError,
        match=r"'runs' is not in the recorded result edited.json \(it holds summary\): the file was edited",
    ):
        sweep["runs"]
    with pytest.raises(KeyError, match=r"'b' is not in the recorded result edited.json"):
        sweep["summary"]["b"]


# 3. A run that is going wrong says so


def test_a_runaway_loss_warns_once_and_is_recorded(tmp_path, capsys):
    """A loss many times its start, still finite (c24: SGD at lr 1000 reached 4e10 and exited 0)."""

    def blow_up(step, model, history):
        if step in (2, 3):
            with torch.no_grad():
                model.head.weight.mul_(1e6)

    history = fit(tiny(), data(), steps=6, batch_size=32, grad_clip=None, callback=blow_up, progress=False)
    assert max(history.loss) > 100 * history.loss[0] and all(math.isfinite(v) for v in history.loss)
    assert len(history.warnings) == 1 and "runaway loss" in history.warnings[0]
    assert capsys.readouterr().err.count("runaway loss") == 1


def test_the_command_records_a_runaway_loss_in_run_json(tmp_path, capsys):
    out = tmp_path / "run"
    argv = [
        "train",
        "--task",
        "relation",
        "--position",
        "sincos2d",
        "--patch-size",
        "8",
        "--steps",
        "5",
        "--train-size",
        "64",
        "--test-size",
        "32",
        "--batch-size",
        "16",
        "--threads",
        "1",
        "--quiet",
        "--optimizer",
        "sgd",
        "--lr",
        "1000",
        "--out",
        str(out),
    ]  # fmt: skip  (the report's c24)
    code = main(argv)
    err = capsys.readouterr().err
    metrics = json.loads((out / "run.json").read_text())["metrics"]
    assert code == 0 and err.count("runaway loss") == 1
    assert len(metrics["warnings"]) == 1 and "runaway loss" in metrics["warnings"][0]


def test_fit_refuses_a_run_that_could_never_end_and_seeds_torch_cannot_tell_apart():
    with pytest.raises(ValueError, match=r"steps=1000000000 is above 100000000"):
        fit(tiny(), data(), steps=10**9)
    with pytest.raises(ValueError, match=r"seed=4294967296 is above 4294967295"):
        fit(tiny(), data(), steps=1, seed=2**32)


# 4. Checked before any work


def test_an_out_that_is_a_file_is_refused_before_the_data_is_made(tmp_path, capsys, monkeypatch):
    """f06: the folder check came after load_task (34.8 s for 60,000 images, a download first)."""
    (tmp_path / "afile.txt").write_text("mine")

    def made(*args, **kwargs):
        raise AssertionError("the data was made before --out was checked")

    monkeypatch.setattr("minivit.cli.training.load_task", made)
    code, err = run_cli([*SMALL, "--out", str(tmp_path / "afile.txt")], capsys)
    one_line(code, err, "cannot write to --out")
    assert (tmp_path / "afile.txt").read_text() == "mine"


def test_the_folder_check_leaves_no_folder_when_a_later_check_refuses(tmp_path, capsys, monkeypatch):
    def unavailable(*args, **kwargs):
        raise ValueError("no data here")

    monkeypatch.setattr("minivit.cli.training.load_task", unavailable)
    code, err = run_cli([*SMALL, "--out", str(tmp_path / "a" / "b" / "run")], capsys)
    one_line(code, err, "no data here")
    assert list(tmp_path.iterdir()) == []


def test_resume_counts_the_checkpoint_there_once_at_its_real_size(copy, monkeypatch):
    """f08: a run that fit on its disk could not be resumed there after the space it had was freed."""
    size = (copy / CHECKPOINT).stat().st_size
    usage = shutil.disk_usage(copy)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=int(1.2 * size)))
    check_writable(copy, model_bytes=2 * size)  # room for one more checkpoint of its real size
    fresh = copy.parent / "fresh"
    with pytest.raises(ValueError, match=r"less than the [\d.]+ MB two checkpoints of this model need"):
        check_writable(fresh, model_bytes=size)
    assert not fresh.exists()
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=int(0.5 * size)))
    with pytest.raises(ValueError, match=r"a second checkpoint of this model \(as large as the one there\)"):
        check_writable(copy, model_bytes=size)


def experiment(module, argv, capsys):
    import importlib

    main_ = importlib.import_module(module).main
    code = command_line(lambda: main_(argv), module)
    return code, capsys.readouterr().err.strip()


@pytest.mark.parametrize(
    ("module", "argv", "says"),
    [
        ("minivit.experiments.network", ["--threads", "0"], r"--threads=0 is below 1"),
        ("minivit.experiments.network", ["--steps", "0"], r"--steps=0 is below 1"),
        ("minivit.experiments.network", ["--device", "tpu"], r"--device='tpu' is not a device"),
        ("minivit.experiments.network", ["--sigmas", "nan"], r"--sigmas=nan is out of range"),
        ("minivit.experiments.network", ["--seeds", "0"], r"--seeds=0 is below 1"),
        ("minivit.experiments.init_scale.command", ["--sigmas", "-1"], r"--sigmas=-1.0 is out of range"),
        ("minivit.experiments.init_scale.command", ["--lr", "0"], r"--lr=0.0 is out of range"),
        ("minivit.experiments.resolution", ["--seeds", "-1"], r"--seeds=-1 is below 1"),
        ("minivit.experiments.resolution", ["--threads", "100000"], r"--threads=100000 is above"),
        ("minivit.experiments.capstone", ["--seeds", "-3"], r"--seeds=-3 is below 0"),
    ],
    ids=[
        "network-threads-0",
        "network-steps-0",
        "network-device",
        "network-sigma-nan",
        "network-seeds-0",
        "init-scale-sigma-negative",
        "init-scale-lr-0",
        "resolution-seeds-negative",
        "resolution-threads",
        "capstone-seed-negative",
    ],  # fmt: skip
)
def test_the_experiment_commands_check_their_options_before_any_work(tmp_path, capsys, module, argv, says):
    out = tmp_path / "result.json"
    with pytest.raises(SystemExit) as exit_:
        experiment(module, [*argv, "--out", str(out)], capsys)
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and "Traceback" not in err, err
    assert re.search(says, err.splitlines()[-1]), err
    assert list(tmp_path.iterdir()) == [], "a refused sweep writes nothing"


# 6. Messages in the words the user typed


def test_resume_with_another_position_names_the_option(copy, capsys):
    before = files(copy)
    code, err = run_cli([*SMALL, "--position", "sincos2d", "--out", str(copy), "--resume"], capsys)
    one_line(
        code,
        err,
        r"trained with another model \(--position 'learned' then, 'sincos2d' now\); pass the run's own",
    )
    assert "load_model" not in err and "from_dict" not in err
    assert files(copy) == before


def test_eval_of_a_latin_square_run_at_another_size_names_eval_s_option(tmp_path, capsys):
    out = tmp_path / "lst"
    argv = ["train", "--task", "lst", "--train-size", "32", "--test-size", "8", "--steps", "1",
            "--dim", "16", "--patch-size", "1", "--batch-size", "8", "--threads", "1", "--quiet",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    code, err = run_cli(["eval", str(out), "--resolutions", "4", "8"], capsys)
    one_line(code, err, r"fixed 4x4 grid of cells; test at its own size \(leave out --resolutions\)")
    assert "--image-size" not in err


def test_mnist_without_a_network_is_one_line_in_the_command_s_words(tmp_path, capsys, monkeypatch):
    """m03: torchvision's six lines, advice in Python names, and empty folders left behind."""
    from torchvision import datasets

    class MNIST:  # torchvision's, on a machine with no network
        def __init__(self, root, train=True, download=False, **kwargs):
            if download:
                os.makedirs(os.path.join(root, "MNIST", "raw"), exist_ok=True)
                raise RuntimeError(
                    "Error downloading train-images-idx3-ubyte.gz:\nTried https://example.org/, got:\n"
                    "<urlopen error [Errno -3] Temporary failure in name resolution>\n"
                )
            raise RuntimeError("Dataset not found. You can use download=True to download it")

    monkeypatch.setattr(datasets, "MNIST", MNIST)
    root = tmp_path / "nodata"
    code, err = run_cli(
        [*SMALL, "--task", "mnist", "--data-root", str(root), "--out", str(tmp_path / "run")], capsys
    )
    one_line(
        code,
        err,
        r"could not be downloaded \(<urlopen error \[Errno -3\] Temporary failure in name resolution>\)",
    )
    assert "--task mnist-offline" in err and "--task digits" in err and "minivit.data." not in err
    assert not root.exists() and not (tmp_path / "run").exists()


def test_a_diverged_run_s_advice_names_the_command_s_options(tmp_path, capsys):
    """c03: "lower the learning rate (lr=...) or clip harder (grad_clip=...)" to a command-line user,
    with a clip the run does not have yet (it clips at 1.0, the default)."""
    code, err = run_cli(
        [*BASE, "--steps", "5", "--lr", "1e10", "--dim", "16", "--out", str(tmp_path / "run")], capsys
    )
    one_line(
        code,
        err,
        r"lower the learning rate \(--lr 10000000000.0\) or clip harder \(--grad-clip 0.5; it clips at 1\)",
    )


def test_resume_with_another_training_set_names_the_option_then_and_now(copy, capsys):
    """r04: "train_size differ from the saved run", in the Python name and without the values."""
    code, err = run_cli([*SMALL[:4], "128", *SMALL[5:], "--out", str(copy), "--resume"], capsys)
    one_line(
        code, err, r"it was trained with other data \(--train-size 64 then, 128 now\); pass the run's own"
    )


# 5. Nothing a user trained is lost: a batch larger than the set resumes, and no run writes over a
# checkpoint, history or run it did not start unless asked (--resume, resume=True)


def small(n=64, seed=0):
    return data(n, seed)


@pytest.mark.parametrize("stop", ["stop_at", "raising-callback"])
def test_a_batch_larger_than_the_training_set_resumes_bit_for_bit(tmp_path, stop):
    """fit's default batch of 128 on 64 examples takes the whole set each step: its batch cursor
    stands past the set's size, which resume used to call damage (e40, e51)."""
    kw = dict(steps=12, checkpoint_every=3, progress=False)
    straight = tiny()
    h_straight = fit(straight, small(), **kw)

    def bug(step, model, history):
        if step == 7:
            raise RuntimeError("a learner's bug")

    if stop == "stop_at":
        fit(tiny(), small(), out=tmp_path, stop_at=6, **kw)
    else:
        with pytest.raises(RuntimeError, match="a learner's bug"):
            fit(tiny(), small(), out=tmp_path, callback=bug, **kw)
    resumed = tiny()
    h_resumed = fit(resumed, small(), out=tmp_path, resume=True, **kw)
    assert h_resumed.loss == h_straight.loss
    for name, value in straight.state_dict().items():
        assert torch.equal(resumed.state_dict()[name], value), name


def test_the_command_resumes_a_run_whose_batch_is_larger_than_its_training_set(tmp_path, capsys):
    """--batch-size 300 --train-size 256 (d16): accepted, as fit accepts it (each step then trains on
    the whole set), so its checkpoints must resume."""
    argv = [*BASE, "--steps", "2", "--dim", "16", "--batch-size", "100", "--out", str(tmp_path / "run")]
    assert main(argv) == 0
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 0, capsys.readouterr().err
    assert "resuming from step 2 of 2" in capsys.readouterr().out


def test_fit_refuses_a_folder_holding_a_checkpoint_unless_asked_to_resume(run, tmp_path):
    """fit(out=) into a finished run's folder, or its own earlier one, used to train from scratch over
    the checkpoint (e50)."""
    first = tmp_path / "first"
    fit(tiny(), data(), steps=2, out=first, progress=False)
    for folder in (shutil.copytree(run, tmp_path / "cli"), first):
        before = files(folder)
        with pytest.raises(
            ValueError, match=r"already holds a checkpoint \(checkpoint.pt\); pass resume=True"
        ):
            fit(tiny(), data(), steps=2, out=folder, progress=False)
        assert files(folder) == before


@pytest.mark.parametrize(
    ("leave", "extra", "says"),
    [
        ("fit's checkpoint", [], r"already holds a checkpoint \(checkpoint.pt, no run.json\); pass --resume"),
        ("another's history", [], r"holds a history.json that no run of minivit left there"),
        ("another's history", ["--resume"], r"holds a history.json that no run of minivit left there"),
    ],
)
def test_train_refuses_a_folder_holding_what_it_did_not_start(tmp_path, capsys, leave, extra, says):
    """b71, b72: a checkpoint fit(out=) left, or a file named history.json, was overwritten."""
    out = tmp_path / "run"
    if leave == "fit's checkpoint":
        fit(tiny(), data(), steps=2, out=out, progress=False)
    else:
        out.mkdir()
        (out / "history.json").write_text('{"my": "browser history export"}')
    before = files(out)
    one_line(*run_cli([*SMALL, "--out", str(out), *extra], capsys), says)
    assert files(out) == before


# 6. The right culprit: a damaged checksum file, permissions, a pipe, run.json in the way


@pytest.mark.parametrize(("content", "damage"), [(b"garbage\n", "holds no SHA-256"), (b"", "is empty")])
def test_a_damaged_checksum_file_is_named_not_the_checkpoint(copy, capsys, content, damage):
    checksum_file(copy / CHECKPOINT).write_bytes(content)
    says = f"the checksum file {copy / CHECKPOINT}.sha256 {damage}.*: it is damaged, not the checkpoint"
    one_line(*run_cli(["eval", str(copy)], capsys), says)
    one_line(*run_cli([*SMALL, "--out", str(copy), "--resume"], capsys), says)


def test_a_checkpoint_without_its_checksum_is_said_to_be_unverified(copy, capsys):
    checksum_file(copy / CHECKPOINT).unlink()
    assert main(["eval", str(copy)]) == 0
    err = capsys.readouterr().err
    assert re.search(
        r"warning: .*checkpoint.pt has no checkpoint.pt.sha256 beside it: loaded unverified", err
    )


def _unreadable(monkeypatch, name):
    """Reading a file called `name` fails as for a file of mode 000 (these tests may run as root)."""
    real_open = open

    def guarded(file, *args, **kwargs):
        if isinstance(file, str | os.PathLike) and Path(os.fspath(file)).name == name:
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", guarded)
    monkeypatch.setattr("io.open", guarded)


@pytest.mark.parametrize("name", [CHECKPOINT, "run.json", "checkpoint.pt.sha256"])
def test_an_unreadable_file_is_said_to_be_a_permission_problem(copy, capsys, monkeypatch, name):
    """b66, b67, b69: 'corrupt, train again' (or a traceback) for a file one may not read."""
    _unreadable(monkeypatch, name)
    says = rf"cannot read {re.escape(str(copy / name))}.*Permission denied.*chmod u\+r"
    one_line(*run_cli(["eval", str(copy)], capsys), says)
    if name != "run.json":
        one_line(*run_cli([*SMALL, "--out", str(copy), "--resume"], capsys), says)


def test_a_run_json_that_is_a_folder_is_one_line(copy, capsys):
    (copy / "run.json").unlink()
    (copy / "run.json").mkdir()
    one_line(*run_cli(["eval", str(copy)], capsys), r"run.json.*a folder is where the file goes")


def test_a_checkpoint_that_is_a_pipe_is_refused_at_once(copy):
    """b54: torch.load of a FIFO waited for ever."""
    (copy / CHECKPOINT).unlink()
    os.mkfifo(copy / CHECKPOINT)
    done = subprocess.run(
        [sys.executable, "-m", "minivit.cli", "eval", str(copy)],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    one_line(done.returncode, done.stderr.strip(), r"checkpoint.pt is not a file \(a pipe or a device\?\)")


def test_eval_of_a_run_json_edited_to_a_task_of_another_size_blames_run_json(copy, capsys):
    """b16: an edit to 'lst' blamed --resolutions, which the user had not passed."""
    edit_run(copy, task="lst")
    one_line(
        *run_cli(["eval", str(copy)], capsys), r"says task='lst', but its checkpoint's model .* was edited"
    )


# 7. MINIVIT_FRAMES writes only into an empty folder or one of frames (f18, f19, f20)


@pytest.fixture
def recorder(monkeypatch):
    from minivit.widgets import frames

    monkeypatch.setattr(frames, "_recorded", set())
    monkeypatch.setattr(frames, "BUDGET", 2)
    return pytest.importorskip("minivit.widgets")


@pytest.mark.parametrize(
    ("make", "seed", "says"),
    [
        ("pictures", "0", r"holds files that are not frames \(holiday.png, thesis_fig1.png\)"),
        ("file", "0", r"names a file, not a folder"),
        ("empty", "abc", r"MINIVIT_SEED='abc' is not a whole number >= 0"),
    ],
    ids=["someone's-pictures", "a-file", "bad-seed"],
)
def test_minivit_frames_never_writes_over_what_is_not_its_own(
    tmp_path, monkeypatch, recorder, make, seed, says
):
    out = tmp_path / "frames"
    if make == "pictures":
        out.mkdir()
        for name in ("holiday.png", "thesis_fig1.png"):
            (out / name).write_bytes(b"a user's picture")
    elif make == "file":
        out.write_text("hi")
    else:
        out.mkdir()
    monkeypatch.setenv("MINIVIT_FRAMES", str(out))
    monkeypatch.setenv("MINIVIT_SEED", seed)
    before = files(out) if out.is_dir() else out.read_bytes()
    with pytest.raises(ValueError, match=says):
        recorder.sincos_explorer(grid=(4, 4))
    assert (files(out) if out.is_dir() else out.read_bytes()) == before


# 8. recorded() reads only the names it lists (e35); an experiment's --out is checked before it trains


@pytest.mark.parametrize("name", ["../__init__.py", "/etc/passwd", "recorded/../../__init__.py", 5])
def test_recorded_reads_only_the_names_it_lists(name):
    with pytest.raises(FileNotFoundError, match=r"no recorded result .*; recorded: capstone_fashion.json"):
        recorded(name)


@pytest.mark.parametrize("where", ["a-folder", "read-only"])
def test_an_experiment_s_out_is_refused_before_it_trains(tmp_path, capsys, monkeypatch, where):
    """i05, i06: --out a folder was a traceback; --out on a read-only disk trained, then lost the run."""
    import minivit.experiments.init_scale.command as command

    def trained(*args, **kwargs):
        raise AssertionError("trained before the --out was checked")

    monkeypatch.setattr(command, "sweep", trained)
    out = tmp_path / "result"
    if where == "a-folder":
        out.mkdir()
        says = rf"--out {out} is a folder; name the result's file"
    else:
        real = Path.write_bytes

        def read_only(self, data):
            if self.name.startswith(".write-test-"):
                raise OSError(errno.EROFS, "Read-only file system", str(self))
            return real(self, data)

        monkeypatch.setattr(Path, "write_bytes", read_only)
        says = r"cannot write --out .*result \(Read-only file system in .*\); nothing was trained"
    argv = ["--setting", "reference-64", "--quiet", "--steps", "2", "--seeds", "1", "--sigmas", "0.1"]
    with pytest.raises(SystemExit) as exit_:
        experiment(
            "minivit.experiments.init_scale.command", [*argv, "--no-sinusoid", "--out", str(out)], capsys
        )
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and "Traceback" not in err and re.search(says, err.splitlines()[-1]), err


# 9. The scripts' options: one line, exit status 2 (i11, i12, i14, i15, i16, i22)


@pytest.mark.parametrize(
    ("script", "argv", "says"),
    [
        ("docs/build.py", ["--no-build", "--serve", "--port", "99999"], r"--port: '99999' is not a port"),
        ("docs/build.py", ["--no-build", "--serve", "--port", "-1"], r"--port: '-1' is not a port"),
        ("benchmarks/step_time.py", ["--batch", "0"], r"--batch: 0 is below 1"),
        ("benchmarks/step_time.py", ["--encodings", "bogus"], r"--encodings: invalid choice: 'bogus'"),
        ("benchmarks/loop.py", ["--k", "0"], r"--k: 0 is below 1"),
        ("benchmarks/time_to_accuracy.py", ["--target", "2"], r"--target: 2.0 is out of range; .*<= 1"),
        (
            "benchmarks/claims.py",
            ["--records", "benchmarks", "--lessons", "00"],
            r"--records benchmarks is a folder, not a file; name another file",
        ),
        (
            "benchmarks/claims.py",
            ["--records", "no/such/folder/runs.jsonl", "--lessons", "00"],
            r"--records no/such/folder/runs.jsonl is in no/such/folder, which is no folder here",
        ),
    ],
    ids=[
        "port-high",
        "port-negative",
        "step-time-batch-0",
        "step-time-encoding",
        "loop-k-0",
        "target-2",
        "claims-records-a-folder",
        "claims-records-nowhere",
    ],
)
def test_the_scripts_refuse_a_bad_option_in_one_line(script, argv, says):
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(root / script), *argv],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    err = done.stderr.strip()
    assert done.returncode == 2 and "Traceback" not in err and re.search(says, err.splitlines()[-1]), err


def test_damaged_mnist_files_are_named_in_one_line(tmp_path, capsys):
    """b43: torchvision's bare AssertionError for MNIST files cut short or damaged."""
    pytest.importorskip("torchvision")
    raw = tmp_path / "data" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in (
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
    ):
        (raw / name).write_bytes(os.urandom(5000))
    argv = ["train", "--task", "mnist", "--train-size", "64", "--test-size", "16", "--steps", "1", "--quiet"]
    argv += ["--data-root", str(tmp_path / "data"), "--no-download", "--out", str(tmp_path / "run")]
    one_line(
        *run_cli(argv, capsys),
        r"MNIST's files in .*MNIST cannot be read \(AssertionError: cut short or damaged\)",
    )
