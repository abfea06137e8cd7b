import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import REGISTRY, ViT, ViTConfig
from minivit.augment import Augment
from minivit.evaluate import evaluate, predict
from minivit.train import autocast_dtype, fit, lr_at, pick_device


def brightest_channel(n, seed=0):
    """A content task: which colour channel is brightest (no position needed)."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(3, (n,), generator=g)
    images = torch.rand(n, 3, 8, 8, generator=g) * 0.5
    images[torch.arange(n), labels] += 0.5
    return TensorDataset(images, labels)


def tiny(**kw):
    return ViT(ViTConfig(image_size=8, patch_size=4, dim=16, heads=2, depth=1, num_classes=3, **kw))


def test_lr_warms_up_linearly_then_decays_to_zero():
    lrs = [lr_at(s, steps=100, lr=1.0, warmup=10) for s in range(100)]
    assert lrs[0] == pytest.approx(0.1) and lrs[9] == pytest.approx(1.0)
    assert lrs[10] == pytest.approx(1.0)
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:], strict=False))
    assert lrs[-1] < 1e-3


def test_a_constant_schedule_holds_the_rate_after_the_warmup():
    lrs = [lr_at(s, steps=100, lr=1.0, warmup=10, schedule="constant") for s in range(100)]
    assert lrs[:10] == [lr_at(s, steps=100, lr=1.0, warmup=10) for s in range(10)]  # the same warmup
    assert lrs[10:] == [1.0] * 90
    assert lr_at(0, steps=5, lr=0.3, warmup=0, schedule="constant") == 0.3


def test_fit_learns_a_content_task_and_records_history():
    train, test = brightest_channel(512), brightest_channel(256, seed=1)
    model = tiny(position="learned")
    before = evaluate(model, test)
    h = fit(model, train, steps=150, lr=3e-3, eval_data=test, eval_every=50, progress=False)
    assert len(h.loss) == len(h.step) == len(h.accuracy) == 150
    assert h.eval_step == [50, 100, 150] and len(h.eval_accuracy) == 3
    assert h.final_eval > 0.9 > before + 0.3
    assert sum(h.loss[-10:]) < sum(h.loss[:10])
    assert predict(model, test.tensors[0]).shape == (256,)


def test_fit_is_deterministic_on_cpu():
    train = brightest_channel(256)
    states = []
    for _ in range(2):
        torch.manual_seed(1)
        model = tiny(position="sincos2d")
        fit(model, train, steps=20, progress=False, seed=5)
        states.append(model.state_dict())
    for k in states[0]:
        assert torch.equal(states[0][k], states[1][k]), k


def test_stop_at_trains_the_first_steps_of_the_longer_run(tmp_path):
    """fit(steps=40, stop_at=15) is a 40-step run's first 15 steps (its schedule and batches),
    not a 15-step run; from its checkpoint, resume finishes the 40-step run."""
    train, test = brightest_channel(256), brightest_channel(64, seed=1)
    runs = {}
    for name in ("whole", "first", "short"):
        torch.manual_seed(1)
        runs[name] = tiny(position="learned")
    at_15 = {}

    def keep(step, model, history):
        if step == 15:
            at_15.update({k: v.clone() for k, v in model.state_dict().items()})

    fit(runs["whole"], train, steps=40, seed=5, eval_data=test, eval_every=5, progress=False, callback=keep)
    h = fit(
        runs["first"],
        train,
        steps=40,
        stop_at=15,
        seed=5,
        eval_data=test,
        eval_every=5,
        progress=False,
        out=tmp_path,
    )
    fit(runs["short"], train, steps=15, seed=5, progress=False)
    assert h.eval_step == [5, 10, 15] and len(h.loss) == 15
    first, short = runs["first"].state_dict(), runs["short"].state_dict()
    assert all(torch.equal(first[k], at_15[k]) for k in at_15)
    assert not all(torch.equal(short[k], at_15[k]) for k in at_15)  # another schedule: another run
    fit(runs["first"], train, steps=40, seed=5, progress=False, out=tmp_path, resume=True)
    assert all(torch.equal(runs["first"].state_dict()[k], v) for k, v in runs["whole"].state_dict().items())
    for bad in (0, 41, 2.5):
        with pytest.raises(ValueError, match="stop_at"):
            fit(tiny(position="learned"), train, steps=40, stop_at=bad, progress=False)


def test_pick_device():
    assert pick_device("cpu") == torch.device("cpu")
    assert pick_device().type in {"cpu", "cuda", "mps"}


def test_fit_with_sgd_and_an_unknown_optimizer():
    model = tiny()
    history = fit(model, brightest_channel(64), steps=3, batch_size=16, optimizer="sgd", progress=False)
    assert len(history.loss) == 3
    with pytest.raises(ValueError, match="unknown optimizer 'lion'; known: adamw, sgd"):
        fit(tiny(), brightest_channel(64), steps=1, optimizer="lion", progress=False)


def test_position_lr_scale_slows_only_the_encoding():
    moved = {}
    for scale in (1.0, 0.01):
        torch.manual_seed(0)
        model = tiny(position="learned", position_options={"init": "normal", "std": 0.5})
        table, head = model.pos.table.detach().clone(), model.head.weight.detach().clone()
        fit(model, brightest_channel(64), steps=5, batch_size=16, position_lr_scale=scale, progress=False)
        moved[scale] = (
            (model.pos.table - table).abs().max().item(),
            (model.head.weight - head).abs().max().item(),
        )
    assert moved[0.01][0] < moved[1.0][0] / 20  # the table moves ~100x less
    assert moved[0.01][1] > moved[1.0][1] / 3  # the rest trains as before
    with pytest.raises(ValueError, match="encoding has parameters"):
        fit(tiny(position="sincos2d"), brightest_channel(16), steps=1, position_lr_scale=0.1, progress=False)


def test_fit_learns_through_the_whole_augmentation_recipe():
    train, test = brightest_channel(512), brightest_channel(256, seed=1)
    model = tiny(position="learned")
    h = fit(model, train, steps=150, lr=3e-3, augment=Augment.recipe("deit"), eval_data=test, progress=False)
    assert h.final_eval > 0.9  # which channel is brightest survives crops, flips, mixing and erasing
    assert min(h.accuracy) < 1  # the batches really were changed (mixed targets are hard to fit)


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("position", list(REGISTRY))
def test_every_encoding_trains_in_mixed_precision(position, precision):
    """The GPU's mixed precision path, run on the CPU: autocast to bf16 (or fp16 with loss scaling)."""
    torch.manual_seed(0)
    model = ViT(
        ViTConfig(image_size=8, patch_size=2, dim=16, heads=2, depth=2, num_classes=3, position=position)
    )
    h = fit(
        model, brightest_channel(128), steps=20, batch_size=32, lr=3e-3, precision=precision, progress=False
    )
    assert all(torch.isfinite(torch.tensor(h.loss)))
    assert sum(h.loss[-5:]) < sum(h.loss[:5])
    assert all(p.dtype == torch.float32 for p in model.parameters())  # weights stay fp32


def test_precision_choices():
    assert autocast_dtype(torch.device("cpu")) is None  # auto: fp32 on a CPU
    assert autocast_dtype(torch.device("cpu"), "bf16") == torch.bfloat16
    with pytest.raises(ValueError, match="known: auto, bf16, fp16, fp32"):
        autocast_dtype(torch.device("cpu"), "fp8")


def test_batch_must_split_over_processes(monkeypatch):
    monkeypatch.setattr("minivit.train.world", lambda: (0, 3))
    with pytest.raises(
        ValueError, match="batch size 32 does not split over 3 processes; use a multiple of 3"
    ):
        fit(tiny(), brightest_channel(64), steps=1, batch_size=32, progress=False)


@pytest.mark.slow
def test_compiled_model_trains_like_the_eager_one():
    states = []
    for compile in (False, True):
        torch.manual_seed(1)
        model = tiny(position="rope-axial")
        h = fit(model, brightest_channel(256), steps=10, batch_size=32, compile=compile, progress=False)
        states.append((h.loss, model.state_dict()))
    assert torch.allclose(torch.tensor(states[0][0]), torch.tensor(states[1][0]), atol=1e-4)
