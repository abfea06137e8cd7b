import functools
import json
from dataclasses import replace

import pytest
import torch

from minivit.experiments import resolution


def test_variants_that_share_weights_train_once():
    assert resolution.trainings(("none", "learned", "learned-antialias", "rope-mixed-interp")) == {
        "none": ["none"],
        "learned": ["learned", "learned-antialias"],
        "rope-mixed-interp": ["rope-mixed-interp"],
    }
    assert set(resolution.VARIANTS) >= {"none", "learned", "sincos2d", "relative", "rope-axial", "alibi2d"}


def test_evaluated_as_keeps_the_weights_and_changes_only_the_resize(tiny_resolution):
    from minivit import ViT

    torch.manual_seed(0)
    model = ViT(tiny_resolution().config("learned", 9, 3)).eval()
    other = resolution.evaluated_as(model, "learned-antialias")
    assert other.pos.antialias and not model.pos.antialias
    x = torch.rand(2, 3, 16, 16)
    torch.testing.assert_close(other(x), model(x))  # same grid: no resampling, same output
    small = torch.rand(2, 3, 8, 8)
    assert not torch.allclose(other(small), model(small))  # shrinking: antialias differs
    assert resolution.evaluated_as(model, "learned") is model


def test_run_seed_evaluates_every_variant_at_every_size(tiny_resolution):
    tiny = tiny_resolution()
    records, models = resolution.run_seed(tiny, 0, progress=False, keep_models=True)
    assert [r["variant"] for r in records] == list(tiny.variants)
    assert all(list(r["accuracy"]) == ["8", "16", "24"] for r in records)
    assert set(models) == set(tiny.variants)
    summary = resolution.summarize(records + resolution.run_seed(tiny, 1, progress=False)[0])
    s = summary["odd_one_out"]["learned"]
    assert s["sizes"] == [8, 16, 24] and s["seeds"] == 2 and len(s["std"]) == 3
    order = resolution.order_above(summary["odd_one_out"], 16)
    assert sorted(order) == sorted(tiny.variants)
    means = [summary["odd_one_out"][v]["mean"][2] for v in order]
    assert means == sorted(means, reverse=True)


def test_seeds_trained_at_once_end_where_each_seed_alone_ends(tiny_resolution):
    setting = tiny_resolution(resized_crop=(0.5, 1.0), steps=10)
    records, together = resolution.run_seeds(setting, [0, 1], progress=False, keep_models=True)
    assert [(r["seed"], r["variant"]) for r in records] == [
        (s, v)
        for pair in (("learned", "learned-antialias"), ("rope-mixed", "rope-mixed-interp"))
        for s in (0, 1)
        for v in pair
    ]
    for seed in (0, 1):
        alone = resolution.run_seed(setting, seed, progress=False, keep_models=True)[1]
        for variant in setting.variants:
            for (name, p), q in zip(
                together[variant, seed].named_parameters(), alone[variant].parameters(), strict=True
            ):
                torch.testing.assert_close(p, q, atol=1e-4, rtol=1e-4, msg=f"{variant}, seed {seed}, {name}")


def test_finetune_at_a_new_size_resamples_then_trains(tmp_path, tiny_resolution):
    from minivit import ViT

    torch.manual_seed(0)
    tiny = tiny_resolution()
    model = ViT(tiny.config("learned", 9, 3)).eval()
    data = resolution.load(tiny).at_size(24)
    tuned = resolution.finetune(model, data, steps=2)
    assert tuned.config.image_size == (24, 24) and tuned.pos.table.shape[1] == 36
    assert tuned(data.tensors[0][:2]).shape == (2, 9)


def test_main_writes_results_with_provenance(tmp_path, tiny_resolution):
    tiny = tiny_resolution()
    out = tmp_path / "res.json"
    resolution.main(["--settings", "tiny", "--seeds", "2", "--quiet", "--threads", "1", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["provenance"]["command"] == (
        f"python -m minivit.experiments.resolution --settings tiny --seeds 2 --quiet --threads 1 --out {out}"
    )
    assert len(result["runs"]) == 2 * len(tiny.variants)
    assert result["summary"]["tiny"]["rope-mixed"]["seeds"] == 2
    from minivit.experiments import read_result

    assert read_result(out) == result
    with pytest.raises(SystemExit):
        resolution.main(["--settings", "nope"])


def test_main_carries_on_a_stopped_sweep_and_trains_only_what_is_missing(
    tmp_path, monkeypatch, capsys, tiny_resolution
):
    out = tmp_path / "res.json"
    args = ["--seeds", "2", "--quiet", "--threads", "1", "--out", str(out)]
    tiny_resolution(variants=("learned", "learned-antialias"))
    resolution.main(["--settings", "tiny", *args])
    first = json.loads(out.read_text())
    trained = []
    real_run_seeds = resolution.run_seeds
    monkeypatch.setattr(
        resolution,
        "run_seeds",
        lambda setting, seeds, **kw: trained.append(setting.variants) or real_run_seeds(setting, seeds, **kw),
    )
    tiny = tiny_resolution()  # two variants more, of one new encoding
    resolution.main(["--settings", "tiny", *args])
    assert trained == [("rope-mixed", "rope-mixed-interp")]
    result = json.loads(out.read_text())
    assert result["runs"][:4] == first["runs"] and len(result["runs"]) == 2 * len(tiny.variants)
    assert result["earlier"] == [first["provenance"]] and result["seconds"] >= first["seconds"]
    resolution.main(["--settings", "tiny", *args])  # nothing left to train
    assert len(trained) == 1

    tiny_resolution(steps=4)
    before = out.read_text()
    with pytest.raises(SystemExit):
        resolution.main(["--settings", "tiny", *args])
    assert (
        "holds tiny runs with other settings (steps); give another --out, or --fresh"
        in capsys.readouterr().err
    )
    assert out.read_text() == before
    resolution.main(["--settings", "tiny", "--fresh", *args])
    assert len(trained) == 3 and "earlier" not in json.loads(out.read_text())


def test_the_tokens_condition_tests_on_larger_canvases_and_the_zoom_condition_on_larger_scenes(
    tiny_resolution,
):
    tiny = tiny_resolution()
    tokens = replace(tiny, task="distance", train_size=16, test_sizes=(16, 24), condition="tokens")
    task = resolution.load(tokens)
    canvases, zoomed = (
        resolution.test_sets(tokens, task),
        resolution.test_sets(replace(tokens, condition="zoom"), task),
    )
    assert canvases[24].layout.shape[1] == 36 and zoomed[24].layout.shape[1] == 16  # 6x6 cells vs 4x4 larger
    records, _ = resolution.run_seed(replace(tokens, resized_crop=(0.5, 1.0)), 0, progress=False)
    assert [list(r["accuracy"]) for r in records] == [["16", "24"]] * len(tiny.variants)
    real = resolution.load(replace(tiny, task="mnist-offline", train_size=28, patch_size=7))
    with pytest.raises(ValueError, match="no larger canvas .* use condition 'zoom'"):
        resolution.test_sets(replace(tiny, condition="tokens"), real)


def test_relative_clamp_is_the_relative_model_with_its_outermost_offsets_reused(tiny_resolution):
    from minivit import ViT

    torch.manual_seed(0)
    model = ViT(tiny_resolution().config("relative", 9, 3)).eval()
    clamped = resolution.evaluated_as(model, "relative-clamp")
    assert clamped.pos.resize == "clamp" and model.pos.resize == "interpolate"
    x = torch.rand(2, 3, 16, 16)
    torch.testing.assert_close(clamped(x), model(x))  # trained grid: the same table
    bias = clamped.pos.attn_bias((6, 6), 0)  # at 6x6, an offset of 1 keeps its trained bias
    torch.testing.assert_close(bias[:, 0, 1], model.pos.attn_bias((4, 4), 0)[:, 0, 1])


def test_the_command_without_its_dataset_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    from torchvision import datasets

    from minivit.experiments import command_line

    def no_network(*args, **kwargs):
        raise OSError("network unreachable")

    monkeypatch.setattr(datasets.cifar, "download_and_extract_archive", no_network)
    monkeypatch.chdir(tmp_path)
    main = functools.partial(resolution.main, ["--settings", "cifar10", "--seeds", "1", "--quiet"])
    assert command_line(main, "python -m minivit.experiments.resolution") == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m minivit.experiments.resolution: error: CIFAR10 is not in data")
    assert "Traceback" not in err and err.count("\n") == 1
