"""A learner's mistakes get one clear line: every bad input below, on the command line and in the
Python API the lessons use, must end in one line that names the input and what would be accepted
(the command line: exit status 2, no traceback), and a refused run writes nothing. Every option of
every positional encoding is tried at the edges of its declared range (`minivit.checks`): the values
just outside are refused, the values just inside train."""

from __future__ import annotations

import json
import math
import re

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import ViT, ViTConfig, posenc
from minivit.augment import Augment
from minivit.checkpoint import record_checksum
from minivit.checks import boundary_cases
from minivit.cli import main
from minivit.data import load_task
from minivit.data.lst import generate, parse_puzzles
from minivit.data.synthetic import distance, odd_one_out, relation, which_shape
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate, evaluate_resolutions
from minivit.posenc import resample
from minivit.train import CHECKPOINT, TrainingDiverged, fit, load_checkpoint

BASE = ["train", "--task", "relation", "--train-size", "64", "--test-size", "16", "--quiet"]

# (id, extra arguments for `minivit train`, what the one line must say)
TRAIN_CASES = [
    ("steps-0", ["--steps", "0"], r"--steps=0 is below 1"),
    ("steps-negative", ["--steps", "-5"], r"--steps=-5 is below 1"),
    ("steps-text", ["--steps", "abc"], r"--steps: invalid int value: 'abc'"),
    ("batch-0", ["--batch-size", "0"], r"--batch-size=0 is below 1"),
    ("batch-negative", ["--batch-size", "-1"], r"--batch-size=-1 is below 1"),
    ("lr-0", ["--lr", "0"], r"--lr=0.0 is out of range; use a finite number > 0"),
    ("lr-negative", ["--lr", "-0.001"], r"--lr=-0.001 is out of range"),
    ("lr-nan", ["--lr", "nan"], r"--lr=nan is out of range; use a finite number"),
    ("lr-inf", ["--lr", "inf"], r"--lr=inf is out of range; use a finite number"),
    ("weight-decay-negative", ["--weight-decay", "-0.1"], r"--weight-decay=-0.1 is out of range; .*>= 0"),
    ("warmup-negative", ["--warmup", "-1"], r"--warmup=-1 is below 0"),
    ("label-smoothing-1.5", ["--label-smoothing", "1.5"], r"--label-smoothing=1.5 is out of range; .*< 1"),
    (
        "grad-clip-negative",
        ["--grad-clip", "-1"],
        r"--grad-clip=-1.0 is out of range; use a finite number > 0",
    ),
    ("grad-clip-nan", ["--grad-clip", "nan"], r"--grad-clip=nan is out of range"),
    (
        "image-not-divisible",
        ["--image-size", "30", "--patch-size", "8"],
        r"30 is not divisible by patch size 8",
    ),
    ("image-0", ["--image-size", "0"], r"--image-size=0 is below 1"),
    ("patch-0", ["--patch-size", "0"], r"--patch-size=0 is below 1"),
    ("patch-negative", ["--patch-size", "-4"], r"--patch-size=-4 is below 1"),
    ("dim-0", ["--dim", "0"], r"--dim=0 is below 1"),
    ("dim-not-divisible", ["--dim", "30", "--heads", "4"], r"width dim=30 is not divisible by heads=4"),
    ("heads-0", ["--heads", "0"], r"--heads=0 is below 1"),
    ("depth-0", ["--depth", "0"], r"--depth=0 is below 1"),
    (
        "option-not-a-number",
        ["--position", "rope-axial", "--option", "base=abc"],
        r"option base='abc' .*finite number",
    ),
    ("option-inf", ["--position", "learned", "--option", "std=inf"], r"option std='inf' .*finite number"),
    (
        "option-not-bool",
        ["--position", "learned", "--option", "per_block=yes"],
        r"per_block='yes' .*True or False",
    ),
    ("option-unknown", ["--position", "sincos2d", "--option", "bogus=1"], r"unknown option\(s\) \['bogus'\]"),
    ("option-no-equals", ["--option", "std"], r"--option needs key=value, got 'std'"),
    (
        "option-bad-init",
        ["--position", "learned", "--option", "init=ones"],
        r"option init='ones' .* is unknown; pass one of 'zeros'",
    ),
    ("position-unknown", ["--position", "rope2d"], r"--position: invalid choice: 'rope2d'"),
    ("task-unknown", ["--task", "imagenet"], r"--task: invalid choice: 'imagenet'"),
    ("train-size-0", ["--train-size", "0"], r"--train-size=0 is below 1"),
    ("test-size-negative", ["--test-size", "-1"], r"--test-size=-1 is below 1"),
    ("threads-0", ["--threads", "0"], r"--threads=0 is below 1"),
    ("checkpoint-every-0", ["--checkpoint-every", "0"], r"--checkpoint-every=0 is below 1"),
    ("lst-image-size", ["--task", "lst", "--image-size", "8"], r"Latin square task is a fixed 4x4 grid"),
    ("rope-odd-head", ["--position", "rope-axial", "--dim", "12", "--heads", "2"], r"head dim.*(4|even)"),
    # found one step beyond the cases above
    (
        "rope-base-0",
        ["--position", "rope-axial", "--option", "base=0"],
        r"option base=0 .* finite number > 1",
    ),
    ("peg-layer-past-depth", ["--position", "peg", "--option", "at_layer=2"], r"at_layer=2 .* < depth=2"),
    ("none-shape-option", ["--position", "none", "--option", "dim=8"], r"unknown option\(s\) \['dim'\]"),
    ("resized-crop-past-one", ["--resized-crop", "0.5", "2"], r"resized_crop is a range of area fractions"),
    ("resized-crop-nan", ["--resized-crop", "nan", "1"], r"resized_crop is a range of area fractions"),
    ("device-unknown", ["--device", "gpu"], r"--device='gpu' is not a device; use cuda, cuda:N, mps or cpu"),
    (
        "device-missing",
        ["--device", "cuda:99"],
        r"--device='cuda:99': (torch sees no CUDA GPU|this machine has)",
    ),
    ("threads-negative", ["--threads", "-1"], r"--threads=-1 is below 1"),
    ("threads-past-the-cores", ["--threads", "100000"], r"--threads=100000 is above \d+; use an integer"),
    ("warmup-past-the-run", ["--steps", "100", "--warmup", "500"], r"--warmup=500 is longer than the run"),
    ("seed-negative", ["--seed", "-1"], r"--seed=-1 is below 0; use an integer >= 0 and <= "),
    ("seed-huge", ["--seed", str(2**70)], r"--seed=\d+ is above \d+; use an integer >= 0 and <= "),
    (
        "memory-image-4096",
        ["--image-size", "4096"],
        r"this run needs about [\d.]+ GB of memory \(data .*\), more than the [\d.]+ [GM]B this machine "
        r"has free; lower --train-size, --test-size or --image-size",
    ),
    (
        "memory-encoding-table",
        ["--position", "relative", "--option", "clip=100000"],
        r"most of it is the relative encoding's parameters: use smaller values of its options \(clip\)",
    ),
    (
        "dataset-not-here",
        ["--task", "mnist", "--no-download", "--data-root", "/nonexistent"],
        r"MNIST is not in /nonexistent; leave out --no-download",
    ),
    # refused from the options, before any block is built (100,000 of them took 85 s to build)
    ("depth-100000", ["--depth", "100000"], r"this run needs about [\d.]+ GB .*, or lower --dim or --depth"),
    (
        "depth-100000-rope-mixed",  # an encoding that builds a table per block is not built either
        ["--position", "rope-mixed", "--depth", "100000"],
        r"this run needs about [\d.]+ GB .*, or lower --dim or --depth",
    ),
    ("dim-100000", ["--dim", "100000", "--heads", "1"], r"this run needs about [\d.]+ GB of memory"),
    (
        "memory-attention",
        ["--image-size", "512", "--patch-size", "2", "--position", "alibi2d"],
        r"needs about [\d.]+ GB .* one step at --batch-size 64 .*; lower --image-size or raise --patch-size",
    ),
    # a run that could never finish (its warmup alone never ends), and seeds torch cannot tell apart
    ("steps-past-any-end", ["--steps", "9" * 23], r"--steps=9+ is above 100000000; use an integer >= 1"),
    ("seed-2-to-the-32", ["--seed", str(2**32)], r"--seed=4294967296 is above 4294967295"),
    # augmentation that cannot crop the 4x4 Latin squares: refused before the run, not at its first step
    (
        "lst-augment-light",
        ["--task", "lst", "--augment", "light"],
        r"crop=4 .* images larger than 4 px; .*4x4",
    ),
    (
        "lst-augment-deit",
        ["--task", "lst", "--augment", "deit"],
        r"leave out the augmentation \(--augment none\)",
    ),
]


def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    return code, capsys.readouterr().err.strip()


def assert_one_line(code: int, err: str, says: str) -> None:
    assert code == 2, f"exit {code}: {err}"
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert re.search(says, err), f"{says!r} not in {err!r}"


@pytest.fixture
def no_model_built(monkeypatch):
    """Fails a test that builds a block of a model, or a per-block table of rope-mixed (on any
    device, the meta device too): a refusal must come from the options alone."""

    def built(*args, **kwargs):
        raise AssertionError("a model was built to refuse the run")

    monkeypatch.setattr("minivit.model.Block.__init__", built)
    monkeypatch.setattr("minivit.posenc.rope.mixed_frequencies", built)


@pytest.mark.parametrize(("extra", "says"), [c[1:] for c in TRAIN_CASES], ids=[c[0] for c in TRAIN_CASES])
def test_train_refuses_with_one_line(tmp_path, capsys, no_model_built, extra, says):
    code, err = run_cli([*BASE, *extra, "--out", str(tmp_path / "run")], capsys)
    assert_one_line(code, err, says)
    assert not (tmp_path / "run").exists(), "a refused run must not write its folder"


@pytest.mark.parametrize("out", ["", " "], ids=["empty", "blank"])
def test_train_and_eval_refuse_an_out_that_names_no_folder(tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    for argv in ([*BASE, "--steps", "1", "--out", out], ["eval", out]):
        code, err = run_cli(argv, capsys)
        assert_one_line(code, err, rf"{out!r} names no folder \(an empty path means the working folder\)")
    assert not list(tmp_path.iterdir()), "nothing may be written into the working folder"


def test_a_model_too_large_is_refused_before_a_block_is_built(no_model_built):
    with pytest.raises(
        ValueError, match=r"has [\d,]+ parameters: [\d.]+ GB of weights alone, .*lower dim or depth"
    ):
        ViT(ViTConfig(depth=300_000, position="rope-mixed"))


# Every option of every encoding at the edges of its declared range, in a model of this shape
SHAPE = {"dim": 16, "heads": 2, "depth": 2}
OPTION_CASES = [
    (name, option, value, accepted)
    for name in posenc.REGISTRY
    for option, declared in posenc.declarations(name).items()
    for value, accepted in boundary_cases(declared, SHAPE)
]
REFUSED = [c[:3] for c in OPTION_CASES if not c[3]]
ACCEPTED = [c[:3] for c in OPTION_CASES if c[3]]


def case_id(name, option, value):
    return f"{name}-{option}={value!r}"


def test_every_option_of_every_encoding_has_cases_on_both_sides():
    for name in posenc.REGISTRY:
        for option in posenc.options_of(name):
            assert any(c[:2] == (name, option) for c in REFUSED), (name, option)
            assert any(c[:2] == (name, option) for c in ACCEPTED), (name, option)


@pytest.mark.parametrize(("name", "option", "value"), REFUSED, ids=[case_id(*c) for c in REFUSED])
def test_an_option_value_outside_its_range_is_refused(tmp_path, capsys, name, option, value):
    with pytest.raises(ValueError) as raised:
        ViTConfig(image_size=16, patch_size=4, position=name, position_options={option: value}, **SHAPE)
    message = str(raised.value)
    assert "\n" not in message and f"option {option}={value!r} of positional encoding {name!r}" in message
    assert re.search(r"(is not .*|is out of range|is unknown); pass ", message), message
    shape = ["--dim", "16", "--heads", "2", "--depth", "2", "--image-size", "16", "--patch-size", "4"]
    argv = [
        *BASE,
        *shape,
        "--position",
        name,
        "--option",
        f"{option}={value!r}",
        "--out",
        str(tmp_path / "run"),
    ]
    code, err = run_cli(argv, capsys)
    assert_one_line(code, err, rf"option {option}=.* of positional encoding '{name}' .*; pass ")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("name", "option", "value"), ACCEPTED, ids=[case_id(*c) for c in ACCEPTED])
def test_an_option_value_at_the_edge_of_its_range_trains(name, option, value):
    torch.manual_seed(0)
    model = ViT(
        ViTConfig(image_size=16, patch_size=4, position=name, position_options={option: value}, **SHAPE)
    )
    data = TensorDataset(torch.rand(16, 3, 16, 16), torch.arange(16) % 4)
    history = fit(model, data, steps=2, batch_size=8, progress=False, device="cpu")  # raises on NaN
    assert all(math.isfinite(x) for x in history.loss)
    assert torch.isfinite(model(torch.rand(2, 3, 32, 32))).all()  # and at another grid


def test_a_memory_refusal_names_a_batch_size_that_fits(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("minivit.plan.host_memory", lambda: 1500 * 10**6)
    argv = [
        *BASE,
        "--image-size",
        "48",
        "--dim",
        "256",
        "--train-size",
        "256",
        "--batch-size",
        "256",
        "--steps",
        "1",
    ]
    code, err = run_cli([*argv, "--out", str(tmp_path / "run")], capsys)
    assert_one_line(
        code, err, r"more than the 1\.5 GB this machine has free; lower --batch-size to \d+ or less"
    )
    assert not (tmp_path / "run").exists()
    fits = int(re.search(r"--batch-size to (\d+) or less", err).group(1))
    assert 1 <= fits < 256
    code, err = run_cli([*argv[:-4], "--batch-size", str(fits + 1), "--out", str(tmp_path / "run")], capsys)
    assert_one_line(code, err, r"lower --batch-size to")

    def passed(*args, **kwargs):  # load_task comes after the memory check: it was passed
        raise ValueError("the memory check passed")

    monkeypatch.setattr("minivit.cli.training.load_task", passed)
    code, err = run_cli([*argv[:-4], "--batch-size", str(fits), "--out", str(tmp_path / "run")], capsys)
    assert_one_line(code, err, r"the memory check passed")


def test_a_refused_resume_leaves_the_run_as_it_was(trained_run, tmp_path, capsys):
    run = copy_run(trained_run, tmp_path)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    argv = [*BASE, "--steps", "2", "--dim", "32", "--batch-size", "16", "--out", str(run), "--resume"]
    says = (
        r"its checkpoint was trained with another model \(--dim 16 then, 32 now\); pass the run's own options"
    )
    assert_one_line(*run_cli(argv, capsys), says)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_eval_refuses_a_resolution_too_large_for_the_machine(trained_run, capsys):
    code, err = run_cli(["eval", str(trained_run), "--resolutions", "65536"], capsys)
    assert_one_line(code, err, r"testing at 65536 px needs about [\d.]+ GB of memory .*; test at smaller")


def test_a_nan_at_the_first_step_does_not_blame_the_learning_rate():
    model = small_model()
    with torch.no_grad():
        model.head.weight.fill_(math.nan)
    with pytest.raises(
        TrainingDiverged, match=r"loss became nan at step 1; that is before any update, so the "
    ):
        fit(model, small_data(), steps=3, progress=False)


def test_train_refuses_an_out_it_cannot_write(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, err = run_cli([*BASE, "--out", str(blocker / "run")], capsys)
    assert_one_line(code, err, r"cannot write to --out .*choose a folder you can write to")


def test_train_refuses_a_full_disk_before_training(tmp_path, capsys, monkeypatch):
    import shutil

    monkeypatch.setattr(
        shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9 - 1000, 1000)
    )
    code, err = run_cli([*BASE, "--out", str(tmp_path / "run")], capsys)
    assert_one_line(code, err, r"has 0\.0 MB free, less than .* two checkpoints of this model need")


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("trained") / "run"
    args = [*BASE, "--steps", "2", "--dim", "16", "--batch-size", "16", "--threads", "1", "--out", str(out)]
    assert main(args) == 0
    return out


def test_train_refuses_to_overwrite_a_run(trained_run, capsys):
    code, err = run_cli([*BASE, "--steps", "2", "--dim", "16", "--out", str(trained_run)], capsys)
    assert_one_line(code, err, r"already holds a run; pass --resume to continue it, or another --out")


def test_train_refuses_to_resume_another_run(trained_run, capsys):
    argv = [*BASE, "--steps", "2", "--dim", "16", "--seed", "7", "--out", str(trained_run), "--resume"]
    code, err = run_cli(argv, capsys)
    assert_one_line(code, err, r"cannot resume .*: it was trained with other data \(--seed 0 then, 7 now\)")


def copy_run(run, tmp_path):
    import shutil

    return shutil.copytree(run, tmp_path / "copy")


def corrupt_bytes(path):
    path.write_bytes(b"this is not a checkpoint " * 40)


def empty(path):
    path.write_bytes(b"")


def truncated(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def newer_format(path):
    state = torch.load(path, weights_only=True)
    torch.save({**state, "format": 99}, path)
    record_checksum(path)  # as the version that wrote it would


def foreign(path):
    torch.save({"weights": torch.zeros(3)}, path)
    record_checksum(path)  # whole, but not a minivit checkpoint


def foreign_tensor(path):
    torch.save(torch.zeros(3), path)
    record_checksum(path)


# (id, what to do to the run folder's checkpoint, what the one line must say)
CHECKPOINT_CASES = [
    ("corrupt", corrupt_bytes, r"cannot be read as a checkpoint .*empty, truncated, corrupt"),
    ("empty", empty, r"cannot be read as a checkpoint"),
    ("truncated", truncated, r"cannot be read as a checkpoint"),
    ("newer-format", newer_format, r"not a checkpoint this version of minivit reads \(format 99"),
    ("foreign", foreign, r"not a checkpoint this version of minivit reads \(it holds no config and model\)"),
    ("missing", lambda path: path.unlink(), r"no checkpoint at .*train first"),
]


@pytest.mark.parametrize(
    ("spoil", "says"), [c[1:] for c in CHECKPOINT_CASES], ids=[c[0] for c in CHECKPOINT_CASES]
)
def test_eval_names_a_bad_checkpoint(trained_run, tmp_path, capsys, spoil, says):
    run = copy_run(trained_run, tmp_path)
    spoil(run / CHECKPOINT)
    code, err = run_cli(["eval", str(run)], capsys)
    assert_one_line(code, err, says)


def edit(change):
    """A spoiler that loads the checkpoint, lets `change` edit its state, and saves it back with its
    checksum recorded again: a file that is whole but wrong (another model's, an older version's),
    which the checks of what it holds must name."""

    def spoil(path):
        state = torch.load(path, weights_only=True)
        change(state)
        torch.save(state, path)
        record_checksum(path)

    return spoil


def _set(key, value):
    return lambda state: state.__setitem__(key, value)


# (id, what to do to the checkpoint of a trained run, what `--resume` must say): a damaged file or
# one of another run, each named, before anything is trained or written
RESUME_CASES = [
    *CHECKPOINT_CASES[:4],
    ("foreign-dict", foreign, r"cannot resume .*: it holds no cursor, history, .*\(weights only\?\)"),
    ("foreign-tensor", foreign_tensor, r"\(format None, other format"),
    ("weights-only", edit(lambda s: s.pop("optimizer")), r"cannot resume .*: it holds no optimizer"),
    ("config-damaged", edit(_set("config", {"width": 3})), r"holds a config this version .* cannot read"),
    ("settings-damaged", edit(_set("settings", {"speed": 3})), r"cannot resume .*: its settings are damaged"),
    (
        "weight-nan",
        edit(lambda s: s["model"]["head.weight"].fill_(math.nan)),
        r"its weight head.weight holds NaN or inf values: the file is damaged",
    ),
    (
        "weight-shape",
        edit(lambda s: s["model"].__setitem__("head.bias", torch.zeros(7))),
        r"its weight head.bias is \(7,\), the model's is \(4,\): another model's, or a damaged file",
    ),
    (
        "weight-missing",
        edit(lambda s: s["model"].pop("norm.weight")),
        r"its weights are of another model \(first difference: norm.weight\)",
    ),
    (
        "order-of-another-set",
        edit(_set("order", torch.randperm(128))),
        r"it was trained on 128 examples, this run has 64 \(another --train-size, or an edited run.json\?\)",
    ),
    ("order-damaged", edit(_set("order", torch.zeros(64).long())), r"its batch order is damaged"),
    ("step-damaged", edit(_set("step", -1)), r"its step \(-1\) or batch position \(\d+\) is damaged"),
    ("history-damaged", edit(lambda s: s["history"]["loss"].pop()), r"history does not match its step 2"),
    ("rng-damaged", edit(lambda s: s["rng"].__setitem__("torch", torch.zeros(3))), r"random state \(torch\)"),
    (
        "optimizer-of-another-model",
        edit(lambda s: s["optimizer"]["param_groups"][0]["params"].pop()),
        r"its optimizer state is of another model or optimizer",
    ),
    (
        "optimizer-damaged",
        edit(lambda s: s["optimizer"]["state"][0].__setitem__("exp_avg", torch.zeros(5))),
        r"its optimizer state is damaged or of another model",
    ),
]


def files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize(("spoil", "says"), [c[1:] for c in RESUME_CASES], ids=[c[0] for c in RESUME_CASES])
def test_resume_names_a_damaged_or_foreign_checkpoint_and_changes_nothing(
    trained_run, tmp_path, capsys, spoil, says
):
    run = copy_run(trained_run, tmp_path)
    spoil(run / CHECKPOINT)
    before = files(run)
    argv = [*BASE, "--steps", "2", "--dim", "16", "--batch-size", "16", "--out", str(run), "--resume"]
    assert_one_line(*run_cli(argv, capsys), says)
    assert files(run) == before, "a refused resume must leave the run folder as it was"


def test_resume_after_run_json_was_edited_to_another_training_set_is_refused(trained_run, tmp_path, capsys):
    run = copy_run(trained_run, tmp_path)
    saved = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**saved, "train_size": 128}))
    before = files(run)
    argv = [*BASE, "--train-size", "128", "--steps", "2", "--dim", "16", "--batch-size", "16"]
    code, err = run_cli([*argv, "--out", str(run), "--resume"], capsys)
    assert_one_line(code, err, r"it was trained on 64 examples, this run has 128 .*an edited run.json")
    assert files(run) == before


def test_a_resume_given_a_bad_checkpoint_in_the_api_names_it(trained_run, tmp_path):
    run = copy_run(trained_run, tmp_path)
    edit(lambda s: s["model"]["head.weight"].fill_(math.inf))(run / CHECKPOINT)
    before = files(run)
    model = ViT(ViTConfig.from_dict(load_checkpoint(run)["config"]))
    data = load_task("relation", train_size=64, test_size=16).train
    with pytest.raises(ValueError, match=r"its weight head.weight holds NaN or inf values"):
        fit(model, data, steps=2, batch_size=16, lr=3e-3, out=run, resume=True, progress=False)
    assert files(run) == before


def edit_run(run, **changes):
    """Edit the run's run.json as a learner might: each key's value through its function."""
    saved = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**saved, **{k: f(saved[k]) for k, f in changes.items()}}))


@pytest.mark.parametrize(
    ("spoil", "says"),
    [
        (lambda run: (run / "run.json").write_text("{not json"), r"run.json is not valid JSON"),
        (lambda run: (run / "run.json").write_text(json.dumps({"task": "relation"})), r"lacks \['config'"),
        (lambda run: (run / "run.json").unlink(), r"is not a run folder \(no run.json\)"),
        (
            lambda run: edit_run(run, config=lambda c: {**c, "patch_size": 8}),
            r"run.json says patch_size=8, but its checkpoint was trained with patch_size=4: run.json was "
            r"edited; restore it",
        ),
        (
            lambda run: edit_run(run, config=lambda c: "tiny"),
            r"run.json: config='tiny' is not a model config .*: the file was edited or damaged",
        ),
        (lambda run: edit_run(run, data_root=lambda r: 5), r"data_root=5 is not a folder's path"),
        (lambda run: edit_run(run, test_size=lambda n: "16"), r"test_size='16' is not a whole number >= 1"),
        (lambda run: edit_run(run, task=lambda t: "imagenet"), r"task='imagenet' is not one of the tasks"),
        (lambda run: (run / "run.json").write_text("[1, 2]"), r"lacks \['task'"),
    ],
    ids=[
        "run-json-corrupt",
        "run-json-old",
        "run-json-missing",
        "run-json-config-edited",
        "run-json-config-not-a-config",
        "run-json-data-root-number",
        "run-json-test-size-text",
        "run-json-task-unknown",
        "run-json-a-list",
    ],
)
def test_eval_names_a_bad_run_file(trained_run, tmp_path, capsys, spoil, says):
    run = copy_run(trained_run, tmp_path)
    spoil(run)
    assert_one_line(*run_cli(["eval", str(run)], capsys), says)


@pytest.mark.parametrize(
    ("sizes", "says"),
    [
        (["30"], r"resolutions \[30\] are not divisible by the patch size 4"),
        (["0"], r"smaller than one patch"),
    ],
    ids=["not-divisible", "zero"],
)
def test_eval_names_a_bad_resolution(trained_run, capsys, sizes, says):
    assert_one_line(*run_cli(["eval", str(trained_run), "--resolutions", *sizes], capsys), says)


# The Python API the lessons use: (id, a call, the error's one line)
def small_data(n=32, classes=4):
    return TensorDataset(torch.rand(n, 3, 24, 24), torch.arange(n) % classes)


def small_model(**changes):
    return ViT(ViTConfig(num_classes=4, dim=16, **changes))


API_CASES = [
    ("config-patch-0", lambda: ViTConfig(patch_size=0), r"patch_size=0 is below 1"),
    ("config-image-nan", lambda: ViTConfig(image_size=math.nan), r"image_size=nan is not a whole number"),
    ("config-image-3d", lambda: ViTConfig(image_size=(24, 24, 3)), r"give one side, or \(height, width\)"),
    ("config-dim-float", lambda: ViTConfig(dim=64.0), r"dim=64.0 is not a whole number"),
    ("config-heads-bool", lambda: ViTConfig(heads=True), r"heads=True is not a whole number"),
    ("config-classes-1", lambda: ViTConfig(num_classes=1), r"num_classes=1 is below 2"),
    ("config-mlp-inf", lambda: ViTConfig(mlp_ratio=math.inf), r"mlp_ratio=inf is out of range"),
    ("config-dropout-1", lambda: ViTConfig(dropout=1.0), r"dropout=1.0 is out of range; .*>= 0 and < 1"),
    ("config-pool", lambda: ViTConfig(pool="max"), r"unknown pool 'max'; known pools: mean, cls, last"),
    (
        "config-position",
        lambda: ViTConfig(position="rope"),
        r"Unknown positional encoding 'rope'; known: none",
    ),
    (
        "config-option-type",
        lambda: ViTConfig(position="rope-axial", position_options={"base": "abc"}),
        r"option base='abc' of positional encoding 'rope-axial' is not a finite number; pass .* base=100.0",
    ),
    ("config-options-not-dict", lambda: ViTConfig(position_options=["std"]), r"must be a dict"),
    ("config-from-dict", lambda: ViTConfig.from_dict({"width": 3}), r"unknown ViTConfig fields \['width'\]"),
    ("fit-steps-0", lambda: fit(small_model(), small_data(), steps=0), r"steps=0 is below 1"),
    ("fit-batch-nan", lambda: fit(small_model(), small_data(), batch_size=math.nan), r"batch_size=nan"),
    ("fit-lr-nan", lambda: fit(small_model(), small_data(), lr=math.nan), r"lr=nan is out of range"),
    (
        "fit-optimizer",
        lambda: fit(small_model(), small_data(), optimizer="adam"),
        r"unknown optimizer 'adam'",
    ),
    (
        "fit-schedule",
        lambda: fit(small_model(), small_data(), schedule="step"),
        r"unknown schedule 'step'; known",
    ),
    ("fit-precision", lambda: fit(small_model(), small_data(), precision="fp8"), r"unknown precision 'fp8'"),
    ("fit-sync-0", lambda: fit(small_model(), small_data(), sync_every=0), r"sync_every=0 is below 1"),
    (
        "fit-compile-mode",
        lambda: fit(small_model(), small_data(), compile="fast"),
        r"unknown compile 'fast'; known: .*'reduce-overhead'",
    ),
    (
        "fit-labels-out-of-range",
        lambda: fit(small_model(), small_data(classes=9), steps=1),
        r"labels run from 0 to 8, but the model has num_classes=4",
    ),
    ("fit-empty", lambda: fit(small_model(), small_data(n=0), steps=1), r"the training set is empty"),
    (
        "fit-nan-images",
        lambda: fit(
            small_model(), TensorDataset(torch.full((4, 3, 24, 24), math.nan), torch.zeros(4).long())
        ),
        r"the training images hold NaN or inf values .*; pass finite float images",
    ),
    (
        "fit-byte-images",
        lambda: fit(
            small_model(), TensorDataset(torch.zeros(4, 3, 24, 24, dtype=torch.uint8), torch.zeros(4).long())
        ),
        r"the training images hold not floating point \(torch.uint8\)",
    ),
    ("fit-device", lambda: fit(small_model(), small_data(), device="gpu"), r"device='gpu' is not a device"),
    (
        "fit-eval-data-tuple",
        lambda: fit(small_model(), small_data(), eval_data=(torch.rand(2, 3, 24, 24), torch.zeros(2).long())),
        r"eval_data must be a TensorDataset\(images, labels\)",
    ),
    (
        "fit-eval-labels",
        lambda: fit(small_model(), small_data(), eval_data=small_data(classes=7)),
        r"eval_data: labels run from 0 to 6, but the model has num_classes=4",
    ),
    (
        "fit-callback",
        lambda: fit(small_model(), small_data(), callback="plot"),
        r"callback='plot' is not a function",
    ),
    (
        "fit-out-a-file",
        lambda: fit(small_model(), small_data(), out=__file__ + "/run"),
        r"cannot write to out .*: .*; choose a folder you can write to",
    ),
    ("fit-out-empty", lambda: fit(small_model(), small_data(), steps=1, out=""), r"out='' names no folder"),
    ("fit-out-number", lambda: fit(small_model(), small_data(), out=5), r"out=5 is not a folder's path"),
    (
        "fit-warmup",
        lambda: fit(small_model(), small_data(), steps=10, warmup=20),
        r"warmup=20 is longer than",
    ),
    ("fit-compile-1", lambda: fit(small_model(), small_data(), compile=1), r"unknown compile 1"),
    (
        "fit-memory",
        lambda: fit(
            ViT(ViTConfig(image_size=1024, num_classes=4, dim=16, position="alibi2d")),
            TensorDataset(torch.rand(8, 3, 1024, 1024), torch.zeros(8).long()),
            batch_size=8,
        ),
        r"this run needs about [\d.]+ GB of memory .* more than the [\d.]+ [GM]B this machine has free",
    ),
    (
        "model-weights-too-large",
        lambda: ViT(ViTConfig(position="relative", position_options={"clip": 100000})),
        r"has 160,001,703,821 parameters: 640\.0 GB of weights alone, more than the [\d.]+ GB this "
        r"machine has free; most are the relative encoding's: .* other values of its options \(clip\)",
    ),
    ("augment-crop-float", lambda: Augment(crop=1.5), r"crop=1.5 is not a whole number"),
    ("augment-mixup-nan", lambda: Augment(mixup=math.nan), r"mixup=nan is out of range"),
    ("augment-flip-text", lambda: Augment(flip="yes"), r"flip='yes' is not True or False"),
    (
        "augment-crop-range",
        lambda: Augment(resized_crop=(0.5,)),
        r"resized_crop is a range of area fractions",
    ),
    (
        "fit-float-labels",
        lambda: fit(small_model(), TensorDataset(torch.rand(4, 3, 24, 24), torch.rand(4)), steps=1),
        r"labels must be whole class numbers",
    ),
    # wrong shapes, dtypes, empty or NaN data: named before a step (and before out= is written)
    (
        "fit-int32-labels",
        lambda: fit(small_model(), TensorDataset(torch.rand(4, 3, 24, 24), torch.zeros(4).int())),
        r"the training labels are torch.int32; pass class numbers as torch.long \(labels.long\(\)\)",
    ),
    (
        "fit-bool-labels",
        lambda: fit(small_model(), TensorDataset(torch.rand(4, 3, 24, 24), torch.zeros(4).bool())),
        r"the training labels are torch.bool; pass class numbers as torch.long",
    ),
    (
        "fit-double-images",
        lambda: fit(
            small_model(),
            TensorDataset(*(t.double() if t.is_floating_point() else t for t in small_data().tensors)),
            out="run",
        ),
        r"the training images are torch.float64, the model's weights torch.float32; .*\(torch.float32\)",
    ),
    (
        "fit-one-channel",
        lambda: fit(small_model(), TensorDataset(torch.rand(4, 1, 24, 24), torch.zeros(4).long()), out="run"),
        r"the training images have 1 channels, but the model expects 3; pass \[B, 3, H, W\] or build",
    ),
    (
        "fit-images-not-divisible",
        lambda: fit(small_model(), TensorDataset(torch.rand(4, 3, 30, 30), torch.zeros(4).long()), out="run"),
        r"image height 30 is not divisible by patch size 4; use a multiple of 4 \(e.g. 28 or 32\)",
    ),
    (
        "fit-images-smaller-than-a-patch",
        lambda: fit(small_model(), TensorDataset(torch.rand(4, 3, 2, 2), torch.zeros(4).long())),
        r"image height 2 is not divisible by patch size 4; use a multiple of 4 \(e.g. 4\) or",
    ),
    ("fit-not-a-model", lambda: fit("vit", small_data()), r"model='vit' is not a torch module"),
    (
        "fit-resume-without-out",
        lambda: fit(small_model(), small_data(), resume=True),
        r"resume=True .* pass out=",
    ),
    (
        "fit-eval-data-empty",
        lambda: fit(small_model(), small_data(), eval_data=small_data(n=0)),
        r"eval_data: set is empty",
    ),
    (
        "evaluate-empty",
        lambda: evaluate(small_model(), small_data(n=0)),
        r"data: set is empty; pass at least one",
    ),
    (
        "evaluate-nan",
        lambda: evaluate(
            small_model(), TensorDataset(torch.full((4, 3, 24, 24), math.nan), torch.zeros(4).long())
        ),
        r"data: images hold NaN or inf values",
    ),
    (
        "evaluate-tuple",
        lambda: evaluate(small_model(), (torch.rand(2, 3, 24, 24), torch.zeros(2).long())),
        r"data must be a TensorDataset\(images, labels\)",
    ),
    (
        "evaluate-double",
        lambda: evaluate(
            small_model(), TensorDataset(torch.rand(2, 3, 24, 24).double(), torch.zeros(2).long())
        ),
        r"data: images are torch.float64, the model's weights torch.float32",
    ),
    (
        "forward-no-batch-axis",
        lambda: small_model()(torch.rand(3, 24, 24)),
        r"images must be a tensor \[B, C, H, W\], got shape \(3, 24, 24\); add a batch axis with images",
    ),
    ("forward-list", lambda: small_model()([[0.5]]), r"images must be a tensor \[B, C, H, W\], got list"),
    (
        "forward-bytes",
        lambda: small_model()(torch.zeros(2, 3, 24, 24, dtype=torch.uint8)),
        r"images are torch.uint8, the model's weights torch.float32; pass images.to\(torch.float32\)",
    ),
    (
        "data-root-a-file",  # --data-root or MINIVIT_DATA naming a file
        lambda: load_task("mnist", root=__file__, download=False),
        r"the data root .*test_bad_inputs.py is a file, not a folder; point --data-root \(or MINIVIT_DATA\)",
    ),
    ("task-unknown", lambda: load_task("imagenet"), r"unknown task 'imagenet'; known: "),
    ("task-size-0", lambda: load_task("relation", train_size=0), r"train_size=0 is below 1"),
    ("task-image-negative", lambda: load_task("relation", image_size=-24), r"image_size=-24 is below 1"),
    (
        "resolutions-no-sizes",
        lambda: evaluate_resolutions(small_model(), lambda s: small_data()),
        r"pass sizes=\[...\] when data_at is a function",
    ),
    (
        "resolutions-not-divisible",
        lambda: evaluate_resolutions(
            small_model(), {30: TensorDataset(torch.rand(2, 3, 30, 30), torch.zeros(2).long())}
        ),
        r"image height 30 is not divisible by patch size 4",
    ),
    (
        "resample-wrong-rows",
        lambda: resample(torch.zeros(10, 8), (3, 3), (6, 6)),
        r"table has 10 rows but grid 3x3",
    ),
    ("resample-grid-0", lambda: resample(torch.zeros(9, 8), (3, 3), (0, 6)), r"new_grid=0 is below 1"),
    (
        "resample-nan-table",
        lambda: resample(torch.zeros(9, 8).index_fill_(0, torch.tensor([4]), float("nan")), (3, 3), (6, 6)),
        r"table has NaN or infinite entries in 1 row\(s\) \(first: row 4\); .* loss stayed finite",
    ),
    (
        "puzzle-short",
        lambda: parse_puzzles("123 4"),
        r"line 1: '123 4' is not '<16 digits 0-5> <answer 1-4>'",
    ),
    ("puzzle-answer-12", lambda: parse_puzzles("1234341221434321 12"), r"line 1: .* is not '<16 digits"),
    ("puzzle-no-query", lambda: parse_puzzles("1234341221434321 1"), r"exactly one query \(5\)"),
    (
        "generate-max-rounds-0",
        lambda: generate(3, max_rounds=0),
        r"max_rounds=0 is below 1; use an integer >= 1",
    ),
    ("puzzle-none", lambda: parse_puzzles("# only a comment\n"), r"no puzzles found"),
    (
        "puzzle-wrong-answer",
        lambda: parse_puzzles("5234341221434321 2"),
        r"line 1 \(5234341221434321\): answer 2 given, but the rules force 1",
    ),
    # a string is truthy: norm_first="no" would silently build the pre-LN model
    ("config-norm-first-text", lambda: ViTConfig(norm_first="no"), r"norm_first='no' is not True or False"),
    ("config-norm-first-int", lambda: ViTConfig(norm_first=0), r"norm_first=0 is not True or False"),
    # the model itself, on NaN images (its outputs would be NaN)
    (
        "forward-nan",
        lambda: small_model()(torch.full((1, 3, 24, 24), math.nan)),
        r"images hold NaN or inf values; pass finite float images",
    ),
    (
        "forward-inf-eval",
        lambda: small_model().eval()(torch.full((2, 3, 24, 24), math.inf)),
        r"images hold NaN or inf values",
    ),
    # evaluate checks the labels against the model, as fit does: another task's labels are refused
    (
        "evaluate-labels-past-the-model",
        lambda: evaluate(small_model(), small_data(classes=9)),
        r"data: labels run from 0 to 8, but the model has num_classes=4",
    ),
    (
        "evaluate-nan-outputs",
        lambda: evaluate(_diverged(small_model()), small_data()),
        r"the model's outputs are NaN or inf for 32 of 32 images, so there is no prediction to score",
    ),
    (
        "fit-augment-crop-past-the-image",
        lambda: fit(
            ViT(ViTConfig(image_size=4, patch_size=2, dim=16, num_classes=4)),
            TensorDataset(torch.rand(8, 3, 4, 4), torch.arange(8) % 4),
            augment=Augment.recipe("light"),
        ),
        r"crop=4 .* needs images larger than 4 px; these are 4x4",
    ),
    # the data builders the lessons call directly
    ("odd-one-out-0", lambda: odd_one_out(0), r"odd_one_out: n=0 is below 1; use an integer >= 1"),
    ("odd-one-out-negative", lambda: odd_one_out(-5), r"odd_one_out: n=-5 is below 1"),
    ("odd-one-out-float", lambda: odd_one_out(2.5), r"odd_one_out: n=2.5 is not a whole number"),
    ("relation-text", lambda: relation("100"), r"relation: n='100' is not a whole number"),
    ("relation-one-cell", lambda: relation(4, cells=1), r"relation: cells=1 is below 2"),
    ("which-shape-image-0", lambda: which_shape(4, image_size=0), r"which_shape: image_size=0 is below 1"),
    ("distance-negative-seed", lambda: distance(4, seed=-1), r"distance: seed=-1 is below 0"),
    # ensembles: none at all, and one model object K times (`[ViT(cfg)] * K`)
    ("ensemble-empty", lambda: fit_ensemble([], small_data(), seeds=[]), r"needs at least one model"),
    (
        "ensemble-one-object-twice",
        lambda: fit_ensemble([small_model()] * 2, small_data(), seeds=[0, 1], steps=1, progress=False),
        r"models 0 and 1 are one and the same model object.*\[ViT\(config\) for _ in range\(K\)\]",
    ),
    (
        "ensemble-seed-past-torch",
        lambda: fit_ensemble([small_model()], small_data(), seeds=[2**32]),
        r"seeds=",
    ),
    # the lessons' figure helpers: bases the encodings refuse, positions off the grid, empty grids
    (
        "sincos-view-base-0",
        lambda: _widgets().sincos_view(dim=64, base=0, position=0),
        r"base=0 is out of range; .*> 1",
    ),
    (
        "sincos-view-base-nan",
        lambda: _widgets().sincos_view(dim=64, base=math.nan, position=0),
        r"base=nan is out of range",
    ),
    (
        "rope-view-base-negative",
        lambda: _widgets().rope_view(base=-1.0, index=0, angle=0.0),
        r"base=-1.0 is out",
    ),
    (
        "sincos-view-position-past-the-grid",
        lambda: _widgets().sincos_view(dim=64, base=10000, position=100),
        r"position=100 is not a patch of the 8x8 grid; pass 0 to 63",
    ),
    (
        "sincos-view-position-negative",
        lambda: _widgets().sincos_view(dim=64, base=10000, position=-1),
        r"position=-1 is not a patch of the 8x8 grid",
    ),
    (
        "sincos-explorer-empty-grid",
        lambda: _widgets().sincos_explorer(grid=(0, 0)),
        r"grid=\(0, 0\) has a side of 0",
    ),
    (
        "alibi-view-query-past-the-grid",
        lambda: _widgets().alibi_view(heads=4, head=0, query=64),
        r"query=64 is not a patch of the 8x8 grid",
    ),
]


# the figure helpers and explorers (h01-h14): each bad argument one line, before memory is taken
def _vit(depth=1):
    return ViT(ViTConfig(image_size=24, patch_size=8, num_classes=9, dim=32, depth=depth, heads=2)).eval()


def _images(n=4):
    return torch.rand(n, 3, 24, 24)


def _w():
    return _widgets()


API_CASES += [
    ("sincos-view-dim-0", lambda: _w().sincos_view(dim=0, base=100, position=0), r"dim=0 is below 4"),
    (
        "sincos-view-dim-negative",
        lambda: _w().sincos_view(dim=-8, base=100, position=0),
        r"dim=-8 is below 4",
    ),
    (
        "sincos-view-dim-huge",
        lambda: _w().sincos_view(dim=10**7, base=100, position=0),
        r"dim=10000000 is above",
    ),
    ("sincos-explorer-huge-grid", lambda: _w().sincos_explorer(grid=(3000, 3000)), r"9,000,000 positions"),
    ("rope-view-index-past", lambda: _w().rope_view(base=100, index=99, angle=0), r"index=99 is not one of"),
    ("rope-view-index-negative", lambda: _w().rope_view(base=100, index=-1, angle=0), r"index=-1 is not one"),
    ("rope-view-head-dim-0", lambda: _w().rope_view(base=100, index=0, angle=0, head_dim=0), r"head_dim=0"),
    ("rope-view-angle-nan", lambda: _w().rope_view(base=100, index=0, angle=math.nan), r"angle=nan is not"),
    (
        "rope-view-radius",
        lambda: _w().rope_view(base=100, index=0, angle=0, radius=-1),
        r"radius=-1 is below",
    ),
    ("rope-explorer-head-dim-2", lambda: _w().rope_explorer(head_dim=2), r"head_dim=2 is below 4"),
    (
        "alibi-view-head-past",
        lambda: _w().alibi_view(heads=4, head=99, query=0),
        r"head=99 is not one of the 4",
    ),
    ("alibi-view-head-negative", lambda: _w().alibi_view(heads=4, head=-1, query=0), r"head=-1 is not one"),
    (
        "relative-view-table-shape",
        lambda: _w().relative_view(torch.randn(2, 5, 5), (8, 8), clip=2, head=0, query=0),
        r"table is \(2, 5, 5\); pass a tensor \[heads, 15, 15\]",
    ),
    (
        "relative-view-clip",
        lambda: _w().relative_view(torch.randn(2, 15, 15), (8, 8), clip=-1, head=0, query=0),
        r"clip=-1 is below 0",
    ),
    (
        "relative-view-head",
        lambda: _w().relative_view(torch.randn(2, 15, 15), (8, 8), clip=2, head=9, query=0),
        r"head=9 is not one of the 2 heads",
    ),
    (
        "relative-view-nan",
        lambda: _w().relative_view(torch.full((2, 15, 15), math.nan), (8, 8), clip=2, head=0, query=0),
        r"table holds NaN or inf",
    ),
    (
        "attention-explorer-not-a-vit",
        lambda: _w().attention_explorer(torch.nn.Linear(3, 3), _images()),
        r"model is Linear, not a minivit ViT",
    ),
    (
        "attention-explorer-layer",
        lambda: _w().attention_explorer(_vit(), _images(), layer=5),
        r"layer=5 is not one of the 1 blocks",
    ),
    (
        "shuffle-explorer-no-models",
        lambda: _w().shuffle_explorer({}, _images(), patch_size=8),
        r"holds no models",
    ),
    (
        "shuffle-explorer-no-images",
        lambda: _w().shuffle_explorer({"a": _vit()}, _images(0), patch_size=8),
        r"images is \(0, 3, 24, 24\); pass at least one image",
    ),
    (
        "shuffle-explorer-patch-0",
        lambda: _w().shuffle_explorer({"a": _vit()}, _images(), patch_size=0),
        r"patch_size=0 is below 1",
    ),
    (
        "shuffle-explorer-patch-7",
        lambda: _w().shuffle_explorer({"a": _vit()}, _images(), patch_size=7),
        r"patch_size=7 does not divide",
    ),
    ("spiral-view-directions-0", lambda: _w().spiral_view(directions=0), r"directions=0 is below 1"),
    ("spiral-view-directions-negative", lambda: _w().spiral_view(directions=-2), r"directions=-2 is below 1"),
    ("spiral-view-radius", lambda: _w().spiral_view(directions=4, radius=-3), r"radius=-3 is below 1"),
    (
        "augment-view-alpha",
        lambda: _w().augment_view(
            _images(), torch.arange(4), 4, magnitude=0.5, alpha=-1.0, mix="mixup", seed=0
        ),
        r"alpha=-1.0 is out of range",
    ),
    (
        "augment-view-no-images",
        lambda: _w().augment_view(
            _images(0), torch.zeros(0, dtype=torch.long), 4, magnitude=0.5, alpha=0.2, mix="mixup", seed=0
        ),
        r"images is \(0, 3, 24, 24\)",
    ),
    (
        "augment-view-label-past",
        lambda: _w().augment_view(
            _images(), torch.tensor([0, 1, 2, 9]), 4, magnitude=0.5, alpha=0.2, mix="mixup", seed=0
        ),
        r"labels run from 0 to 9, outside the 4 classes",
    ),
    ("family-explorer-head-dim-3", lambda: _w().family_explorer(head_dim=3), r"head_dim=3 is below 4"),
    (
        "family-explorer-empty-grid",
        lambda: _w().family_explorer(grid=(0, 0)),
        r"grid=\(0, 0\) has a side of 0",
    ),
    ("learned-explorer-empty", lambda: _w().learned_explorer({}, (6, 6)), r"snapshots holds no snapshots"),
    ("learned-explorer-empty-run", lambda: _w().learned_explorer({"a": []}, (6, 6)), r"holds no snapshots"),
    (
        "learned-explorer-nan",
        lambda: _w().learned_explorer({"a": [(0, torch.full((36, 16), math.nan))]}, (6, 6)),
        r"table holds NaN or inf",
    ),
]


def _diverged(model):
    """A model whose weights are finite but whose outputs overflow to NaN (a diverged run's, c03)."""
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(1e30)
    return model


def _widgets():
    return pytest.importorskip("minivit.widgets")


@pytest.mark.parametrize(("call", "says"), [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_api_refuses_with_one_line(tmp_path, monkeypatch, call, says):
    monkeypatch.chdir(tmp_path)  # a call that writes where it should not writes here
    with pytest.raises(ValueError) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message, message
    assert re.search(says, message), f"{says!r} not in {message!r}"
    assert not list(tmp_path.iterdir()), "a refused call must write nothing"


def test_a_checkpoint_of_another_config_is_named(trained_run):
    with pytest.raises(ValueError, match=r"is from another config \(dim: checkpoint 16, model 64\)"):
        load_checkpoint(trained_run, ViT(ViTConfig(num_classes=4)))
