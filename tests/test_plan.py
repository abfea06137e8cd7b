"""The plan of a run (`minivit.plan`): the options checked once, before any data is made or folder
written, and handed to `fit_plan`, which trains exactly as `fit` given the same options."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
import torch

import minivit.cli.training as training
import minivit.plan
from minivit.augment import Augment
from minivit.cli import main
from minivit.plan import Plan, plan_for, plan_run
from minivit.train import check_fit_options, fit, fit_plan
from tests.test_train import brightest_channel, tiny

BASE = ["train", "--task", "relation", "--train-size", "64", "--test-size", "16", "--quiet"]
OPTIONS = dict(
    steps=6,
    batch_size=16,
    lr=3e-3,
    weight_decay=0.05,
    label_smoothing=0.1,
    grad_clip=0.5,
    augment=Augment(flip=True),
    sync_every=2,
    seed=3,
)


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(
        torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


@pytest.mark.parametrize("made_by", ["plan_for", "plan_run"])
def test_fit_given_a_plan_trains_bit_for_bit_as_fit_given_the_options(made_by, tmp_path):
    train, test = brightest_channel(64), brightest_channel(32, seed=1)
    torch.manual_seed(0)
    by_options = tiny()
    torch.manual_seed(0)
    by_plan = tiny()
    history = fit(
        by_options, train, eval_data=test, progress=False, device="cpu", out=tmp_path / "a", **OPTIONS
    )
    if made_by == "plan_for":
        plan = plan_for(by_plan, train, check_fit_options(**OPTIONS), device="cpu", eval_size=32, **OPTIONS)
    else:  # as the command makes it: from the config, before the data
        plan = plan_run(by_plan.config, examples=64, data_bytes=0, evaluated=32, device="cpu", **OPTIONS)
    planned = fit_plan(by_plan, train, plan, eval_data=test, progress=False, out=tmp_path / "b")
    assert planned.loss == history.loss and planned.eval_accuracy == history.eval_accuracy
    assert same_weights(by_options, by_plan)


def test_a_plan_holds_what_the_run_needs_and_cannot_change():
    config = tiny().config
    plan = plan_run(config, examples=64, data_bytes=0, evaluated=1000, device="cpu", **OPTIONS)
    assert plan.config == config and plan.settings == check_fit_options(**OPTIONS)
    assert (plan.device.type, plan.processes, plan.batch, plan.evaluation_batch) == ("cpu", 1, 16, 512)
    assert plan.parameters == sum(p.numel() for p in tiny().parameters())
    assert plan.sync_every == 2 and plan.augment == Augment(flip=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.batch = 1  # type: ignore[misc]
    # the command passes no sync_every: its plan reads the device as often as fit does by default
    default = plan_run(config, examples=64, data_bytes=0, steps=1, batch_size=8, lr=1e-3)
    assert default.sync_every == inspect.signature(fit).parameters["sync_every"].default


@pytest.mark.parametrize(
    "options, says",
    [
        (dict(batch_size=32, processes=3), "batch size 32 does not split over 3 processes"),
        (dict(batch_size=0), "batch_size=0"),
        (dict(device="nonsense"), "device='nonsense' is not a device"),
        (dict(augment=Augment.recipe("light"), image_size=4), "augmentation with crop=4"),
    ],
)
def test_plan_run_refuses_before_anything_is_built(options, says):
    image_size = options.pop("image_size", 8)
    config = tiny().config.with_(image_size=image_size, patch_size=4)
    given = dict(steps=1, batch_size=8, lr=1e-3) | options
    with pytest.raises(ValueError, match=says):
        plan_run(config, examples=64, data_bytes=0, **given)


def test_fit_plan_refuses_a_model_the_plan_was_not_made_for():
    plan = plan_run(tiny().config, examples=64, data_bytes=0, device="cpu", steps=1, batch_size=8, lr=1e-3)
    with pytest.raises(ValueError, match="not the one the plan was made for"):
        fit_plan(tiny(position="sincos2d"), brightest_channel(64), plan, progress=False)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--steps", "0"], "--steps=0"),
        (["--lr", "0"], "--lr=0"),
        (["--device", "nonsense"], "device='nonsense' is not a device"),
        (["--task", "lst", "--augment", "light"], "augmentation with crop=4"),
        (["--dim", "256", "--image-size", "48", "--batch-size", "256"], "more than the 1.0 MB this machine"),
    ],
)
def test_the_command_refuses_before_any_data_or_folder_exists(argv, says, tmp_path, capsys, monkeypatch):
    def made(*args, **kwargs):
        raise AssertionError("the data was made")

    monkeypatch.setattr(training, "load_task", made)
    monkeypatch.setattr(minivit.plan, "host_memory", lambda: 10**6 if "--dim" in argv else None)
    out = tmp_path / "run"
    assert main([*BASE, *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("minivit: error: ") and says in err and "\n" not in err
    assert not out.exists() and not list(tmp_path.iterdir())


def test_the_command_makes_one_plan_and_hands_it_to_fit_plan(tmp_path, monkeypatch):
    made, handed, checked = [], [], []

    def planning(*args, **kwargs):
        made.append(plan_run(*args, **kwargs))
        return made[-1]

    def training_with(model, train, plan, **kwargs):
        handed.append(plan)
        return fit_plan(model, train, plan, **kwargs)

    def counted(*args, **kwargs):
        checked.append(kwargs)
        return check_fit_options(*args, **kwargs)

    monkeypatch.setattr(training, "plan_run", planning)
    monkeypatch.setattr(training, "fit_plan", training_with)
    monkeypatch.setattr(minivit.plan, "check_fit_options", counted)
    monkeypatch.setattr("minivit.train.plan_for", lambda *a, **k: pytest.fail("fit made a plan of its own"))
    monkeypatch.setattr(
        minivit.plan.memory, "check_training", lambda *a, **k: pytest.fail("memory checked twice")
    )
    argv = [*BASE, "--steps", "3", "--dim", "32", "--batch-size", "16", "--lr", "0.01", "--seed", "2"]
    assert main([*argv, "--grad-clip", "0", "--out", str(tmp_path / "run")]) == 0
    assert len(made) == len(handed) == len(checked) == 1 and handed[0] is made[0]
    plan = handed[0]
    assert isinstance(plan, Plan) and plan.config.dim == 32 and plan.processes == 1
    s = plan.settings
    assert (s.steps, s.batch_size, s.lr, s.seed, s.grad_clip) == (3, 16, 0.01, 2, None)
    assert plan.batch == 16 and plan.evaluation_batch == 64  # the train set (64) and test set (16)
