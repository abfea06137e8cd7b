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
    temperature.value = 2.5
    states.append(bytes(view.value))
    assert len(set(states)) == 3


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
    assert len(viz.similarity_grid(table, (4, 4)).axes) == 16
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
    assert len(viz.head_tables(tables).axes) == 4  # two tables and their colour bars
    assert len(viz.bias_maps(torch.randn(3, 9, 9), (3, 3), 4).axes) == 6
    freqs = torch.randn(2, 2, 3, 4)
    assert len(viz.rope_frequencies(freqs, freqs * 1.1).axes) == 3
