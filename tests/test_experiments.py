import importlib
import json
from dataclasses import asdict, replace

import pytest
import torch

from minivit.data import lst
from minivit.experiments import init_scale

TINY = init_scale.Setting(dim=16, depth=2, steps=6, lr=1e-3, batch_size=32, n_train=96, n_eval=30)


def test_setting_builds_the_lst_model_with_sigma_or_the_sinusoid():
    config = TINY.config("0.5")
    assert config.position == "learned" and config.position_options["std"] == 0.5
    assert config.position_options["per_block"] and config.pool == "last" and not config.norm_first
    assert TINY.config("sincos2d").position == "sincos2d"
    # the reference's constant rate: lr * steps; warmup then cosine decay: about half of that
    assert init_scale.SETTINGS["reference"].reach == pytest.approx(1e-4 * 256_064)
    cosine = init_scale.Setting(steps=5000, lr=3e-4, schedule="cosine", warmup=None)
    assert cosine.reach == pytest.approx(3e-4 * 5000 / 2, rel=0.03)
    # the CPU set-ups: the tables at a third of the others' rate
    assert init_scale.SETTINGS["reference-64"].reach == pytest.approx(1e-4 * 8000)
    assert init_scale.encodings((0.1, 2.0)) == ["0.1", "2.0", "sincos2d"]


def test_a_run_records_accuracies_tables_and_alignment():
    data = init_scale.make_data(TINY)
    model, record = init_scale.train_one("0.1", 0, TINY, data, progress=False)
    assert set(record["accuracy"]) == {"train", "test", "apart"}
    assert all(0 <= a <= 1 for a in record["accuracy"].values())
    assert len(record["tables"]) == TINY.depth and len(record["tables"][0]) == 16
    assert record["moved_rms"] > 0
    assert set(record["alignment"]) == {"procrustes_grid", "procrustes_sincos", "structure"}
    _, fixed = init_scale.train_one("sincos2d", 0, TINY, data, progress=False)
    assert "tables" not in fixed and "alignment" not in fixed
    maps = init_scale.attention(model, data["apart"].tensors[0][:5])
    assert maps.shape == (TINY.depth, 5, 16, 16)
    torch.testing.assert_close(maps.sum(-1), torch.ones(TINY.depth, 5, 16))
    start = init_scale.start_tables(record, TINY)  # the draw again, from the seed and the setting
    end = torch.tensor(record["tables"])
    assert (end - start).pow(2).mean().sqrt().item() == pytest.approx(record["moved_rms"], abs=1e-4)
    assert (end - start).abs().max() > 0  # the draw is the start, not the end
    with pytest.raises(ValueError, match="has no learned tables"):
        init_scale.start_tables(fixed, TINY)


def test_runs_trained_as_ensembles_record_what_single_runs_record():
    data = init_scale.make_data(TINY)
    runs = [("0.1", 0), ("sincos2d", 1), ("2.0", 1)]
    together = init_scale.train_many(runs, TINY, data, progress=False)
    for (encoding, seed), (_, record) in zip(runs, together, strict=True):
        _, alone = init_scale.train_one(encoding, seed, TINY, data, progress=False)
        assert (record["encoding"], record["seed"]) == (encoding, seed)
        assert record["final_loss"] == pytest.approx(alone["final_loss"], abs=1e-4)
        if "tables" in alone:
            torch.testing.assert_close(
                torch.tensor(record["tables"]), torch.tensor(alone["tables"]), atol=2e-4, rtol=0
            )


def test_main_writes_a_sweep_with_provenance(tmp_path, monkeypatch):
    monkeypatch.setitem(init_scale.SETTINGS, "tiny", TINY)
    out = tmp_path / "sweep.json"
    init_scale.main(
        [
            "--setting",
            "tiny",
            "--seeds",
            "2",
            "--sigmas",
            "0.1",
            "2.0",
            "--quiet",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    result = json.loads(out.read_text())
    assert result["provenance"]["command"].startswith(
        "python -m minivit.experiments.init_scale --setting tiny"
    )
    assert result["setting"]["dim"] == 16 and result["published"]["2.0"] == [0.847, 0.377]
    runs = result["runs"]
    assert len(runs) == 2 * 3 and {r["seed"] for r in runs} == {0, 1}
    # each seed's reference agrees with itself exactly
    assert all(r["agreement_with_sincos"] == pytest.approx(1.0) for r in runs if r["encoding"] == "sincos2d")
    summary = result["summary"]
    assert summary == init_scale.summarize(runs)
    assert summary["0.1"]["seeds"] + summary["0.1"]["dead"] == 2  # six steps: most runs never train
    live = [r["accuracy"]["apart"] for r in runs if r["encoding"] == "0.1" and not r["dead"]]
    if live:
        assert summary["0.1"]["apart"] == pytest.approx(sum(live) / len(live))
    from minivit.experiments import read_result

    assert read_result(out) == result


def test_recorded_results_ship_in_the_package_and_a_missing_one_is_named():
    from minivit import experiments

    sweep = experiments.recorded("init_scale.json")
    assert sweep["provenance"]["command"].startswith("python -m minivit.experiments.init_scale")
    # each recorded file's command writes it where it is read from, by --out or by default
    for name in (
        "init_scale.json",
        "init_scale_reach.json",
        "init_scale_reference.json",
        "resolution.json",
        "resolution_fashion.json",
        "rope_family.json",
        "capstone_fashion.json",
        "capstone_fashion_gpu.json",
        "network.json",
    ):
        made = experiments.recorded(name)["provenance"]
        command, path = made["command"], f"minivit/experiments/recorded/{name}"
        module = importlib.import_module(command.split()[2])
        assert (
            command.endswith(f"--out {path}")
            # written by default when the default was the recorded file; now --out names it
            or ("--out" not in command.split() and module.DEFAULT_OUT == name)
            or made.get("copied_to") == path  # written on a GPU machine, copied here (it says so)
        )
    with pytest.raises(
        FileNotFoundError,
        match=r"no recorded result 'nope.json'; recorded: capstone_fashion.json, capstone_fashion_gpu.json",
    ):
        experiments.recorded("nope.json")


def test_a_sweep_carries_on_only_from_a_file_of_the_same_setting(tmp_path):
    from minivit.experiments import resumable, write_result

    out = tmp_path / "sweep.json"
    assert resumable(None, TINY) is None and resumable(out, TINY) is None  # nothing to carry on from
    result = {"setting": asdict(TINY), "runs": [{"seed": 0}]}
    write_result(result, out)
    assert resumable(out, TINY) == result
    with pytest.raises(ValueError, match=r"other settings \(lr, steps\); give another --out, or --fresh"):
        resumable(out, replace(TINY, steps=7, lr=1.0), restart="--fresh")
    # a setting the file holds that the dataclass no longer has
    write_result({**result, "setting": {**result["setting"], "removed": 1}}, out)
    with pytest.raises(ValueError, match=r"other settings \(unreadable\); give another --out, or delete it"):
        resumable(out, TINY)
    assert resumable(out, TINY, keep_removed=True)["runs"] == [{"seed": 0}]


def test_main_trains_on_the_reference_puzzles_from_a_folder(tmp_path, monkeypatch, reference_folder):
    reference_folder(tmp_path)  # 60 generated puzzles and 104 study trials, in the reference's format
    monkeypatch.setitem(init_scale.SETTINGS, "tiny", replace(TINY, split="random"))
    out = tmp_path / "sweep.json"
    argv = ["--setting", "tiny", "--puzzles", "reference", "--reference-folder", str(tmp_path)]
    init_scale.main(
        [
            *argv,
            "--seeds",
            "1",
            "--sigmas",
            "0.1",
            "--evals",
            "2",
            "--quiet",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    result = json.loads(out.read_text())
    assert result["puzzles"] == "reference" == result["setting"]["puzzles"]
    assert all(r["evals"]["step"] == [3, 6] for r in result["runs"])  # scored twice as each trained
    run = result["runs"][0]
    assert set(run["accuracy"]) == {"train", "test", "apart"}
    # the human study's 104 puzzles (in this copy) are the kept-apart set, scored by grade
    assert set(run["accuracy_by_grade"]) == {"test", "apart"}
    assert run["accuracy"]["apart"] * 104 == pytest.approx(round(run["accuracy"]["apart"] * 104))


def test_main_names_a_folder_given_for_generated_puzzles(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(init_scale.SETTINGS, "tiny", TINY)
    with pytest.raises(SystemExit):
        init_scale.main(
            ["--setting", "tiny", "--reference-folder", str(tmp_path), "--out", str(tmp_path / "o")]
        )
    assert (
        "--reference-folder is for the reference's puzzles; add --puzzles reference"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "o").exists()


def test_the_reference_setting_is_the_reference_run_aspect_by_aspect():
    run = init_scale.SETTINGS["reference"]
    assert run.steps == 256_064 and run.lr == 1e-4 and run.schedule == "constant" and run.warmup == 0
    assert (run.dim, run.depth, run.batch_size, run.position_lr_scale) == (160, 4, 128, 1.0)
    assert init_scale.SETTINGS["reference-200"] == replace(run, steps=201 * 64)
    sincos = run.config("sincos2d")
    assert sincos.init == "torch" == run.config("2.0").init
    assert sincos.position_options == {"per_block": True, "dropout": 0.1}
    data = init_scale.make_data(run)  # the copy inside minivit, split as the reference splits it
    assert [len(data[k]) for k in ("train", "test", "apart")] == [8100, 900, 108]


def test_runs_that_never_trained_are_named_and_left_out_of_every_mean():
    def run(seed, loss, answers, apart):
        accuracy = {"train": 0.9, "test": 0.8, "apart": apart}
        return {
            "encoding": "2.0",
            "seed": seed,
            "final_loss": loss,
            "loss_end": loss,
            "answers_given": answers,
            "accuracy": accuracy,
            "agreement_with_sincos": 0.5,
        }

    live, flat, one_answer = run(0, 0.2, 4, 0.4), run(1, 1.38, 4, 0.9), run(2, 0.9, 1, 0.9)
    assert not init_scale.is_dead(live)
    assert init_scale.is_dead(flat) and init_scale.is_dead(one_answer)
    assert not init_scale.is_dead(run(3, 1.37, 2, 0.9))  # 1.2% below ln 4: trained, a little
    summary = init_scale.summarize([live, flat, one_answer])["2.0"]
    assert (summary["seeds"], summary["dead"], summary["apart"]) == (1, 2, 0.4)


def test_a_run_records_how_it_trained_and_held_out_puzzles_by_view():
    data = init_scale.make_data(TINY)
    _, record = init_scale.train_one("0.1", 0, TINY, data, progress=False)
    assert 1 <= record["answers_given"] <= 4 and record["dead"] == init_scale.is_dead(record)
    assert len(record["curve"]["loss"]) == TINY.steps and record["curve"]["step"][-1] == TINY.steps
    views = record["test_by_view"]
    seen = lst.seen_view(data["test"].cells, data["train"].cells).float().mean().item()
    assert views["seen_fraction"] == pytest.approx(seen)
    parts = [views[k] * n for k, n in (("seen", seen), ("new", 1 - seen)) if views[k] is not None]
    assert sum(parts) == pytest.approx(record["accuracy"]["test"])  # the two parts make the whole
    grid = record["grid"]
    assert len(grid) == TINY.depth and grid[0]["procrustes"] == pytest.approx(
        record["alignment"]["procrustes_grid"][0]
    )
    assert "accuracy_dropout_on" not in record  # no dropout: one way to score
    dropped = replace(TINY, sincos_per_block=True, sincos_dropout=0.5)
    _, fixed = init_scale.train_one("sincos2d", 0, dropped, data, progress=False)
    assert set(fixed["accuracy_dropout_on"]) == {"train", "test", "apart"}


def _tiny_main(tmp_path, *extra):
    out = tmp_path / "sweep.json"
    argv = ["--setting", "tiny", "--sigmas", "0.1", "2.0", "--quiet", "--threads", "1", "--out", str(out)]
    init_scale.main([*argv, *extra])
    return out, json.loads(out.read_text())


def test_a_sweep_is_written_after_each_seed_and_resumes_where_it_stopped(tmp_path, monkeypatch):
    monkeypatch.setitem(init_scale.SETTINGS, "tiny", TINY)
    out, first = _tiny_main(tmp_path, "--seeds", "1")
    assert [(r["encoding"], r["seed"]) for r in first["runs"]] == [("sincos2d", 0), ("0.1", 0), ("2.0", 0)]
    trained, real = [], init_scale.train_many

    def counting(runs, *args, **kwargs):
        trained.extend(runs)
        if ("2.0", 2) in runs:
            raise KeyboardInterrupt  # stopped during seed 2
        return real(runs, *args, **kwargs)

    monkeypatch.setattr(init_scale.runs, "train_many", counting)  # where sweep calls it
    with pytest.raises(KeyboardInterrupt):
        _tiny_main(tmp_path, "--seeds", "3")
    kept = json.loads(out.read_text())["runs"]
    assert kept[:3] == first["runs"] and {r["seed"] for r in kept} == {0, 1}  # seed 1 written at once
    assert trained[:3] == [("sincos2d", 1), ("0.1", 1), ("2.0", 1)]
    # seed 2 lost its runs; drop one of seed 1's too, as if it had stopped there
    data = json.loads(out.read_text())
    data["runs"] = [r for r in data["runs"] if (r["encoding"], r["seed"]) != ("2.0", 1)]
    out.write_text(json.dumps(data))
    trained.clear()
    monkeypatch.setattr(
        init_scale.runs, "train_many", lambda runs, *a, **k: trained.extend(runs) or real(runs, *a, **k)
    )
    _, done = _tiny_main(tmp_path, "--seeds", "3")
    # seed 1: its sinusoid trained again only to compare with; seed 2 whole
    assert trained == [("sincos2d", 1), ("2.0", 1), ("sincos2d", 2), ("0.1", 2), ("2.0", 2)]
    keys = [(r["encoding"], r["seed"]) for r in done["runs"]]
    assert sorted(keys) == sorted((e, s) for e in ("sincos2d", "0.1", "2.0") for s in range(3))
    redone = next(r for r in done["runs"] if (r["encoding"], r["seed"]) == ("2.0", 1))
    lost = next(r for r in kept if (r["encoding"], r["seed"]) == ("2.0", 1))
    assert redone["agreement_with_sincos"] == pytest.approx(
        lost["agreement_with_sincos"]
    )  # the same reference
    assert done["summary"] == init_scale.summarize(done["runs"])
    trained.clear()
    _, again = _tiny_main(tmp_path, "--seeds", "3")
    assert trained == [] and again["runs"] == done["runs"]  # nothing left to train


def test_a_sweep_with_other_settings_is_refused_unless_fresh(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(init_scale.SETTINGS, "tiny", TINY)
    _tiny_main(tmp_path, "--seeds", "1")
    with pytest.raises(SystemExit):
        _tiny_main(tmp_path, "--seeds", "1", "--steps", "7")
    assert (
        "holds a sweep with other settings (steps); give another --out, or --fresh" in capsys.readouterr().err
    )
    _, fresh = _tiny_main(tmp_path, "--seeds", "1", "--steps", "7", "--fresh")
    assert fresh["setting"]["steps"] == 7 and len(fresh["runs"]) == 3


def test_a_run_can_score_every_set_as_it_trains():
    data = init_scale.make_data(TINY)
    model, record = init_scale.train_one("0.1", 0, TINY, data, progress=False, evals=3)
    assert record["evals"]["step"] == [2, 4, 6]
    assert set(record["evals"]) == {"step", "train", "test", "apart"}
    assert record["evals"]["test"][-1] == pytest.approx(
        record["accuracy"]["test"], abs=1e-4
    )  # the last is the end
    _, plain = init_scale.train_one("0.1", 0, TINY, data, progress=False)
    assert "evals" not in plain and plain["final_loss"] == record["final_loss"]  # scoring changes nothing


def test_a_sweep_without_the_sinusoid_trains_only_the_tables(tmp_path, monkeypatch):
    monkeypatch.setitem(init_scale.SETTINGS, "tiny", TINY)
    _, result = _tiny_main(tmp_path, "--seeds", "1", "--no-sinusoid")
    assert [r["encoding"] for r in result["runs"]] == ["0.1", "2.0"]
    assert not any("agreement_with_sincos" in r for r in result["runs"])


def test_a_setting_names_an_unknown_choice():
    with pytest.raises(ValueError, match=r"Setting\(puzzles='mine'\): use one of generated, reference"):
        init_scale.Setting(puzzles="mine")
    with pytest.raises(ValueError, match=r"Setting\(split='paper'\): use one of published, random"):
        init_scale.Setting(split="paper")


def test_runs_trained_together_are_scored_where_single_runs_are():
    data = init_scale.make_data(TINY)
    runs = [("0.1", 0), ("2.0", 0)]
    together = init_scale.train_many(runs, TINY, data, progress=False, evals=3)
    for (encoding, seed), (_, record) in zip(runs, together, strict=True):
        _, alone = init_scale.train_one(encoding, seed, TINY, data, progress=False, evals=3)
        assert record["evals"]["step"] == alone["evals"]["step"] == [2, 4, 6]
        for name in ("train", "test", "apart"):
            assert record["evals"][name] == pytest.approx(alone["evals"][name], abs=0.02)
        assert record["final_loss"] == pytest.approx(alone["final_loss"], abs=1e-4)  # scoring changes nothing
