"""The lessons' figures and slider functions, drawn headless."""

import numpy as np
import pytest
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from minivit import ViT, ViTConfig, viz, widgets
from minivit.data import odd_one_out
from minivit.train import History
from minivit.widgets import shuffle_explorer, shuffle_view


def pixels(fig: Figure) -> np.ndarray:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def test_show_images_titles_with_class_names():
    d = odd_one_out(5)
    fig = viz.show_images(d.images, d.labels, d.classes, ncols=3, patch_size=8)
    assert isinstance(fig, Figure) and len(fig.axes) == 6
    assert fig.axes[0].get_title() == d.classes[d.labels[0]]


def test_plot_history_draws_one_line_per_run_and_chance():
    h = History(
        step=list(range(100)),
        loss=list(np.linspace(2, 0.1, 100)),
        accuracy=[0.5] * 100,
        eval_step=[50, 100],
        eval_accuracy=[0.4, 0.8],
    )
    fig = viz.plot_history({"a": h, "b": h}, chance=1 / 9)
    loss_ax, acc_ax = fig.axes
    assert len(loss_ax.lines) == 2 and len(acc_ax.lines) == 3


def test_shuffle_view_changes_with_the_seed_and_shows_invariance():
    d = odd_one_out(2)
    models = {name: ViT(ViTConfig(position=name, patch_size=8)) for name in ("none", "sincos2d")}
    a = shuffle_view(models, d.images[0], seed=0, patch_size=8)
    b = shuffle_view(models, d.images[0], seed=1, patch_size=8)
    assert not np.array_equal(pixels(a), pixels(b))
    titles = [ax.get_title() for ax in a.axes]
    none_change = float(titles[2].split("max change ")[1])
    sincos_change = float(titles[3].split("max change ")[1])
    assert none_change < 1e-5 < sincos_change


def test_shuffle_explorer_redraws_when_a_slider_moves():
    d = odd_one_out(3)
    models = {"none": ViT(ViTConfig(position="none", patch_size=8))}
    box = shuffle_explorer(models, d.images, patch_size=8)
    image_slider, seed_slider = box.children[0].children
    view = box.children[1]
    first = bytes(view.value)
    assert first.startswith(b"\x89PNG")
    seed_slider.value = 7
    second = bytes(view.value)
    assert second != first
    image_slider.value = 2
    assert bytes(view.value) not in (first, second)


def test_analysis_structure_score_entropy_and_temperature():
    from minivit import analysis
    from minivit.posenc import sincos_2d

    assert analysis.structure_score(sincos_2d((6, 6), 64), (6, 6)) > 0.5
    torch.manual_seed(0)
    assert abs(analysis.structure_score(torch.randn(36, 64), (6, 6))) < 0.15
    w = torch.softmax(torch.randn(3, 5, 5), -1)
    torch.testing.assert_close(analysis.with_temperature(w, 1.0), w)
    torch.testing.assert_close(
        analysis.entropy(torch.full((4,), 0.25)), torch.tensor(analysis.uniform_entropy(4))
    )
    assert (analysis.entropy(analysis.with_temperature(w, 0.3)) < analysis.entropy(w)).all()
    with pytest.raises(ValueError, match="drop prefix"):
        analysis.structure_score(torch.randn(37, 8), (6, 6))


def test_attention_explorer_redraws_for_query_and_temperature():
    model = ViT(ViTConfig(position="sincos2d", patch_size=8))
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(std=0.5)  # a model with sharp attention, so the temperature shows
    box = widgets.attention_explorer(model, odd_one_out(3).images)
    _, query, temperature = box.children[0].children
    view = box.children[1]
    states = [bytes(view.value)]
    query.value = 0
    states.append(bytes(view.value))
    temperature.value = 20.0  # the largest a lesson names
    states.append(bytes(view.value))
    assert len(set(states)) == 3
    assert {0.5, 1.0, 2.0, 5.0, 20.0} <= set(temperature.options)


def test_sincos_and_learned_explorers_redraw():
    box = widgets.sincos_explorer(grid=(4, 4))
    dim, base, position = box.children[0].children
    view = box.children[1]
    states = [bytes(view.value)]
    for control, value in ((dim, 16), (base, 100), (position, 0)):
        control.value = value
        states.append(bytes(view.value))
    assert len(set(states)) == 4
    snaps = {
        "a": [(0, torch.randn(9, 8)), (10, torch.randn(9, 8))],
        "b": [(0, torch.randn(9, 8)), (10, torch.randn(9, 8))],
    }
    box = widgets.learned_explorer(snaps, (3, 3))
    init, snapshot, position = box.children[0].children
    view = box.children[1]
    states = [bytes(view.value)]
    for control, value in ((init, "b"), (snapshot, 0), (position, 4)):
        control.value = value
        states.append(bytes(view.value))
    assert len(set(states)) == 4


def test_figures_for_encodings():
    from minivit.posenc import sincos_1d, sincos_2d

    table = sincos_2d((4, 4), 16)
    assert len(viz.similarity_grid(table, (4, 4)).axes) == 16 + 1  # every position's map and a colour bar
    fig = viz.similarity_map(table, (4, 4), 5)
    assert "similarity to position (1, 1)" in fig.axes[0].get_title()
    fig = viz.dot_product_profiles(sincos_1d(torch.arange(20.0), 16), [3, 10])
    assert len(fig.axes[0].lines) == 4 and len(fig.axes[1].lines) == 2  # curves and markers; curves
    fig = widgets.attention_view(ViT(ViTConfig(patch_size=8, pool="cls")), odd_one_out(1).images[0], query=4)
    assert len(fig.axes) == 3  # two heads and the bars


def _states(box, changes):
    """PNG of the explorer's figure before and after each (control index, value) change."""
    controls, view = box.children[0].children, box.children[1]
    states = [bytes(view.value)]
    for i, value in changes:
        controls[i].value = value
        states.append(bytes(view.value))
    return states


def test_relative_rope_and_alibi_explorers_redraw_for_every_slider():
    torch.manual_seed(0)
    table = torch.randn(2, 7, 7)
    assert len(set(_states(widgets.relative_explorer(table, (4, 4)), [(0, 1), (1, 1), (2, 0)]))) == 4
    assert len(set(_states(widgets.rope_explorer(head_dim=16), [(0, 10), (1, 2), (2, 45)]))) == 4
    assert len(set(_states(widgets.alibi_explorer(grid=(4, 4)), [(0, 4), (1, 2), (2, 0)]))) == 4


def test_relative_view_clips_offsets():
    table = torch.arange(2 * 7 * 7, dtype=torch.float32).reshape(2, 7, 7)
    fig = widgets.relative_view(table, (4, 4), clip=1, head=0, query=0)
    seen = fig.axes[0].images[0].get_array()
    assert seen[0, 0] == seen[2, 2] == table[0, 2, 2]  # offsets -3 and -2 reuse the entry at -1
    assert seen[3, 3] == table[0, 3, 3]


def test_alibi_view_draws_the_chosen_heads_bias():
    from minivit.posenc import alibi_slopes

    fig = widgets.alibi_view(heads=6, head=4, query=0, grid=(3, 3))
    bias = fig.axes[1].images[0].get_array()
    assert np.isclose(bias[2, 2], -alibi_slopes(6)[4] * np.sqrt(8))


def test_offset_figures_and_locality():
    from minivit import analysis

    near = -torch.cdist(torch.cartesian_prod(torch.arange(-2.0, 3), torch.arange(-2.0, 3)), torch.zeros(1, 2))
    tables = torch.stack([near.reshape(5, 5), -near.reshape(5, 5)])
    loc = analysis.offset_locality(tables)
    assert loc[0] > 0.99 and loc[1] < -0.99
    assert len(viz.head_tables(tables).axes) == 3  # two tables and one shared colour bar
    assert len(viz.head_tables(torch.stack([tables, tables / 2])).axes) == 5  # a row per block
    assert len(viz.bias_maps(torch.randn(3, 9, 9), (3, 3), 4).axes) == 4
    fig = viz.offset_tables({"near": tables[0], "far": tables[1]})
    assert [ax.get_title() for ax in fig.axes[:2]] == ["near", "far"] and len(fig.axes) == 4
    freqs = torch.randn(2, 2, 3, 4)
    assert len(viz.rope_frequencies(freqs, freqs * 1.1).axes) == 3


def test_bias_and_offset_figures_put_every_head_on_one_colour_scale():
    """A head whose bias barely changes must look flat beside one that changes a lot, not alike."""
    from minivit.posenc import build

    bias = build("alibi2d", dim=64, heads=4, depth=1, grid=(6, 6)).attn_bias((6, 6), 0)  # slopes 1/4 .. 1/256
    fig = viz.bias_maps(bias, (6, 6), query=14)
    limits = {im.get_clim() for ax in fig.axes[:4] for im in ax.images}
    assert limits == {(float(bias[:, 14].min()), 0.0)}  # the steepest head's range, for every head
    tables = torch.stack([torch.full((5, 5), 0.01), torch.linspace(-3, 3, 25).reshape(5, 5)])
    fig = viz.head_tables(tables)
    assert {ax.images[0].get_clim() for ax in fig.axes[:2]} == {(-3.0, 3.0)}
    flat, steep = (widgets.alibi_view(heads=8, head=h, query=0, grid=(4, 4)) for h in (7, 0))
    assert flat.axes[1].images[0].get_clim() == steep.axes[1].images[0].get_clim()
    table = torch.stack([torch.full((7, 7), 0.1), torch.full((7, 7), 2.0)])
    clim = widgets.relative_view(table, (4, 4), clip=3, head=0, query=0).axes[0].images[0].get_clim()
    assert clim == (-2.0, 2.0)


def _fake_sweep():
    torch.manual_seed(0)
    runs = []
    for seed in (0, 1):
        for enc in ("0.1", "2.0", "sincos2d"):
            run = {
                "encoding": enc,
                "seed": seed,
                "agreement_with_sincos": 0.5 + 0.1 * seed,
                "accuracy": {"train": 1.0, "test": 0.9 - seed / 10, "apart": 0.8 - seed / 10},
            }
            if enc != "sincos2d":
                run["tables"] = torch.randn(2, 16, 8).tolist()
            runs.append(run)
    summary = {
        e: {"test": 0.85, "test_std": 0.05, "apart": 0.75, "apart_std": 0.05}
        for e in ("0.1", "2.0", "sincos2d")
    }
    return runs, summary


def test_lst_and_init_scale_figures():
    cells = torch.tensor([[5, 4, 1, 3] + [0] * 12, [0] * 15 + [5]])
    fig = viz.lst_puzzles(cells, torch.tensor([1, 0]), titles=["binary", "quaternary"])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["?", "4", "1", "3"] and fig.axes[0].get_title() == "binary\nanswer 2"
    runs, summary = _fake_sweep()
    published = {"0.1": (0.97, 0.925), "2.0": (0.847, 0.377), "sincos2d": (0.985, 0.977)}
    fig = viz.init_scale_sweep(summary, published, runs)
    assert [ax.get_title() for ax in fig.axes] == ["held-out generated puzzles", "puzzles kept apart"]
    labels = fig.axes[1].get_legend_handles_labels()[1]
    assert "Ito et al. 2024" in labels and "2-D sinusoid (published)" in labels
    fig = viz.agreement_scatter(runs)
    assert len(fig.axes[0].collections) == 2  # one colour per σ


def test_procrustes_layout_draws_the_aligned_grid():
    from minivit.posenc.base import grid_coords

    fig = viz.procrustes_layout(grid_coords((4, 4)), (4, 4), title="exact")
    ax = fig.axes[0]
    assert len(ax.lines) == 2 * 8 and ax.get_title() == "exact"  # true and aligned: 4 rows + 4 columns each
    np.testing.assert_allclose(ax.collections[0].get_offsets()[5], [1, 1])  # cell 5 is row 1, column 1


def test_init_scale_explorer_redraws_for_every_slider():
    runs, _ = _fake_sweep()
    assert len(set(_states(widgets.init_scale_explorer(runs), [(0, "2.0"), (1, 1), (2, 1)]))) == 4
    fig = widgets.init_scale_view(runs, sigma="0.1", seed=1, block=0)
    assert "σ = 0.1, seed 1, block 0" in fig._suptitle.get_text()  # blocks numbered from 0, as the slider
    started = widgets.init_scale_explorer(runs, sigma="2.0", seed=1, block=1)
    assert [c.value for c in started.children[0].children] == ["2.0", 1, 1]
    with pytest.raises(ValueError, match=r"no recorded table for σ='0.3'.*σ in \['0.1', '2.0'\]"):
        widgets.init_scale_explorer(runs, sigma="0.3")
    # several sweeps: a first slider picks one, and every slider redraws
    both = widgets.init_scale_explorer({"slow": runs, "fast": runs}, sweep="fast")
    assert both.children[0].children[0].value == "fast"
    assert len(set(_states(both, [(0, "slow"), (1, "2.0"), (2, 1), (3, 1)]))) == 5
    with pytest.raises(ValueError, match=r"no sweep 'x'; the sweeps are \['slow', 'fast'\]"):
        widgets.init_scale_explorer({"slow": runs, "fast": runs}, sweep="x")


def test_resolution_sweep_draws_a_line_per_variant_and_marks_the_training_size():
    summary = {
        "learned": {"sizes": [16, 24, 48], "mean": [0.3, 0.9, 0.5], "std": [0.1, 0.0, 0.1]},
        "rope-mixed-interp": {"sizes": [16, 24, 48], "mean": [0.4, 0.9, 0.6], "std": [0.0, 0.0, 0.0]},
    }
    fig = viz.resolution_sweep({"ours": (summary, 24), "published": ({"learned": summary["learned"]}, 224)})
    ours, published = fig.axes
    assert [line.get_label() for line in ours.lines[:2]] == ["learned", "rope-mixed-interp"]
    assert ours.lines[1].get_linestyle() == "--"  # interpolated variants dashed
    assert ours.lines[-1].get_xdata()[0] == 24 and published.lines[-1].get_xdata()[0] == 224
    assert len(ours.collections) == 1  # a std band only where there is spread


def test_resolution_explorer_redraws_for_size_and_image():
    from minivit.data import make_task

    models = {
        p: ViT(ViTConfig(image_size=24, patch_size=8, num_classes=4, position=p))
        for p in ("learned", "rope-mixed")
    }
    box = widgets.resolution_explorer(
        models, lambda s: make_task("relation", 4, image_size=s, seed=1), [16, 24, 48], train_size=24, count=4
    )
    assert len(set(_states(box, [(0, 48), (1, 2)]))) == 3
    fig = widgets.resolution_view(models, lambda s: make_task("relation", 4, image_size=s), size=16, index=0)
    assert "16x16 px" in fig._suptitle.get_text() and len(fig.axes) == 2


def test_augmentations_figure_titles_mixed_targets():
    images = torch.rand(3, 1, 8, 8)
    targets = torch.tensor([[1.0, 0, 0], [0, 0.7, 0.3], [0.4, 0, 0.6]])
    fig = viz.augmentations(images, images.flip(-1), targets, classes=["a", "b", "c"])
    titles = [ax.get_title() for ax in fig.axes[3:]]
    assert titles == ["a", "b 0.70 + c 0.30", "c 0.60 + a 0.40"]


def test_capstone_figure_has_a_curve_and_a_point_per_encoding():
    rows = [
        {
            "encoding": e,
            "loss": [2.0, 1.5, 1.0],
            "loss_step": [0, 1, 2],
            "images_per_second": s,
            "test_accuracy": a,
        }
        for e, s, a in (("none", 100, 0.6), ("rope-axial", 90, 0.8))
    ]
    fig = viz.capstone({"rows": rows, "description": "stand-in", "device": "cpu", "precision": "float32"})
    loss, speed = fig.axes
    assert [line.get_label() for line in loss.lines] == ["none", "rope-axial"]
    assert len(speed.collections) == 2 and "stand-in · cpu" in fig._suptitle.get_text()


def test_augment_explorer_redraws_for_every_slider():
    images, labels = torch.rand(4, 3, 16, 16), torch.tensor([0, 1, 2, 3])
    box = widgets.augment_explorer(images, labels, 4)
    states = _states(box, [(0, 3.0), (1, 1.4), (2, "CutMix"), (1, 0.4), (2, "none"), (3, 5)])
    assert len(set(states)) == 7
    with pytest.raises(ValueError, match="known: mixup, CutMix, none"):
        widgets.augment_view(images, labels, 4, magnitude=9, alpha=1, mix="both", seed=0)


def test_score_tests_mark_flat_cells_and_write_the_values():
    fraction = torch.tensor([[0.0, 0.0], [0.85, 0.0], [3e-15, 2e-14]])
    asymmetry = torch.tensor([[0.0, 0.0], [0.5, 0.0], [0.6, 0.4]])
    varies = torch.tensor([[False, False], [True, False], [True, True]])
    fig = viz.score_tests(fraction, asymmetry, ["none", "learned", "rope-axial"], varies)
    left, right = fig.axes
    assert [t.get_text() for t in left.texts] == ["flat", "flat", "0.85", "flat", "3e-15", "2e-14"]
    assert [t.get_text() for t in right.texts] == ["flat", "flat", "0.50", "flat", "0.60", "0.40"]
    assert [label.get_text() for label in left.get_yticklabels()] == ["none", "learned", "rope-axial"]


def test_term_shares_stack_every_term_of_every_head_to_one():
    from minivit import analysis

    shares = {
        "learned": {t: torch.full((3,), 0.2) for t in analysis.TERMS},
        "sincos2d": {
            t: torch.tensor([1.0, 0.0, 0.5]) if t == "bias" else torch.tensor([0, 0.25, 0.125])
            for t in analysis.TERMS
        },
    }
    fig = viz.term_shares(shares)
    for ax in fig.axes:
        assert len(ax.patches) == 5 * 3  # a bar per term and head
        tops = [bar.get_y() + bar.get_height() for bar in ax.patches[-3:]]
        np.testing.assert_allclose(tops, [1.0, 1.0, 1.0])
    assert [ax.get_title() for ax in fig.axes] == ["learned", "sincos2d"]


def test_probe_stages_draw_a_line_per_model_and_chance():
    stages = ["input of block 0", "output of block 0", "output of block 1"]
    chance = torch.tensor([0.25, 0.25], dtype=torch.float64)
    flat = {"r2": torch.zeros(3, 2), "accuracy": torch.full((3, 2), 0.25), "chance": chance, "stages": stages}
    rising = {
        **flat,
        "r2": torch.tensor([[0.0, 0.0], [0.0, 0.2], [0.8, 0.6]]),
        "accuracy": torch.tensor([[0.25, 0.25], [0.25, 0.35], [0.75, 0.65]]),
    }
    fig = viz.probe_stages({"none": flat, "peg": rising})
    acc, r2 = fig.axes
    assert len(acc.lines) == 3 and acc.lines[-1].get_ydata()[0] == 0.25  # two models and chance
    np.testing.assert_allclose(acc.lines[1].get_ydata(), [0.25, 0.3, 0.7])
    np.testing.assert_allclose(r2.lines[1].get_ydata(), [0.0, 0.1, 0.7])


def test_attention_distances_have_a_panel_per_block_and_a_dot_per_head():
    distances = {"none": torch.full((2, 4), 2.0), "alibi2d": torch.tensor([[1.5, 1.8, 1.9, 2.0]] * 2)}
    fig = viz.attention_distances(distances, uniform=2.008)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert len(ax.collections) == 2 and len(ax.collections[1].get_offsets()) == 4
        assert ax.lines[0].get_ydata()[0] == 2.008
    np.testing.assert_allclose(fig.axes[0].collections[1].get_offsets()[:, 1], [1.5, 1.8, 1.9, 2.0])


def test_inside_explorer_redraws_for_every_slider_and_tells_offset_only_from_flat():
    torch.manual_seed(0)
    config = ViTConfig(image_size=16, patch_size=4, num_classes=4, heads=2)
    models = {p: ViT(config.with_(position=p)) for p in ("rope-axial", "learned")}
    images = torch.rand(3, 3, 16, 16)
    box = widgets.inside_explorer(models, images)
    states = _states(box, [(0, "learned"), (1, 1), (2, 1), (3, 0), (4, 2)])
    assert len(set(states)) == 6
    rope = widgets.inside_view(models, images, encoding="rope-axial", block=1, head=1, query=5)
    said = rope.axes[2].get_title().split("not by offset: ")[1]
    assert float(said) < 1e-9  # RoPE: the same content scores by offset alone
    assert "(1, 1)" in rope.axes[0].get_title()
    learned = widgets.inside_view(models, images, encoding="learned", block=0, head=0, query=5)
    assert float(learned.axes[2].get_title().split("not by offset: ")[1]) > 0.01
    flat = widgets.inside_view(models, images, encoding="learned", block=1, head=0, query=5)
    assert "no variation with position" in flat.axes[2].get_title()  # nothing added after block 0
    with pytest.raises(ValueError, match="known: rope-axial, learned"):
        widgets.inside_view(models, images, encoding="alibi2d", block=0, head=0, query=0)
    assert (
        widgets.inside_explorer(models, images, encoding="learned").children[0].children[0].value == "learned"
    )
    with pytest.raises(ValueError, match="not among the models"):
        widgets.inside_explorer(models, images, encoding="alibi2d")


def test_network_figures_sort_by_module_and_mark_the_blocks():
    from minivit.data.network import simulate_network

    net = simulate_network(steps=200, seed=0)
    fig = viz.network(net.weights, net.modules, net.traces)
    titles = [ax.get_title() for ax in fig.axes[:4]]
    assert titles[:3] == [
        "connections, token order",
        "connections, sorted by module",
        "correlation of the traces",
    ]
    assert len(fig.axes[3].lines) == 6
    # sorted by module, the connections sit in blocks on the diagonal; 3 lines each way between 4 modules
    sorted_weights = fig.axes[1].images[0].get_array()
    blocks = np.abs(np.asarray(sorted_weights)).reshape(4, 8, 4, 8).sum(axis=(1, 3))
    assert (np.diag(blocks) > blocks.sum(0) / 2).all()
    assert len(fig.axes[1].lines) == 6
    code = torch.nn.functional.one_hot(net.modules, 4).float()
    fig = viz.module_similarity(code, net.modules, title="code", score=1.0)
    shown = np.asarray(fig.axes[1].images[0].get_array())
    assert np.allclose(shown, np.kron(np.eye(4), np.ones((8, 8))))  # sorted: exactly the blocks
    assert fig._suptitle.get_text() == "code: within − between 1.00"


def test_network_sweep_has_a_bar_per_arm_and_the_null_per_run():
    runs = [
        {"arm": arm, "seed": s, "unexplained": {"later": 0.6, "rerun": 0.7}}
        | (
            {
                "recovery": {
                    "within_between": 0.5,
                    "within_between_null": [0, 0.05],
                    "ari": 0.6,
                    "ari_null": [0, 0.1],
                }
            }
            if arm != "none"
            else {}
        )
        for arm in ("0.1", "none")
        for s in (0, 1)
    ]
    summary = {
        "0.1": {"unexplained_later": 0.6, "unexplained_rerun": 0.7, "within_between": 0.5, "ari": 0.6},
        "none": {"unexplained_later": 0.8, "unexplained_rerun": 0.9},
    }
    fig = viz.network_sweep(summary, runs, {"0.1": "σ = 0.1", "none": "no encoding"})
    assert len(fig.axes[0].patches) == 4 and len(fig.axes[1].patches) == 1  # no table, no recovery bar
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()] == ["σ = 0.1", "no encoding"]


def test_network_explorer_redraws_for_the_table_and_the_step():
    g = torch.Generator().manual_seed(0)
    modules = torch.arange(12) // 3
    snapshots = {name: [(step, torch.randn(12, 8, generator=g)) for step in (0, 100)] for name in ("a", "b")}
    assert len(set(_states(widgets.network_explorer(snapshots, modules), [(0, "b"), (1, 0)]))) == 3
    with pytest.raises(ValueError, match="share no snapshot step"):
        widgets.network_explorer({"a": snapshots["a"][:1], "b": snapshots["b"][1:]}, modules)
    fig = widgets.network_view(snapshots, modules, run="a", step=100)
    assert fig._suptitle.get_text().startswith("a, step 100: within − between")


def test_init_scale_curves_draw_every_set_of_every_run_as_it_trained():
    runs = [
        {
            "encoding": e,
            "seed": s,
            "evals": {"step": [10, 20], "train": [0.3, 0.9], "test": [0.3, 0.8], "apart": [0.2, 0.3]},
        }
        for e in ("0.1", "2.0")
        for s in range(2)
    ]
    fig = viz.init_scale_curves(runs, ["0.1", "2.0"], labels={"0.1": "σ = 0.1"})
    assert [ax.get_title() for ax in fig.axes] == ["σ = 0.1", "2.0"]
    assert len(fig.axes[1].lines) == 2 * 3 + 1  # two runs x three sets, and chance
    assert fig.axes[0].get_legend_handles_labels()[1] == ["train", "held-out", "kept apart"]


def test_init_scale_view_names_the_null_of_its_grid_score():
    runs, _ = _fake_sweep()
    run = next(r for r in runs if r["encoding"] == "0.1" and r["seed"] == 1)
    run["grid"] = [
        {"procrustes_null": [0.3, 0.4 + b / 100], "structure": 0.5, "structure_null": [0.0, 0.16]}
        for b in (1, 2)
    ]
    fig = widgets.init_scale_view(runs, sigma="0.1", seed=1, block=1)
    assert "95% at or below 0.42" in fig.axes[-1].get_title()
    assert "against closeness on the grid: 0.50 (shuffled: 95% ≤ 0.16)" in fig.subfigs[0]._suptitle.get_text()


def test_family_and_spiral_explorers_redraw_for_every_control():
    assert len(set(_states(widgets.family_explorer(), [(0, 0.8), (1, "basis")]))) == 3
    assert len(set(_states(widgets.spiral_explorer(), [(0, 4), (0, 8)]))) == 3


def test_family_generators_commute_only_when_the_basis_changes():
    from minivit import analysis

    grid = (6, 6)
    q, k = torch.randn(2, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    start = widgets.family_generators(0.0, "add")
    torch.testing.assert_close(start, widgets.family_generators(0.0, "basis"))  # strength 0: axial RoPE
    for change, commutes in (("add", False), ("basis", True)):
        a = widgets.family_generators(1.0, change)
        torch.testing.assert_close(a, -a.transpose(-1, -2))  # skew-symmetric
        assert not torch.allclose(a, start)
        commutator = (a[0] @ a[1] - a[1] @ a[0]).norm() / (a[0].norm() * a[1].norm())
        within = analysis.offset_dependence(widgets.generator_scores(a, q, k, grid), grid)["fraction"]
        if commutes:
            assert commutator < 1e-12 and within < 1e-12
        else:
            assert commutator > 0.1 and within > 0.02
    with pytest.raises(ValueError, match="unknown change 'twist'"):
        widgets.family_generators(0.5, "twist")


def test_spiral_scores_are_the_encodings_scores():
    from minivit.posenc import build

    grid = (7, 7)
    for directions in (2, 4):
        e = build("rope-spiral", dim=16, heads=1, depth=1, grid=grid, directions=directions)
        ones = torch.ones(1, 1, 49, 16)
        qr, kr = e.rotate(ones, ones, grid, 0)
        from_centre = (kr[0, 0] @ qr[0, 0, 24]).reshape(grid)  # query at (3, 3), key minus query
        table = widgets.spiral_scores(directions, head_dim=16, radius=3)  # (K, m, 7, 7)
        assert table.shape == (directions, 8 // directions, 7, 7)
        torch.testing.assert_close(table.sum(dim=(0, 1)).float(), from_centre, atol=1e-4, rtol=1e-5)
    with pytest.raises(ValueError, match="3 directions do not split the 8 pairs"):
        widgets.spiral_scores(3, head_dim=16)
