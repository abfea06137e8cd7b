"""Null runs (`minivit.nulls`): what MINIVIT_NULL takes away from training, and what it keeps."""

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import lesson, nulls
from minivit.ensemble import fit_ensemble
from minivit.evaluate import evaluate
from minivit.model import ViT, ViTConfig
from minivit.train import fit


def test_an_unknown_null_is_named_with_the_choices(monkeypatch):
    monkeypatch.setenv("MINIVIT_NULL", "label")
    with pytest.raises(ValueError, match=r"MINIVIT_NULL='label' is not a null run; use one of labels, noise"):
        nulls.kind()
    monkeypatch.setenv("MINIVIT_NULL", "")
    assert nulls.kind() is None


def test_shuffled_labels_keep_the_images_and_the_label_counts():
    images = torch.randn(200, 3, 8, 8)
    labels = torch.arange(200) % 4
    extra = torch.arange(200)  # a regression's mask or targets move with the labels
    out = nulls.shuffled(TensorDataset(images, labels, extra), seed=3)
    assert out.tensors[0] is images
    assert torch.equal(torch.bincount(out.tensors[1]), torch.bincount(labels))
    assert (out.tensors[1] != labels).float().mean() > 0.5  # most labels moved
    assert torch.equal(out.tensors[1], labels[out.tensors[2]])  # one permutation for both
    again = nulls.shuffled(TensorDataset(images, labels, extra), seed=3)
    assert torch.equal(again.tensors[1], out.tensors[1])  # seeded


def test_noise_gradients_keep_each_gradient_size_and_lose_its_direction(monkeypatch):
    monkeypatch.setenv("MINIVIT_NULL", "noise")
    p = torch.nn.Parameter(torch.zeros(3, 5))
    p.grad = torch.ones(3, 5)
    stacked = torch.nn.Parameter(torch.zeros(2, 4))
    stacked.grad = torch.tensor([[1.0, 1, 1, 1], [10.0, 0, 0, 0]])
    nulls.NoiseGradients(0, torch.device("cpu"))([p])
    nulls.NoiseGradients(0, torch.device("cpu"), members=2)([stacked])
    assert abs(p.grad.norm().item() - 15**0.5) < 1e-5
    assert torch.allclose(stacked.grad.norm(dim=1), torch.tensor([2.0, 10.0]))  # each member its own
    assert abs(torch.nn.functional.cosine_similarity(p.grad.flatten(), torch.ones(15), dim=0)) < 0.9


def _task(n=256, seed=0):
    """A task a model learns in a few dozen steps: the class is which quadrant holds the bright patch."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 4, (n,), generator=g)
    images = 0.1 * torch.randn(n, 1, 8, 8, generator=g)
    for i, c in enumerate(labels.tolist()):
        r, col = divmod(c, 2)
        images[i, 0, 4 * r : 4 * r + 4, 4 * col : 4 * col + 4] += 1.0
    return TensorDataset(images, labels)


@pytest.mark.parametrize("null", ["", "labels"])
def test_a_model_learns_the_task_and_its_shuffled_label_null_does_not(monkeypatch, null):
    monkeypatch.setenv("MINIVIT_NULL", null)
    torch.manual_seed(0)
    config = ViTConfig(image_size=8, patch_size=4, in_channels=1, num_classes=4, dim=16, depth=1, heads=2)
    model, pair = ViT(config), [ViT(config), ViT(config)]
    fit(model, _task(), steps=60, batch_size=64, lr=3e-3, progress=False)
    fit_ensemble(pair, _task(), seeds=[0, 1], steps=60, batch_size=64, lr=3e-3, progress=False)
    scores = [evaluate(m, _task(seed=1)) for m in (model, *pair)]
    if null:
        assert max(scores) < 0.45, scores  # chance is 0.25 (256 test images: 0.45 is 7 s.e. above)
    else:
        assert min(scores) > 0.7, scores  # 0.82-0.93 here


def test_a_claim_says_what_it_is_about():
    with pytest.raises(ValueError, match=r"about='trained' is not one of task, training, absence, untrained"):
        lesson.claim("x", 1.0, ">", 0.0, about="trained")
    lesson.claim("x", 1.0, ">", 0.0, about="absence")  # passes: nothing raised


def test_a_claim_with_nothing_to_check_misses(monkeypatch, tmp_path):
    """A claim over an empty set (no model qualified) cannot be shown: it misses, it does not crash."""
    monkeypatch.setenv("MINIVIT_STRICT", "1")
    with pytest.raises(AssertionError, match=r"those that learned: nan \(at nothing to check\)"):
        lesson.claim("those that learned", {}, ">", 0.5)
    path = tmp_path / "claims.jsonl"
    monkeypatch.setenv("MINIVIT_CLAIMS", str(path))
    lesson.claim("those that learned", [], ">", 0.5)
    assert '"passed": false' in path.read_text() and "-Infinity" in path.read_text()
