"""Nothing a user trained is lost: atomic checkpoints, bitwise resume, a clean stop on NaN."""

import errno
from pathlib import Path

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import ViT, ViTConfig
from minivit.augment import Augment
from minivit.runsafety import SaveFailed
from minivit.train import CHECKPOINT, TrainingDiverged, fit, load_checkpoint, load_model, save_checkpoint


def data(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(3, (n,), generator=g)
    x = torch.rand(n, 3, 8, 8, generator=g) * 0.5
    x[torch.arange(n), y] += 0.5
    return TensorDataset(x, y)


def tiny(dim=16, **kw):
    torch.manual_seed(0)
    return ViT(
        ViTConfig(image_size=8, patch_size=4, dim=dim, heads=2, depth=1, num_classes=3, dropout=0.1, **kw)
    )


class Interrupt(Exception):
    pass


@pytest.mark.parametrize("augment", [None, Augment.recipe("deit")], ids=["plain", "augmented"])
def test_an_interrupted_run_resumed_ends_with_the_same_weights_bitwise(tmp_path, augment):
    kw = dict(steps=13, batch_size=32, checkpoint_every=4, progress=False, seed=3, augment=augment)
    straight = tiny()
    h_straight = fit(straight, data(), out=tmp_path / "a", **kw)

    def stop_at_7(step, model, history):
        if step == 7:
            raise Interrupt

    first = tiny()
    with pytest.raises(Interrupt):
        fit(first, data(), out=tmp_path / "b", callback=stop_at_7, **kw)
    assert load_checkpoint(tmp_path / "b")["step"] == 4
    resumed = ViT(first.config)  # a fresh process would build a new, differently initialised model
    h_resumed = fit(resumed, data(), out=tmp_path / "b", resume=True, **kw)
    for (name, a), b in zip(straight.state_dict().items(), resumed.state_dict().values(), strict=True):
        assert torch.equal(a, b), name
    assert h_resumed.loss == h_straight.loss and h_resumed.step == list(range(13))
    assert load_checkpoint(tmp_path / "b")["step"] == 13


def test_resume_with_other_settings_is_refused(tmp_path):
    fit(tiny(), data(), steps=4, out=tmp_path, progress=False)
    with pytest.raises(ValueError, match=r"other settings \(steps: 4 then, 8 now\)"):
        fit(tiny(), data(), steps=8, out=tmp_path, resume=True, progress=False)


def test_a_crash_mid_write_leaves_the_previous_checkpoint_loadable(tmp_path, monkeypatch):
    path = tmp_path / CHECKPOINT
    save_checkpoint({"step": 1, "w": torch.ones(3)}, path)

    def crash(obj, f, *a, **k):
        f.write(b"half a checkpoint")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(
        SaveFailed, match=r"cannot write .* \(No space left on device\); its previous version is kept; free"
    ):
        save_checkpoint({"step": 2, "w": torch.zeros(3)}, path)
    monkeypatch.undo()
    state = load_checkpoint(path)
    assert state["step"] == 1 and torch.equal(state["w"], torch.ones(3))
    # no temporary file left; the checksum beside the checkpoint is still the previous one's
    assert sorted(p.name for p in tmp_path.iterdir()) == [CHECKPOINT, CHECKPOINT + ".sha256"]


def test_nan_stops_the_run_and_keeps_the_last_good_checkpoint(tmp_path):
    def poison(step, model, history):
        if step == 5:
            with torch.no_grad():
                model.head.weight.fill_(float("nan"))

    with pytest.raises(
        TrainingDiverged, match=r"loss became nan at step 6; the last good checkpoint \(step 4\)"
    ):
        fit(tiny(), data(), steps=20, checkpoint_every=2, out=tmp_path, callback=poison, progress=False)
    state = load_checkpoint(tmp_path)
    assert state["step"] == 4 and all(torch.isfinite(v).all() for v in state["model"].values())


def test_without_a_callback_a_nan_is_seen_within_sync_every_steps_and_never_checkpointed(tmp_path):
    model = tiny()
    real_forward = model.forward

    def forward(images):  # from step 6 on (steps counted from 1) the loss is NaN
        forward.calls += 1
        logits = real_forward(images)
        return logits * float("nan") if forward.calls >= 6 else logits

    forward.calls = 0
    model.forward = forward
    with pytest.raises(
        TrainingDiverged, match=r"loss became nan at step 6; the last good checkpoint \(step 4\)"
    ):
        fit(model, data(), steps=40, checkpoint_every=4, sync_every=5, out=tmp_path, progress=False)
    state = load_checkpoint(tmp_path)  # step 8 was due, but its loss was read first
    assert state["step"] == 4 and all(torch.isfinite(v).all() for v in state["model"].values())
    assert forward.calls <= 8  # stopped at the next read, before step 9


def test_reading_the_loss_less_often_changes_nothing_but_when_it_is_read():
    every_step = fit(tiny(), data(), steps=12, batch_size=32, sync_every=1, progress=False)
    every_five = fit(tiny(), data(), steps=12, batch_size=32, sync_every=5, progress=False)
    assert every_step == every_five and len(every_five.loss) == 12


def test_weights_that_turn_nan_are_never_checkpointed(tmp_path):
    def poison(step, model, history):
        if step == 4:  # after step 4's update, before its checkpoint
            with torch.no_grad():
                model.head.bias.fill_(float("inf"))

    with pytest.raises(
        TrainingDiverged, match=r"weights became NaN or inf at step 4; the last good checkpoint \(step 2\)"
    ):
        fit(tiny(), data(), steps=20, checkpoint_every=2, out=tmp_path, callback=poison, progress=False)


def test_loading_into_another_config_names_the_fields_that_differ(tmp_path):
    fit(tiny(), data(), steps=2, out=tmp_path, progress=False)
    with pytest.raises(
        ValueError,
        match=r"another config \(dim: checkpoint 16, model 32; "
        r"position: checkpoint 'learned', model 'sincos2d'\)",
    ):
        load_checkpoint(tmp_path, tiny(dim=32, position="sincos2d"))
    model = load_model(tmp_path)
    ref = tiny()
    load_checkpoint(tmp_path / CHECKPOINT, ref)
    x = data(4, seed=9).tensors[0]
    torch.testing.assert_close(model(x), ref.eval()(x))


def test_missing_checkpoint_says_how_to_make_one(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no checkpoint at .*; train first"):
        load_checkpoint(Path(tmp_path))
