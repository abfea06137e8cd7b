"""Puzzles written down, each checked (well formed, forced, right): one per line as text, the CSV
files of Ito et al. 2024, and the human study's trials; the reference's puzzle files split as its
code splits them (a copy ships with minivit)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

import torch

from minivit.data.lst.rules import GRADES, QUERY, forced
from minivit.data.lst.sets import LSTSet


def parse_puzzles(lines: Iterable[str] | str) -> LSTSet:
    """Puzzles written one per line as `<16 digits> <answer>` (or separated by a comma).

    Raises a ValueError naming the line if a puzzle is malformed, not forced, or its answer is wrong.
    """
    form = "'<16 digits 0-5> <answer 1-4>'"
    if isinstance(lines, str):
        lines = lines.splitlines()
    elif isinstance(lines, bytes | bytearray) or not isinstance(lines, Iterable):
        raise TypeError(
            f"parse_puzzles takes text or lines of text, got {type(lines).__name__}; pass one puzzle a "
            f"line as {form}"
        )
    rows = []
    for n, line in enumerate(lines, 1):
        if not isinstance(line, str):
            raise TypeError(f"line {n} is {type(line).__name__}, not text; pass each line as {form}")
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 2:
            raise ValueError(f"line {n}: {line!r} is not '<16 digits 0-5> <answer 1-4>'")
        rows.append((f"line {n}", parts[0], parts[1], line))
    if not rows:
        raise ValueError("no puzzles found: write one per line as '<16 digits 0-5> <answer 1-4>'")
    return _checked(rows, "parsed")


def read_csv(path: str | Path, *, name: str | None = None) -> LSTSet:
    """Puzzles from a CSV file with `puzzles` and `solutions` columns, the format of the puzzle files
    of Ito et al. 2024 (e.g. `generated_puzzle_data_binary_dist80.csv`: `ID,LST_num,condition,
    puzzles,solutions`; 16 digits in raster order with 5 the query, and the answer 1-4). Other columns
    are ignored.

    Raises a ValueError naming the file and row if a column is missing, a puzzle is malformed (a
    15-digit puzzle is named as one whose leading zero a spreadsheet dropped), not forced, or its
    answer is wrong.
    """
    path = Path(path)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = {"puzzles", "solutions"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(
                f"{path}: no column {', '.join(sorted(missing))}; a puzzle file needs 'puzzles' "
                f"(16 digits 0-5) and 'solutions' (1-4) columns, found {reader.fieldnames}"
            )
        rows = [
            (f"{path}, row {n}", puzzle, answer, f"{puzzle},{answer}")
            for n, r in enumerate(reader, 2)  # row 1 is the header
            for puzzle, answer in [((r["puzzles"] or "").strip(), (r["solutions"] or "").strip())]
        ]
    if not rows:
        raise ValueError(f"{path}: no puzzles below the header")
    return _checked(rows, name or path.stem)


# the puzzle files of Ito et al. 2024, in the reference repository's `processed_data` folder
# (github.com/ljhearne/LSTNN_public): 3,000 generated puzzles of each grade, every one at Jaccard
# distance >= 0.8 from each puzzle of the human study, which is stored in LST_data.mat
REFERENCE_FILES = tuple(f"generated_puzzle_data_{g}_dist80.csv" for g in GRADES)
STUDY_FILE = "LST_data.mat"
REFERENCE_URL = "https://github.com/ljhearne/LSTNN_public/tree/main/processed_data"
# the reference's `dataset.convert_puzzle_data` reads the study's first 108 trials and corrects three
# answers that the .mat file has wrong
STUDY_TRIALS = 108
STUDY_CORRECTIONS = {99: 1, 100: 2, 101: 3}


def read_study(path: str | Path) -> LSTSet:
    """The 108 puzzles of the human study (Hearne et al.) from the reference's `LST_data.mat`
    (`taskData`: a row per trial, 16 cells in raster order with 9 the query, then the answer), with
    the reference's three corrected answers; every puzzle is then checked like `read_csv`'s."""
    from scipy.io import loadmat  # imported here: scipy takes seconds to import

    path = Path(path)
    trials = loadmat(path).get("taskData")
    if trials is None or trials.ndim != 2 or trials.shape[1] != 17:
        raise ValueError(f"{path}: expected a 'taskData' array of rows of 16 cells and an answer")
    rows = []
    for n, row in enumerate(trials[:STUDY_TRIALS].tolist()):
        puzzle = "".join(str(int(v)) for v in row[:16]).replace("9", str(QUERY))
        answer = str(STUDY_CORRECTIONS.get(n, int(row[16])))
        rows.append((f"{path}, trial {n}", puzzle, answer, f"{puzzle} {answer}"))
    return _checked(rows, "study")


PUBLISHED_TEST_ROWS = "published_test_rows.txt"
SPLITS = ("published", "random")


def shipped_folder() -> Path:
    """The copy of the reference's puzzle files and study trials that comes with minivit (its
    `processed_data` at commit d139c51, MIT license; see the README in that folder)."""
    from importlib.resources import files

    return Path(str(files("minivit.data") / "reference"))


def reference_splits(
    folder: str | Path | None = None,
    *,
    split: str = "published",
    seed: int = 0,
    test_fraction: float = 0.1,
) -> dict[str, LSTSet]:
    """The puzzles of Ito et al. 2024: the copy that comes with minivit, or the reference's
    `processed_data` folder (`folder`).

    - train / test: the 9,000 generated puzzles (`REFERENCE_FILES`, in the order binary, ternary,
      quaternary) split as the reference splits them (`split="published"`: stratified by grade, 10%
      held out with random_state 42 in its `lstnn/curricula.py`: 8,100 and 900, the held-out rows
      in `published_test_rows.txt`), or at random (`split="random"`: `test_fraction` held out,
      seeded by `seed`);
    - apart: the human study's 108 puzzles (`STUDY_FILE`), if the folder has it.
    """
    folder = shipped_folder() if folder is None else Path(folder)
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    missing = [f for f in REFERENCE_FILES if not (folder / f).exists()]
    if missing:
        raise FileNotFoundError(
            f"{folder} lacks {', '.join(missing)}; download the reference's puzzle files from "
            f"{REFERENCE_URL} and pass the folder that holds them (or no folder: minivit's own copy)"
        )
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction={test_fraction} is out of range; use a number between 0 and 1")
    parts = [read_csv(folder / f) for f in REFERENCE_FILES]
    cells = torch.cat([p.cells for p in parts])
    answers = torch.cat([p.tensors[1] for p in parts]) + 1
    if split == "published":
        rows = [int(line) for line in (shipped_folder() / PUBLISHED_TEST_ROWS).read_text().split()]
        if len(cells) != 9000:
            raise ValueError(
                f"{folder} holds {len(cells)} puzzles; the published split indexes the reference's "
                "9,000 (3,000 per grade), so use split='random' for other files"
            )
        is_test = torch.zeros(len(cells), dtype=torch.bool)
        is_test[rows] = True
        test, train = is_test.nonzero()[:, 0], (~is_test).nonzero()[:, 0]
    else:
        order = torch.randperm(len(cells), generator=torch.Generator().manual_seed(seed))
        n_test = round(len(cells) * test_fraction)
        test, train = order[:n_test], order[n_test:]
    sets = {
        "train": LSTSet(cells[train], answers[train], "train"),
        "test": LSTSet(cells[test], answers[test], "test"),
    }
    if (folder / STUDY_FILE).exists():
        sets["apart"] = read_study(folder / STUDY_FILE)
        sets["apart"].name = "apart"
    return sets


def _checked(rows: list[tuple[str, str, str, str]], name: str) -> LSTSet:
    """(where, 16-digit puzzle, answer, text as written) rows -> LSTSet, each checked: well formed,
    forced, right."""
    cells, answers = [], []
    for where, puzzle, answer, text in rows:
        if len(puzzle) == 15 and puzzle.isdigit():
            raise ValueError(
                f"{where}: puzzle {puzzle} has 15 digits; a leading 0 was probably dropped "
                "(store the column as text), a puzzle has 16 digits 0-5"
            )
        if len(puzzle) != 16 or not puzzle.isdigit() or answer not in ("1", "2", "3", "4"):
            raise ValueError(f"{where}: {text!r} is not '<16 digits 0-5> <answer 1-4>'")
        digits = [int(ch) for ch in puzzle]
        if max(digits) > QUERY or digits.count(QUERY) != 1:
            raise ValueError(f"{where}: {puzzle} needs digits 0-5 and exactly one query (5)")
        cells.append(digits)
        answers.append(int(answer))
    c, a = torch.tensor(cells), torch.tensor(answers)
    for (where, puzzle, _, _), fi, ai in zip(rows, forced(c).tolist(), a.tolist(), strict=True):
        if fi == 0:
            raise ValueError(f"{where} ({puzzle}): the shown cells do not force the query")
        if fi != ai:
            raise ValueError(f"{where} ({puzzle}): answer {ai} given, but the rules force {fi}")
    return LSTSet(c, a, name)
