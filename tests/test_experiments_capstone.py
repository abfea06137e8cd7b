"""The capstone comparison: one code path for CIFAR-10 on a GPU and the stand-in on a CPU."""

import json
from dataclasses import replace

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import ViTConfig
from minivit.data.tasks import TaskData
from minivit.experiments import capstone, read_result

TINY = replace(capstone.SETTINGS["stand-in"], dim=16, heads=2, epochs=1, train_examples=256)


def fake_cifar(n=64):
    g = torch.Generator().manual_seed(0)
    train = TensorDataset(torch.rand(n, 3, 32, 32, generator=g), torch.randint(10, (n,), generator=g))
    return TaskData("cifar10", train, train, 3, 10, 32, lambda s: train)


def test_train_flops_counts_every_matrix_product():
    config = ViTConfig(image_size=32, patch_size=4, num_classes=10, dim=64, depth=2, heads=2, position="none")
    T, D, L, K, patch = 64, 64, 2, 10, 3 * 4 * 4
    blocks = 6 * T * L * 12 * D * D  # qkv, proj and the MLP: 12 D^2 weights, 6 FLOPs each per token
    embed = 4 * T * patch * D  # forward and weight gradient (the images need no gradient)
    head = 6 * D * K  # once per image
    attention = 12 * T * T * D * L  # q k^T and weights v, forward and backward
    assert capstone.train_flops(config) == pytest.approx(blocks + embed + head + attention, rel=1e-9)
    biased = capstone.train_flops(config.with_(position="alibi2d"))
    assert biased == capstone.train_flops(config)  # a bias adds no matrix products


def test_run_one_measures_accuracy_speed_and_flops():
    data = capstone.load(TINY)
    assert len(data.train) == 256
    row = capstone.run_one(TINY, data, "rope-axial", progress=False)
    assert row["steps"] == 4 and len(row["loss"]) == 4
    assert 0 <= row["test_accuracy"] <= 1 and row["images_per_second"] > 0
    assert row["achieved_tflops"] == pytest.approx(
        row["train_flops_per_image"] * 4 * TINY.batch_size / row["train_seconds"] / 1e12
    )


def test_the_gpu_setting_runs_the_same_path_with_its_augmentation(monkeypatch):
    setting = replace(capstone.SETTINGS["cifar10-long"], dim=16, heads=2, depth=1, epochs=1, batch_size=32)
    monkeypatch.setattr(capstone, "load", lambda s, **kw: fake_cifar())
    monkeypatch.setitem(capstone.SETTINGS, "tiny-gpu", setting)
    result = capstone.run("tiny-gpu", ("sincos2d", "relative"), progress=False, device="cpu")
    assert [r["encoding"] for r in result["rows"]] == ["sincos2d", "relative"]
    assert result["device"] == "cpu" and result["precision"] == "float32"
    assert setting.augment.mixup and setting.augment.randaugment  # the recipe went through fit
    lines = capstone.table(result).splitlines()
    assert lines[0].startswith("CIFAR-10, 100 epochs") and len(lines) == 6


def test_main_writes_the_comparison_with_provenance(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(capstone.SETTINGS, "tiny", TINY)
    out = tmp_path / "capstone.json"
    capstone.main(["--setting", "tiny", "--encodings", "none", "learned", "--out", str(out)])
    result = read_result(out)
    assert [r["encoding"] for r in result["rows"]] == ["none", "learned"]
    assert result["provenance"]["command"].startswith("python -m minivit.experiments.capstone --setting tiny")
    assert "| encoding | test accuracy |" in capsys.readouterr().out
    assert json.loads(out.read_text())["setting_fields"]["epochs"] == "1"


def test_main_records_several_seeds_and_carries_on_from_the_seeds_already_written(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setitem(capstone.SETTINGS, "tiny", TINY)
    out = tmp_path / "seeds.json"
    args = ["--setting", "tiny", "--encodings", "none", "learned", "--out", str(out)]
    capstone.main([*args, "--seeds", "0"])
    first = read_result(out)
    ran = []
    real_run = capstone.run
    monkeypatch.setattr(
        capstone, "run", lambda *a, seed, **kw: ran.append(seed) or real_run(*a, seed=seed, **kw)
    )
    capstone.main([*args, "--seeds", "0", "1"])
    assert ran == [1]  # seed 0 was written already
    result = read_result(out)
    assert [r["seed"] for r in result["runs"]] == [0, 1] and result["runs"][0] == first["runs"][0]
    summary = result["summary"]["learned"]
    accs = [
        next(r["test_accuracy"] for r in run["rows"] if r["encoding"] == "learned") for run in result["runs"]
    ]
    assert summary["accuracies"] == accs and summary["seeds"] == 2
    assert summary["mean"] == pytest.approx(sum(accs) / 2)
    assert result["earlier"] == [first["provenance"]]
    assert "over 2 seeds" in capsys.readouterr().out

    monkeypatch.setitem(capstone.SETTINGS, "tiny", replace(TINY, epochs=2))
    with pytest.raises(SystemExit):
        capstone.main([*args, "--seeds", "0", "1"])
    assert "holds a comparison with other settings" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        capstone.main(["--setting", "tiny", "--encodings", "rope"])
    assert "unknown encodings rope; choose from none, learned" in capsys.readouterr().err
