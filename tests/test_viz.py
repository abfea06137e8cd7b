"""The lessons' figures and slider functions, drawn headless."""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from minivit import ViT, ViTConfig, viz
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
