"""The synthetic tasks mean what their labels say."""

import pytest
import torch

from minivit.data import SHAPES, TASKS, make_task, relation, where, which_shape


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
