"""Measurements on encodings and attention, a file to a concept; every name is importable from here
(`from minivit import analysis; analysis.grid_recovery(...)`).

    tables.py     position tables and their grid: cosine_similarity, same_row_or_column,
                  structure_score, procrustes; grid_distances is the encodings' (`minivit.posenc`)
    attention.py  attention statistics: entropy, with_temperature, uniform_entropy,
                  attention_agreement, mean_attention_distance (of weights), mean_attention_distances
                  (of every block and head of a model)
    trace.py      looking inside a model: block_tokens (what each block receives and returns),
                  attention_logits, logit_terms (the logits split into content and position terms),
                  same_content_scores (a block's logits with one content vector at every position)
    offsets.py    scores between patches [..., N, N] by offset: offset_table, offset_dependence and
                  direction_asymmetry (does a score depend on the offset only, is it symmetric in
                  it), offset_locality
    probe.py      position_probe: a linear read-out of (row, col) from the tokens at every stage
    clusters.py   which tokens belong together: kmeans, adjusted_rand_index, rank_correlation,
                  within_between, and module_recovery (all three against a network's modules)
    layout.py     how much of a grid's layout a table holds: grid_recovery, layout_tests
    nulls.py      permutation nulls, and `holm`, which adjusts many p-values at once
"""

from minivit.analysis.attention import (
    attention_agreement,
    entropy,
    mean_attention_distance,
    mean_attention_distances,
    uniform_entropy,
    with_temperature,
)
from minivit.analysis.clusters import (
    adjusted_rand_index,
    kmeans,
    module_recovery,
    rank_correlation,
    within_between,
)
from minivit.analysis.layout import grid_recovery, layout_tests
from minivit.analysis.nulls import holm
from minivit.analysis.offsets import direction_asymmetry, offset_dependence, offset_locality, offset_table
from minivit.analysis.probe import position_probe
from minivit.analysis.tables import cosine_similarity, procrustes, same_row_or_column, structure_score
from minivit.analysis.trace import (
    TERMS,
    attention_logits,
    block_tokens,
    logit_terms,
    same_content_scores,
)
from minivit.posenc.base import grid_distances

__all__ = [
    "TERMS",
    "adjusted_rand_index",
    "attention_agreement",
    "attention_logits",
    "block_tokens",
    "cosine_similarity",
    "direction_asymmetry",
    "entropy",
    "grid_distances",
    "grid_recovery",
    "holm",
    "kmeans",
    "layout_tests",
    "logit_terms",
    "mean_attention_distance",
    "mean_attention_distances",
    "module_recovery",
    "offset_dependence",
    "offset_locality",
    "offset_table",
    "position_probe",
    "procrustes",
    "rank_correlation",
    "same_content_scores",
    "same_row_or_column",
    "structure_score",
    "uniform_entropy",
    "within_between",
    "with_temperature",
]
