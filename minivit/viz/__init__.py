"""Figures for the lessons: pure functions, data in, matplotlib Figure out (testable headless).

Figures are made without pyplot, so nothing global is left open: a notebook shows a returned figure
once, and a slider can redraw it as often as it likes. A file to a concept; every figure is
importable from here (`from minivit import viz; viz.similarity_grid(...)`):

    inputs.py     what goes into a model: show_images, shuffle_comparison, augmentations,
                  lst_puzzles, network (a simulated network's connections and traces)
    attention.py  attention over the image: attention_overlay, attention_heads, attention_distances
    tables.py     position tables: encoding_heatmap, similarity_map, similarity_grid,
                  dot_product_profiles, procrustes_layout, module_similarity
    offsets.py    functions of the 2-D offset: offset_table, offset_tables, head_tables, bias_maps,
                  rope_frequencies
    inside.py     what carries position inside a model: score_tests, term_shares, probe_stages,
                  position_scores
    runs.py       training runs and the experiments' results: plot_history, capstone,
                  init_scale_sweep, init_scale_curves, agreement_scatter, resolution_sweep, network_sweep
    base.py       what every figure draws with: ENCODING_COLOURS (one colour per encoding, the same
                  in every figure; `colours` and `line_style` for a list of names), `square` (an
                  outline around one patch)
"""

from minivit.viz.attention import attention_distances, attention_heads, attention_overlay
from minivit.viz.base import ENCODING_COLOURS, colours, encoding_of, line_style, square
from minivit.viz.inputs import augmentations, lst_puzzles, network, show_images, shuffle_comparison
from minivit.viz.inside import position_scores, probe_stages, score_tests, term_shares
from minivit.viz.offsets import bias_maps, head_tables, offset_table, offset_tables, rope_frequencies
from minivit.viz.runs import (
    agreement_scatter,
    capstone,
    init_scale_curves,
    init_scale_sweep,
    network_sweep,
    plot_history,
    resolution_sweep,
)
from minivit.viz.tables import (
    dot_product_profiles,
    encoding_heatmap,
    module_similarity,
    procrustes_layout,
    similarity_grid,
    similarity_map,
)

__all__ = [
    "ENCODING_COLOURS",
    "agreement_scatter",
    "attention_distances",
    "attention_heads",
    "attention_overlay",
    "augmentations",
    "bias_maps",
    "capstone",
    "colours",
    "dot_product_profiles",
    "encoding_heatmap",
    "encoding_of",
    "head_tables",
    "init_scale_curves",
    "init_scale_sweep",
    "line_style",
    "lst_puzzles",
    "module_similarity",
    "network",
    "network_sweep",
    "offset_table",
    "offset_tables",
    "plot_history",
    "position_scores",
    "probe_stages",
    "procrustes_layout",
    "resolution_sweep",
    "rope_frequencies",
    "score_tests",
    "shuffle_comparison",
    "show_images",
    "similarity_grid",
    "similarity_map",
    "square",
    "term_shares",
]
