"""fit_ensemble: K models trained as one end where their own `fit` runs end."""

import copy

import pytest
import torch

from minivit import ViT, ViTConfig
from minivit.augment import Augment
from minivit.ensemble import fit_ensemble
from minivit.train import TrainingDiverged, fit, seed_everything
from tests.test_checkpoint import data


def models(seeds, **kw):
    out = []
    for seed in seeds:
        seed_everything(seed)
        shape = {"image_size": 8, "patch_size": 4, "dim": 16, "heads": 2, "depth": 2, "num_classes": 3}
        out.append(ViT(ViTConfig(**{**shape, **kw})))
    return out


@pytest.mark.parametrize(
    "options",
    [
        dict(lr=3e-3, grad_clip=0.5, label_smoothing=0.1),  # clipping bites: it must be per member
        dict(lr=3e-3, optimizer="sgd", schedule="constant", warmup=0),
        dict(lr=3e-3, position_lr_scale=10.0, weight_decay=0.1),
    ],
    ids=["adamw-clip", "sgd", "position-lr"],
)
def test_each_member_ends_where_its_own_fit_run_ends(options):
    seeds = [0, 1, 2]
    ensemble, singles = models(seeds), models(seeds)
    kw = dict(steps=30, batch_size=32, progress=False, **options)
    histories = fit_ensemble(ensemble, data(), seeds=seeds, eval_data=data(64, seed=1), **kw)
    for seed, model, single, history in zip(seeds, ensemble, singles, histories, strict=True):
        alone = fit(single, data(), seed=seed, eval_data=data(64, seed=1), **kw)
        # float32 rounding (batched products, attention written out) and nothing else: 1e-4 after 30 steps
        for (name, p), q in zip(model.named_parameters(), single.parameters(), strict=True):
            torch.testing.assert_close(p, q, atol=1e-4, rtol=1e-4, msg=f"member {seed}, {name}")
        torch.testing.assert_close(history.loss, alone.loss, atol=1e-4, rtol=1e-4)
        assert history.accuracy == pytest.approx(alone.accuracy, abs=1 / 32 + 1e-6)  # one image at most
        assert history.eval_step == alone.eval_step and len(history.eval_accuracy) == 10


@pytest.mark.parametrize("position", ["relative", "rope-mixed", "alibi2d"])
def test_members_with_their_own_data_and_augmentation_end_where_their_fit_runs_end(position):
    seeds = [0, 1, 2]
    ensemble, singles = models(seeds, position=position), models(seeds, position=position)
    trains = [data(seed=10 + s) for s in seeds]
    augment = Augment(resized_crop=(0.5, 1.0), flip=True, mixup=0.5)
    kw = dict(steps=20, batch_size=32, lr=3e-3, augment=augment, progress=False)
    histories = fit_ensemble(ensemble, trains, seeds=seeds, eval_data=trains, **kw)
    for seed, model, single, history, train in zip(seeds, ensemble, singles, histories, trains, strict=True):
        alone = fit(single, train, seed=seed, eval_data=train, **kw)
        for (name, p), q in zip(model.named_parameters(), single.parameters(), strict=True):
            torch.testing.assert_close(p, q, atol=1e-4, rtol=1e-4, msg=f"member {seed}, {name}")
        torch.testing.assert_close(history.loss, alone.loss, atol=1e-4, rtol=1e-4)
        assert history.eval_accuracy == pytest.approx(alone.eval_accuracy, abs=1 / 256 + 1e-6)


def test_training_sets_of_other_sizes_or_counts_are_named():
    with pytest.raises(ValueError, match=r"member 1's training images are \(128, 3, 8, 8\) and member 0's"):
        fit_ensemble(models([0, 1]), [data(), data(128)], seeds=[0, 1], steps=1, progress=False)
    with pytest.raises(ValueError, match=r"train holds 3 datasets for 2 models; pass one, or one per model"):
        fit_ensemble(models([0, 1]), [data()] * 3, seeds=[0, 1], steps=1, progress=False)


def test_members_with_other_seeds_and_inits_differ_and_all_learn():
    ensemble = models([0, 1])
    before = [copy.deepcopy(m) for m in ensemble]
    histories = fit_ensemble(ensemble, data(), seeds=[5, 6], steps=60, lr=3e-3, progress=False)
    for model, old, h in zip(ensemble, before, histories, strict=True):
        assert not torch.equal(model.head.weight, old.head.weight)  # written back into the models
        assert sum(h.loss[-10:]) < sum(h.loss[:10])
    assert histories[0].loss != histories[1].loss


def test_models_of_another_shape_or_a_missing_seed_are_named():
    with pytest.raises(ValueError, match=r"model 1 does not have the shape of model 0"):
        fit_ensemble([*models([0]), *models([1], dim=32)], data(), seeds=[0, 1], steps=1, progress=False)
    with pytest.raises(ValueError, match=r"one seed per model: got 2 models and 1 seeds"):
        fit_ensemble(models([0, 1]), data(), seeds=[0], steps=1, progress=False)
    with pytest.raises(ValueError, match=r"no fp16 loss scaling; use precision='bf16' or 'fp32'"):
        fit_ensemble(models([0]), data(), seeds=[0], steps=1, precision="fp16", device="cpu", progress=False)


def test_a_member_whose_loss_turns_nan_is_named():
    ensemble = models([0, 1])
    with torch.no_grad():
        ensemble[1].head.weight.fill_(float("nan"))
    with pytest.raises(TrainingDiverged, match=r"loss of member 1 \(seed 7\) became nan at step 1"):
        fit_ensemble(ensemble, data(), seeds=[3, 7], steps=5, progress=False)


@pytest.mark.slow
def test_a_compiled_ensemble_trains_like_the_eager_one():
    kw = dict(seeds=[0, 1], steps=10, batch_size=32, lr=3e-3, progress=False)
    eager, compiled = models([0, 1]), models([0, 1])
    h_eager = fit_ensemble(eager, data(), **kw)
    h_compiled = fit_ensemble(compiled, data(), compile=True, **kw)
    for a, b in zip(h_eager, h_compiled, strict=True):
        torch.testing.assert_close(a.loss, b.loss, atol=1e-4, rtol=1e-4)
    for a, b in zip(eager, compiled, strict=True):
        for (name, p), q in zip(a.named_parameters(), b.parameters(), strict=True):
            torch.testing.assert_close(p, q, atol=1e-4, rtol=1e-4, msg=name)


@pytest.mark.slow
def test_a_compiled_ensemble_with_dropout_learns():
    ensemble = models([0, 1], dropout=0.1)
    histories = fit_ensemble(ensemble, data(), seeds=[0, 1], steps=60, lr=3e-3, compile=True, progress=False)
    for h in histories:
        assert sum(h.loss[-10:]) < sum(h.loss[:10])


def test_an_ensemble_too_large_for_the_memory_is_refused_before_it_is_built(monkeypatch):
    monkeypatch.setattr("minivit.memory.device_memory", lambda device: 10**6)
    with pytest.raises(
        ValueError, match=r"this run needs about .* more than the 1\.0 MB this machine has free"
    ):
        fit_ensemble(models([0, 1]), data(), seeds=[0, 1], steps=1, progress=False)


def test_the_callback_sees_every_member_written_back_at_each_eval_point():
    members = models([0, 1])
    seen = []

    def callback(step, members, histories):
        assert members is not None and len(members) == len(histories) == 2
        seen.append((step, [m.head.weight.detach().clone() for m in members]))

    fit_ensemble(members, data(), seeds=[0, 1], steps=6, eval_every=3, progress=False, callback=callback)
    assert [step for step, _ in seen] == [3, 6]
    assert not torch.equal(seen[0][1][0], seen[1][1][0])  # the weights as they were at step 3, then 6
    for model, weight in zip(members, seen[1][1], strict=True):
        torch.testing.assert_close(model.head.weight, weight)  # the last is the end
    with pytest.raises(ValueError, match="callback=3 is not a function"):
        fit_ensemble(members, data(), seeds=[0, 1], steps=1, progress=False, callback=3)
