"""The simulated modular network (minivit.data.network): structure, dynamics, errors."""

import pytest
import torch

from minivit.data.network import module_correlations, network_task, simulate_network


def test_network_is_drawn_from_its_seed_in_a_shuffled_order():
    a, b = simulate_network(seed=3, steps=300), simulate_network(seed=3, steps=300)
    torch.testing.assert_close(a.traces, b.traces)
    assert torch.equal(a.order, b.order) and torch.equal(a.weights, b.weights)
    assert not torch.equal(a.traces, simulate_network(seed=4, steps=300).traces)
    assert a.traces.shape == (300, 32) and a.weights.shape == (32, 32) and a.nodes == 32
    assert sorted(a.order.tolist()) == list(range(32))
    assert torch.bincount(a.modules).tolist() == [8, 8, 8, 8]
    assert not torch.equal(a.modules, a.modules.sort().values)  # the index does not give the module
    torch.testing.assert_close(a.traces.mean(0), torch.zeros(32), atol=1e-5, rtol=0)
    torch.testing.assert_close(a.traces.std(0), torch.ones(32), atol=1e-5, rtol=0)


def test_edges_are_dense_inside_a_module_sparse_between_and_scaled_by_in_degree():
    net = simulate_network(modules=4, nodes_per_module=10, steps=10, p_within=0.6, p_between=0.05, seed=0)
    edges = net.weights != 0
    same = net.modules[:, None] == net.modules[None, :]
    assert not edges.diagonal().any()
    within = edges[same].float().sum() / (same.sum() - net.nodes)
    between = edges[~same].float().mean()
    assert 0.45 < within < 0.75 and between < 0.1
    # a row's weights are N(1, 0.2) / sqrt(in-degree): their mean times sqrt(degree) is about 1
    degree = edges.sum(1)
    scaled = net.weights.sum(1) / degree.clamp_min(1) * degree.clamp_min(1).sqrt()
    assert (scaled[degree > 0] - 1).abs().mean() < 0.15


def test_the_sorted_order_shows_the_modules_as_blocks():
    net = simulate_network(steps=10, seed=1)
    s = net.sorted_by_module()
    assert net.modules[s].tolist() == sorted(net.modules.tolist())
    blocks = (net.weights[s][:, s] != 0).float().reshape(4, 8, 4, 8).mean(dim=(1, 3))
    assert (blocks.diagonal() > 3 * (blocks.sum() - blocks.diagonal().sum()) / 12).all()


def test_nodes_of_one_module_move_together_more_than_nodes_of_two():
    for seed in range(3):
        within, between = module_correlations(simulate_network(gain=0.5, steps=4000, seed=seed))
        assert within > between + 0.1, (seed, within, between)


def test_rerun_keeps_the_network_and_draws_fresh_noise():
    net = simulate_network(steps=400, seed=2)
    again = net.rerun(400, seed=9)
    assert torch.equal(again.weights, net.weights) and torch.equal(again.order, net.order)
    assert torch.equal(again.modules, net.modules)
    assert not torch.allclose(again.traces, net.traces)
    # same noise seed as the original run gives the original traces back
    torch.testing.assert_close(net.rerun(400, net.settings["noise_seed"]).traces, net.traces)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"modules": 1}, "modules=1"),
        ({"nodes_per_module": 0}, "nodes_per_module=0"),
        ({"steps": 1.5}, "whole number"),
        ({"p_within": 1.2}, r"\[0, 1\]"),
        ({"p_within": 0.02, "p_between": 0.1}, "denser connections inside"),
        ({"leak": 0}, "leak=0"),
        ({"gain": -1}, "gain=-1"),
    ],
)
def test_bad_settings_say_what_to_change(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate_network(**kwargs)


def test_task_holds_each_nodes_last_values_masks_some_and_targets_the_next():
    net = simulate_network(steps=60, seed=0)
    task = network_task(net, window=3, mask_fraction=0.25, start=10, stop=40, seed=1)
    n = 40 - 1 - (10 + 3 - 1)
    assert task.inputs.shape == (n, 4, 1, 32) and task.targets.shape == (n, 32) and len(task) == n
    assert (task.masked.sum(1) == 8).all()  # 25% of 32 nodes in every sample
    x = net.traces
    for i in (0, n - 1):
        t = 12 + i
        keep = ~task.masked[i]
        torch.testing.assert_close(task.inputs[i, :3, 0][:, keep], x[t - 2 : t + 1][:, keep])
        assert (task.inputs[i, :3, 0][:, ~keep] == 0).all()
        torch.testing.assert_close(task.inputs[i, 3, 0], task.masked[i].float())
        torch.testing.assert_close(task.targets[i], x[t + 1])
    assert torch.equal(task.modules, net.modules)
    again = network_task(net, window=3, mask_fraction=0.25, start=10, stop=40, seed=1)
    assert torch.equal(again.masked, task.masked)
    assert not torch.equal(
        network_task(net, window=3, mask_fraction=0.25, start=10, stop=40, seed=2).masked, task.masked
    )


def test_task_masks_at_least_one_node_and_stays_inside_its_range():
    net = simulate_network(steps=30, seed=0)
    task = network_task(net, window=2, mask_fraction=0.001, start=0, stop=10)
    assert (task.masked.sum(1) == 1).all() and len(task) == 8
    last_target_t = 9  # t + 1 < stop
    torch.testing.assert_close(task.targets[-1], net.traces[last_target_t])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"window": 0}, "window=0"),
        ({"mask_fraction": 1.0}, "mask_fraction=1.0"),
        ({"start": 20, "stop": 10}, "start=20, stop=10"),
        ({"stop": 999}, "stop=999"),
        ({"start": 0, "stop": 4, "window": 4}, "at least 5 steps"),
    ],
)
def test_bad_task_settings_say_what_to_change(kwargs, match):
    with pytest.raises(ValueError, match=match):
        network_task(simulate_network(steps=30, seed=0), **kwargs)


def test_a_rerun_is_measured_in_the_first_runs_units():
    net = simulate_network(steps=2000, seed=5)
    assert torch.equal(net.rerun(300, seed=1).scale, net.scale)
    torch.testing.assert_close(
        net.traces.double() * net.scale[1] + net.scale[0], _raw(net), rtol=1e-5, atol=1e-5
    )
    # a short rerun is not z-scored on its own: its means are not all zero
    assert net.rerun(300, seed=1).traces.mean(0).abs().max() > 0.05


def _raw(net):
    from minivit.data.network import _run

    s = net.settings
    inverse = torch.argsort(net.order)
    w = net.weights[inverse][:, inverse]
    return _run(w, s["steps"], s["burn_in"], s["leak"], s["gain"], s["noise_seed"])[:, net.order]
