"""The `minivit` command, run as a user would."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from minivit import posenc
from minivit.cli import build_parser, main
from minivit.data import load_task
from minivit.evaluate import evaluate_resolutions
from minivit.train import load_model

SMALL = [
    "--task",
    "which_shape",
    "--dim",
    "16",
    "--depth",
    "1",
    "--patch-size",
    "8",
    "--train-size",
    "256",
    "--test-size",
    "64",
    "--steps",
    "30",
    "--quiet",
]


def test_train_then_eval_across_resolutions(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", *SMALL, "--position", "sincos2d", "--out", str(out)]) == 0
    assert (out / "checkpoint.pt").exists()
    run = json.loads((out / "run.json").read_text())
    assert run["config"]["position"] == "sincos2d" and 0 <= run["metrics"]["test_accuracy"] <= 1
    assert "test accuracy" in capsys.readouterr().out
    assert main(["eval", str(out), "--resolutions", "16", "24", "48"]) == 0
    table = capsys.readouterr().out
    assert "| 24 (trained) | 3x3 |" in table and "| 48 | 6x6 |" in table and "| 16 | 2x2 |" in table


def test_resume_continues_a_run_and_refuses_to_overwrite_one(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main(["train", *SMALL, "--out", out, "--checkpoint-every", "10"]) == 0
    assert main(["train", *SMALL, "--out", out]) == 2
    assert "already holds a run; pass --resume" in capsys.readouterr().err
    assert main(["train", *SMALL, "--out", out, "--resume"]) == 0


def test_bad_input_gives_one_clear_line(tmp_path, capsys):
    assert main(["train", *SMALL, "--image-size", "30", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not divisible by patch size 8" in err
    assert (
        main(
            [
                "train",
                *SMALL,
                "--position",
                "rope-axial",
                "--dim",
                "12",
                "--heads",
                "2",
                "--out",
                str(tmp_path / "y"),
            ]
        )
        == 2
    )
    assert "head dimension divisible by 4" in capsys.readouterr().err
    assert main(["eval", str(tmp_path / "nothing")]) == 2
    assert "is not a run folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--position", "sinus", "--out", str(tmp_path / "z")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'sinus'" in err and "sincos2d" in err and "Traceback" not in err
    assert err.strip().count("\n") == 0 and err.strip().endswith("(see minivit train --help)")
    assert main(["train", *SMALL, "--option", "stdd=1", "--out", str(tmp_path / "w")]) == 2
    assert "unknown option(s) ['stdd']" in capsys.readouterr().err


def test_help_documents_every_option():
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices
    for name, p in sub.items():
        text = p.format_help()
        for action in p._actions:
            for flag in action.option_strings:
                assert flag in text, (name, flag)
            if action.help is None and action.option_strings != ["-h", "--help"]:
                pytest.fail(f"{name} {action.option_strings or action.dest} has no help")


def test_encodings_lists_every_encoding(capsys):
    assert main(["encodings"]) == 0
    out = capsys.readouterr().out
    for name in posenc.REGISTRY:
        assert f"\n{name} " in f"\n{out}"


def test_evaluate_resolutions_renders_synthetic_tasks_natively(tmp_path):
    out = tmp_path / "run"
    main(["train", *SMALL, "--position", "alibi2d", "--out", str(out)])
    data = load_task("which_shape", test_size=64)
    acc = evaluate_resolutions(load_model(out), data.at_size, [16, 24, 40])
    assert list(acc) == [16, 24, 40] and all(0 <= a <= 1 for a in acc.values())


def test_the_installed_command_runs():
    command = Path(sys.executable).parent / "minivit"  # the console script pip installed
    result = subprocess.run([str(command), "train", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "--position" in result.stdout and "--resume" in result.stdout


def test_train_with_augmentation_and_mixed_precision_writes_the_history(tmp_path):
    out = tmp_path / "run"
    args = ["train", *SMALL, "--augment", "deit", "--precision", "bf16", "--label-smoothing", "0.1"]
    assert main([*args, "--out", str(out)]) == 0
    history = json.loads((out / "history.json").read_text())
    assert len(history["loss"]) == 30 and len(history["accuracy"]) == 30
    from minivit.train import load_checkpoint

    assert "crop=4" in load_checkpoint(out)["settings"]["augment"]  # a resume must use the same recipe
    assert main([*args, "--augment", "light", "--out", str(out), "--resume"]) == 2  # last one wins


def test_train_with_scale_augmentation_records_it_and_rejects_a_range_past_one(tmp_path, capsys):
    from minivit.train import load_checkpoint

    out = tmp_path / "run"
    assert main(["train", *SMALL, "--resized-crop", "0.5", "1", "--out", str(out)]) == 0
    assert "resized_crop=(0.5, 1.0)" in load_checkpoint(out)["settings"]["augment"]
    assert main(["train", *SMALL, "--resized-crop", "0.5", "2", "--out", str(tmp_path / "bad")]) == 2
    assert "resized_crop is a range of area fractions" in capsys.readouterr().err


def test_resume_in_a_folder_without_a_checkpoint_says_it_starts_from_step_0(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", *SMALL, "--steps", "2", "--out", str(out), "--resume"]) == 0
    assert f"no checkpoint in {out} yet: starting from step 0" in capsys.readouterr().out
    assert (
        main(["train", *SMALL, "--steps", "4", "--out", str(out), "--resume"]) == 2
    )  # another run's settings
    assert main(["train", *SMALL, "--steps", "2", "--out", str(out), "--resume"]) == 0
    assert "resuming from step 2 of 2" in capsys.readouterr().out


def test_help_shows_each_default_once_and_never_none():
    for name, p in build_parser()._subparsers._group_actions[0].choices.items():
        text = " ".join(p.format_help().split())  # unwrapped
        assert "(default: None)" not in text and "(default: False)" not in text, name
        assert not re.search(r"\(default: [^)]*\) \(default:", text), name
        assert "--resume" not in text or "start from step 0" in text


def test_train_takes_the_optimizer(tmp_path):
    """--optimizer reaches fit. The first step of Adam moves every weight with a gradient by about the
    learning rate (m / sqrt(v) = g / |g|); SGD's moves it by lr x its gradient, sizes that differ."""
    import torch

    from minivit.checkpoint import load_model

    one_step = ["--steps", "1", "--warmup", "0", "--grad-clip", "0", "--weight-decay", "0"]
    after = {}
    for name, optimizer, lr in (("a", "sgd", "0.1"), ("b", "sgd", "0.2"), ("adam", "adamw", "0.1")):
        args = [
            "train",
            *SMALL,
            *one_step,
            "--optimizer",
            optimizer,
            "--lr",
            lr,
            "--out",
            str(tmp_path / name),
        ]
        assert main(args) == 0
        after[name] = torch.nn.utils.parameters_to_vector(load_model(tmp_path / name).parameters()).detach()
    start = 2 * after["a"] - after["b"]  # both SGD steps are linear in lr, so this is where they began
    for name, spread in (("a", "uneven"), ("adam", "even")):
        move = (after[name] - start).abs()
        move = move[move > 1e-6]
        ratio = (move.max() / move.median()).item()
        assert (ratio > 3) == (spread == "uneven"), (name, ratio)
    with pytest.raises(SystemExit):
        main(["train", *SMALL, "--optimizer", "lbfgs", "--out", str(tmp_path / "c")])
    assert not (tmp_path / "c").exists()
