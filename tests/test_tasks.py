"""The synthetic tasks mean what their labels say."""

import pytest
import torch

from minivit.data import SHAPES, TASKS, load_task, make_task, relation, task_shape, where, which_shape
from minivit.data.synthetic import distance


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_is_deterministic_and_renders_at_any_size(name):
    a, b = make_task(name, 8, seed=2), make_task(name, 8, seed=2, image_size=36)
    assert torch.equal(a.labels, b.labels) and torch.equal(a.layout, b.layout)
    assert b.images.shape == (8, 3, 36, 36)


def test_which_shape_shows_one_shape_whose_kind_is_the_label():
    d = which_shape(50)
    assert ((d.layout >= 0).sum(1) == 1).all()
    assert torch.equal(d.layout.max(1).values, d.labels)
    assert d.classes == list(SHAPES)


def test_relation_places_circle_and_square_on_one_line_as_the_label_says():
    d = relation(200)
    for layout, label in zip(d.layout, d.labels.tolist(), strict=True):
        circle = (layout == SHAPES.index("circle")).nonzero().item()
        square = (layout == SHAPES.index("square")).nonzero().item()
        (cr, cc), (sr, sc) = divmod(circle, 3), divmod(square, 3)
        expected = {
            0: cr == sr and cc < sc,
            1: cr == sr and cc > sc,
            2: cc == sc and cr < sr,
            3: cc == sc and cr > sr,
        }[label]
        assert expected, (d.classes[label], circle, square)
    assert torch.bincount(d.labels, minlength=4).min() > 30


def test_odd_one_out_layout_has_one_cell_unlike_the_rest():
    d = make_task("odd_one_out", 100)
    for layout, label in zip(d.layout, d.labels.tolist(), strict=True):
        others = torch.cat([layout[:label], layout[label + 1 :]])
        assert (others == others[0]).all() and layout[label] != others[0]


def test_unknown_task_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown synthetic task 'stripes'; known: odd_one_out, which_shape"):
        make_task("stripes", 4)


def test_where_shows_one_shape_in_the_labelled_cell():
    d = where(60, cells=4)
    assert ((d.layout >= 0).sum(1) == 1).all()
    assert torch.equal((d.layout >= 0).long().argmax(1), d.labels)
    assert len(d.classes) == 16


def test_distance_puts_circle_and_square_on_one_line_as_many_cells_apart_as_the_label_says():
    d = distance(300, cells=5)
    circle_left_or_above = 0
    for layout, label in zip(d.layout, d.labels.tolist(), strict=True):
        a = (layout == SHAPES.index("circle")).nonzero().item()
        b = (layout == SHAPES.index("square")).nonzero().item()
        circle_left_or_above += a < b
        (ar, ac), (br, bc) = divmod(a, 5), divmod(b, 5)
        assert (ar == br and abs(ac - bc) == label + 1) or (ac == bc and abs(ar - br) == label + 1)
        assert (layout >= 0).sum() == 2
    assert torch.bincount(d.labels, minlength=3).min() > 60 and d.images.shape[-1] == 40
    assert 100 < circle_left_or_above < 200  # which comes first does not matter
    rows = {divmod(int(i), 5)[0] for i in (d.layout >= 0).long().argmax(1)}  # of the first circle
    assert rows == set(range(5))  # pairs all over the canvas
    with pytest.raises(ValueError, match="at least 2 cells"):
        distance(4, cells=1)


def test_a_larger_canvas_keeps_the_cells_size_in_pixels_and_a_zoom_does_not():
    task = load_task("distance", train_size=8, test_size=50)
    assert task.image_size == 32 and task.train.layout.shape[1] == 16  # 4 x 4 cells of 8 px
    canvas, zoomed = task.on_canvas(48), task.at_size(48)
    assert canvas.layout.shape[1] == 36 and zoomed.layout.shape[1] == 16  # 6 x 6 cells vs 4 x 4 larger
    assert canvas.tensors[0].shape == zoomed.tensors[0].shape == (50, 3, 48, 48)
    with pytest.raises(ValueError, match="whole cells of 8 px: 44 px is not a multiple of it"):
        task.on_canvas(44)
    assert load_task("mnist-offline", train_size=8, test_size=8).on_canvas is None


@pytest.mark.parametrize("name", [*TASKS, "lst", "digits"])
def test_task_shape_says_what_load_task_gives_without_making_the_data(name):
    size = None if name == "lst" else 16
    shape = task_shape(name, image_size=size, train_size=32, test_size=8)
    data = load_task(name, image_size=size, train_size=32, test_size=8)
    assert (shape.in_channels, shape.num_classes, shape.image_size) == (
        data.in_channels,
        data.num_classes,
        data.image_size,
    )
    made = sum(t.numel() * t.element_size() for ds in (data.train, data.test) for t in ds.tensors[:1])
    assert shape.data_bytes >= made and shape.train_examples == len(data.train)


def test_a_subset_keeps_the_same_test_examples_at_every_size_and_refuses_an_empty_one():
    task = load_task("distance", train_size=40, test_size=30, seed=0)
    small = task.subset(10, 6, seed=1)
    assert (len(small.train), len(small.test)) == (10, 6) and small.train.classes == task.train.classes
    g = torch.Generator().manual_seed(1)  # the draw: training rows, then test rows
    train_rows, test_rows = torch.randperm(40, generator=g)[:10], torch.randperm(30, generator=g)[:6]
    assert torch.equal(small.train.tensors[0], task.train.tensors[0][train_rows])
    # the same six scenes at the training size, zoomed, and on a larger canvas
    for mine, whole in [
        (small.test, task.test),
        (small.at_size(48), task.at_size(48)),
        (small.on_canvas(48), task.on_canvas(48)),
    ]:
        assert all(torch.equal(a, b[test_rows]) for a, b in zip(mine.tensors, whole.tensors, strict=True))
    assert len(small.subset(100, 100).train) == 10  # all of a set that holds fewer
    with pytest.raises(ValueError, match=r"test=0 is below 1"):
        task.subset(10, 0)
