"""Sliders for the lessons: thin wiring of ipywidgets to the figures in `minivit.viz`.

Each explorer has a plain function that draws one state (`*_view`, tested headless) and a widget that
calls it (`*_explorer`). A file to a concept; every name is importable from here
(`from minivit import widgets; widgets.sincos_explorer()`):

    encodings.py     the encodings moved by hand: sincos, relative, rope, alibi
    family.py        the rotary family of lesson 12: family (LieRE, STRING), spiral
    tables.py        trained position tables: learned, init_scale, network
    models.py        what a trained model does: shuffle, attention, resolution, inside
    augmentation.py  batch augmentation: augment
    base.py          the wiring they share: explorer, figure_image
    frames.py        an explorer as still pictures, for the website: draw_frames
"""

from minivit.widgets.augmentation import MIXES, augment_explorer, augment_view
from minivit.widgets.base import explorer, figure_image
from minivit.widgets.encodings import (
    alibi_explorer,
    alibi_view,
    relative_explorer,
    relative_view,
    rope_explorer,
    rope_view,
    sincos_explorer,
    sincos_view,
)
from minivit.widgets.family import (
    FAMILY_CHANGES,
    family_explorer,
    family_generators,
    family_view,
    generator_scores,
    spiral_explorer,
    spiral_scores,
    spiral_view,
)
from minivit.widgets.models import (
    attention_explorer,
    attention_view,
    inside_explorer,
    inside_view,
    resolution_explorer,
    resolution_view,
    shuffle_explorer,
    shuffle_view,
)
from minivit.widgets.tables import (
    init_scale_explorer,
    init_scale_view,
    learned_explorer,
    learned_view,
    network_explorer,
    network_view,
)

__all__ = [
    "FAMILY_CHANGES",
    "MIXES",
    "alibi_explorer",
    "alibi_view",
    "attention_explorer",
    "attention_view",
    "augment_explorer",
    "augment_view",
    "explorer",
    "family_explorer",
    "family_generators",
    "family_view",
    "generator_scores",
    "figure_image",
    "init_scale_explorer",
    "init_scale_view",
    "inside_explorer",
    "inside_view",
    "learned_explorer",
    "learned_view",
    "network_explorer",
    "network_view",
    "relative_explorer",
    "relative_view",
    "resolution_explorer",
    "resolution_view",
    "rope_explorer",
    "rope_view",
    "shuffle_explorer",
    "shuffle_view",
    "sincos_explorer",
    "sincos_view",
    "spiral_explorer",
    "spiral_scores",
    "spiral_view",
]
