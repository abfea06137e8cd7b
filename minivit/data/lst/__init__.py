"""The Latin square task (LST) of Hearne et al. and Ito et al. 2024 (arXiv 2406.08272).

A 4x4 grid holds symbols 1-4 so that no symbol repeats in a row or a column (a Latin square; there
are 576). Some cells are shown, the others blank, and one blank cell is the query: the answer is
the symbol the rules force there. Each cell is a token, one-hot over (blank, 1, 2, 3, 4, query),
so a puzzle is a 6-channel 4x4 "image" that a ViT with patch size 1 reads.

Puzzles are generated: a random square, a random query cell, and cells hidden one by one in a
random order, each only if the query stays forced (checked by enumerating every Latin square
consistent with what is shown). A puzzle's grade says how much of the grid the deduction needs:

    binary      the query's row or its column alone shows the three other symbols
    ternary     neither alone, but its row and column together show the three other symbols
    quaternary  neither: the deduction needs cells outside the query's row and column

How deep the deduction goes is a second measure (`deduction_rounds`): in one round, every blank cell
whose symbol follows directly from the shown cells is filled (a naked or a hidden single). Every
puzzle of Ito et al.'s files, and of the human study, is solved in one round; a generated
quaternary puzzle may need two or three (a cell worked out first, then the query), unless
`generate(..., max_rounds=1)` asks for puzzles like theirs.

Written as 16-digit strings in raster order: 0 blank, 1-4 a symbol, 5 the query. A file to a concept:

    rules.py       latin_squares, forced, grades, deduction_rounds (BLANK, QUERY, GRADES)
    sets.py        LSTSet (puzzles as images with answers), to_images, views, seen_view
    generation.py  generate, splits (train, held-out, kept apart), min_jaccard_distance
    files.py       parse_puzzles, read_csv, read_study, reference_splits (Ito et al.'s files and split),
                   shipped_folder (minivit's copy of them)

Every name is importable from here: `from minivit.data import lst; lst.generate(...)`.
"""

from minivit.data.lst.files import (
    PUBLISHED_TEST_ROWS,
    REFERENCE_FILES,
    REFERENCE_URL,
    SPLITS,
    STUDY_CORRECTIONS,
    STUDY_FILE,
    STUDY_TRIALS,
    parse_puzzles,
    read_csv,
    read_study,
    reference_splits,
    shipped_folder,
)
from minivit.data.lst.generation import generate, min_jaccard_distance, splits
from minivit.data.lst.rules import BLANK, GRADES, QUERY, deduction_rounds, forced, grades, latin_squares
from minivit.data.lst.sets import LSTSet, seen_view, to_images, views

__all__ = [
    "BLANK",
    "GRADES",
    "PUBLISHED_TEST_ROWS",
    "QUERY",
    "REFERENCE_FILES",
    "REFERENCE_URL",
    "SPLITS",
    "STUDY_CORRECTIONS",
    "STUDY_FILE",
    "STUDY_TRIALS",
    "LSTSet",
    "deduction_rounds",
    "forced",
    "generate",
    "grades",
    "latin_squares",
    "min_jaccard_distance",
    "parse_puzzles",
    "read_csv",
    "read_study",
    "reference_splits",
    "seen_view",
    "shipped_folder",
    "splits",
    "to_images",
    "views",
]
