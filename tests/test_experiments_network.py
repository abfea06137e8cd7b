"""minivit.experiments.network: the arms, what a run records, resuming a sweep, the recorded file."""

import json

import pytest
import torch

from minivit.experiments import network, recorded
from minivit.posenc.sincos import sincos_1d

TINY = network.Setting(
    modules=3, nodes_per_module=4, run_steps=120, train_steps=80, rerun_steps=40, dim=12, depth=1, steps=4
)


@pytest.fixture(scope="module")
def data():
    return network.make_data(TINY, seed=0)


def test_the_data_are_one_network_split_in_time_and_run_again(data):
    net = data.network
    assert net.nodes == 12 and len(data.train) == 80 - 4 and len(data.later) == 40 - 4
    assert len(data.rerun) == 40 - 4
    torch.testing.assert_close(data.train.targets[-1], net.traces[79])  # training stops at train_steps
    shown = ~data.later.masked[0]
    torch.testing.assert_close(
        data.later.inputs[0, 0, 0][shown], net.traces[80][shown]
    )  # later steps start there
    assert not torch.allclose(data.rerun.inputs[:5], data.later.inputs[:5])


def test_each_arm_builds_the_model_it_names(data):
    torch.testing.assert_close(
        network.table(network.build(TINY, network.SINUSOID, 0, data.network)),
        sincos_1d(torch.arange(12.0), 12, 10000.0),
    )  # over the shuffled index: it knows nothing of the modules
    assert network.table(network.build(TINY, network.NONE, 0, data.network)) is None
    code = network.build(TINY, network.MODULES, 0, data.network)
    assert torch.equal(network.table(code).argmax(1), data.network.modules)
    assert not code.pos.table.requires_grad
    small = network.table(network.build(TINY, "0.1", 0, data.network))
    assert small.std().item() == pytest.approx(0.1, rel=0.2)


def test_a_run_records_its_errors_and_how_well_its_table_finds_the_modules(data):
    _, code = network.train_one(network.MODULES, 0, TINY, data, progress=False, permutations=50)
    assert set(code["unexplained"]) == set(network.SPLITS)
    assert code["moved_rms"] == 0.0  # the module code is fixed
    assert code["recovery"]["ari"] == 1.0 and code["recovery"]["within_between"] == pytest.approx(1.0)
    _, learned = network.train_one("0.5", 0, TINY, data, progress=False, permutations=50, every=2)
    assert learned["moved_rms"] > 0 and sorted(learned["snapshots"]) == [0, 2, 4]
    assert len(learned["table"]) == 12 and len(learned["table"][0]) == 12
    _, none = network.train_one(network.NONE, 0, TINY, data, progress=False)
    assert "recovery" not in none and set(none["unexplained"]) == set(network.SPLITS)


def test_what_training_added_is_recorded_and_drawn_again_from_the_runs_seed(data):
    model, run = network.train_one("0.5", 0, TINY, data, progress=False, permutations=50, every=4)
    start, end = torch.tensor(run["snapshots"][0]), network.table(model)
    torch.testing.assert_close(
        network.start_table(TINY, run), start
    )  # the same seed and setting, the same draw
    run["table"] = [[round(v, 4) for v in row] for row in end.tolist()]
    torch.testing.assert_close(network.update(TINY, run), end - start, atol=1e-4, rtol=0)
    quick = network.grouping(end - start, data.network.modules, permutations=50, seed=0)
    assert run["update_recovery"] == quick
    full = network.analysis.module_recovery(
        end - start, data.network.modules, data.network.weights, permutations=50
    )
    assert {k: full[k] for k in quick} == quick  # the same measure and the same shuffles as module_recovery
    with pytest.raises(ValueError, match="not the run's own"):
        network.update(TINY, {**run, "seed": 1})  # another seed draws another start
    with pytest.raises(ValueError, match="no drawn table"):
        network.start_table(TINY, {"arm": network.MODULES, "seed": 0})


def test_a_sweep_is_written_after_each_run_and_a_rerun_skips_what_it_holds(tmp_path, monkeypatch):
    out = tmp_path / "sweep.json"
    opts = {"sigmas": (0.5,), "out": out, "progress": False, "permutations": 20}
    first = network.sweep(TINY, seeds=[0], **opts)
    assert [(r["arm"], r["seed"]) for r in first["runs"]] == [(a, 0) for a in network.arms((0.5,))]
    assert json.loads(out.read_text())["summary"] == first["summary"]
    trained = []
    real = network.train_one
    monkeypatch.setattr(
        network, "train_one", lambda arm, seed, *a, **k: trained.append(arm) or real(arm, seed, *a, **k)
    )
    second = network.sweep(TINY, seeds=[0, 1], **opts)
    assert len(trained) == len(network.arms((0.5,)))  # only seed 1's runs
    assert second["runs"][:4] == first["runs"][:4] and len(second["runs"]) == 2 * len(first["runs"])
    assert set(second["networks"]) == {"0", "1"}
    with pytest.raises(ValueError, match=r"other settings \(steps\)"):
        network.sweep(network.replace(TINY, steps=5), seeds=[0], **opts)


def test_the_command_refuses_a_file_with_other_settings_before_training(tmp_path, capsys):
    out = tmp_path / "sweep.json"
    out.write_text(json.dumps({"setting": {"steps": 1}}))
    with pytest.raises(SystemExit):
        network.main(["--seeds", "1", "--out", str(out)])
    assert "holds a sweep with other settings" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        network.main(["--seeds", "0", "--out", str(tmp_path / "x.json")])


def test_the_recorded_sweep_is_its_runs_summarized():
    result = recorded("network.json")
    assert result["setting"] == network.asdict(network.SETTINGS["cpu"])
    assert network.summarize(result["runs"]) == result["summary"]
    seeds = {r["seed"] for r in result["runs"]}
    assert len(seeds) >= 3
    assert {(r["arm"], r["seed"]) for r in result["runs"]} == {(a, s) for a in network.arms() for s in seeds}
