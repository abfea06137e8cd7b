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

Written as 16-digit strings in raster order: 0 blank, 1-4 a symbol, 5 the query.
"""

from __future__ import annotations

import csv
import functools
import itertools
from collections.abc import Iterable, Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.utils.data import TensorDataset

from minivit.checks import check_whole

BLANK, QUERY = 0, 5
GRADES = ("binary", "ternary", "quaternary")


@functools.cache
def latin_squares() -> Tensor:
    """Every 4x4 Latin square over symbols 1-4: [576, 16] in raster order."""
    rows = list(itertools.permutations(range(1, 5)))
    squares = []

    def extend(chosen):
        if len(chosen) == 4:
            squares.append([s for row in chosen for s in row])
            return
        for row in rows:
            if all(row[c] != other[c] for other in chosen for c in range(4)):
                extend(chosen + [row])

    extend([])
    return torch.tensor(squares)


@functools.cache
def _square_features() -> Tensor:
    """Every Latin square as one-hot (cell, symbol) features: [576, 16*4]."""
    return F.one_hot(latin_squares() - 1, 4).reshape(576, 64).float()


def _lines(q: Tensor) -> tuple[Tensor, Tensor]:
    """The other three cells of the query's row and of its column: [P, 3] each."""
    r, c = q // 4, q % 4
    k = torch.arange(4)
    row = r[:, None] * 4 + k[None, :]  # (P, 4)
    col = k[None, :] * 4 + c[:, None]
    return row[row != q[:, None]].view(-1, 3), col[col != q[:, None]].view(-1, 3)


def _symbols_in(cells: Tensor, idx: Tensor) -> Tensor:
    """Which symbols 1-4 are shown among cells idx [P, k] of puzzles cells [P, 16]: [P, 4] bool."""
    vals = cells.gather(1, idx)  # (P, k)
    return (vals[..., None] == torch.arange(1, 5)).any(1)


def forced(cells: Tensor) -> Tensor:
    """The symbol every consistent Latin square puts at the query, or 0 where none is forced: [P].

    Args:
        cells: [P, 16] puzzles (0 blank, 1-4 shown, 5 query).
    """
    features = _square_features()  # (576, 64)
    shown = F.one_hot(cells, 6)[..., 1:5].reshape(len(cells), 64).float()  # (P, 16*4): shown symbols
    # a square is consistent with a puzzle iff it agrees with every shown cell
    ok = (shown @ features.T == shown.sum(1, keepdim=True)).float()  # (P, 576)
    # how many consistent squares put each symbol at each cell, then at the query's cell
    counts = (ok @ features).view(-1, 16, 4)  # (P, 16, 4)
    q = (cells == QUERY).long().argmax(1)  # (P,)
    at_q = counts[torch.arange(len(cells)), q] > 0  # (P, 4): symbols some consistent square puts there
    return torch.where(at_q.sum(1) == 1, at_q.long().argmax(1) + 1, 0)


def deduction_rounds(cells: Tensor, most: int = 8) -> Tensor:
    """How many rounds of one-step deductions it takes to fill each puzzle's query: [P], 0 where
    `most` rounds do not (the query is then forced only through case analysis, or not at all).

    A round fills, all at once, every blank cell that is a *naked single* (its row and column
    together show the three other symbols) or a *hidden single* (the only cell of its row or of its
    column where some symbol can still go). One round solves every binary and ternary puzzle; a
    quaternary puzzle may need more, when a cell must be worked out before the query.
    """
    p = len(cells)
    values = torch.where((cells >= 1) & (cells <= 4), cells, 0).view(p, 4, 4)
    q = (cells == QUERY).long().argmax(1)
    rounds = torch.zeros(p, dtype=torch.long)
    for r in range(1, most + 1):
        shown = F.one_hot(values, 5)[..., 1:].bool()  # (P, 4, 4, 4): symbol s at (row, col)
        free = (values == 0)[..., None] & ~shown.any(2, keepdim=True) & ~shown.any(1, keepdim=True)
        naked = free.sum(-1) == 1  # (P, 4, 4)
        hidden = free & ((free.sum(2, keepdim=True) == 1) | (free.sum(1, keepdim=True) == 1))
        fill = torch.where(naked, free.float().argmax(-1) + 1, 0)
        fill = torch.where((fill == 0) & hidden.any(-1), hidden.float().argmax(-1) + 1, fill)
        values = torch.where(values == 0, fill, values)
        solved = values.view(p, 16)[torch.arange(p), q] > 0
        rounds = torch.where((rounds == 0) & solved, r, rounds)
        if not (fill > 0).any():
            break
    return rounds


def grades(cells: Tensor) -> list[str | None]:
    """Each puzzle's grade (see the module docstring), None where the query is not forced."""
    q = (cells == QUERY).long().argmax(1)
    row, col = _lines(q)
    in_row, in_col = _symbols_in(cells, row), _symbols_in(cells, col)
    binary = (in_row.sum(1) == 3) | (in_col.sum(1) == 3)
    ternary = (in_row | in_col).sum(1) == 3
    is_forced = forced(cells) > 0
    out: list[str | None] = []
    for b, t, f in zip(binary.tolist(), ternary.tolist(), is_forced.tolist(), strict=True):
        out.append("binary" if b else "ternary" if t else "quaternary" if f else None)
    return out


class LSTSet(TensorDataset):
    """Puzzles as images [n, 6, 4, 4] with answers [n] (0-3 for symbols 1-4), their cells [n, 16]
    and grades."""

    classes = ["1", "2", "3", "4"]

    def __init__(self, cells: Tensor, answers: Tensor, name: str = "lst"):
        super().__init__(to_images(cells), answers - 1)
        self.cells, self.name = cells, name
        self.grades = grades(cells)

    def strings(self) -> list[str]:
        return ["".join(map(str, row)) for row in self.cells.tolist()]

    def __repr__(self) -> str:
        counts = {g: self.grades.count(g) for g in GRADES}
        return f"LSTSet({self.name!r}, n={len(self.cells)}, {counts})"


def to_images(cells: Tensor) -> Tensor:
    """Puzzles [n, 16] -> one-hot images [n, 6, 4, 4] over (blank, 1, 2, 3, 4, query)."""
    return F.one_hot(cells, 6).permute(0, 2, 1).reshape(len(cells), 6, 4, 4).float()


def parse_puzzles(lines: Iterable[str] | str) -> LSTSet:
    """Puzzles written one per line as `<16 digits> <answer>` (or separated by a comma).

    Raises a ValueError naming the line if a puzzle is malformed, not forced, or its answer is wrong.
    """
    if isinstance(lines, str):
        lines = lines.splitlines()
    rows = []
    for n, line in enumerate(lines, 1):
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


def views(cells: Tensor) -> list[str]:
    """Each puzzle's view [n, 16] -> strings "q:row:column": its query cell with the contents of its
    row and its column (digits as in `cells`). The view decides a binary or a ternary puzzle (two
    such puzzles with one view have one answer, whatever the rest of their grids shows); a
    quaternary one also needs cells outside it."""
    q = (cells == QUERY).float().argmax(1)
    r, c = q // 4, q % 4
    k = torch.arange(4)
    rows = cells.gather(1, r[:, None] * 4 + k)
    cols = cells.gather(1, k * 4 + c[:, None])
    return [
        f"{qi}:{''.join(map(str, ri))}:{''.join(map(str, ci))}"
        for qi, ri, ci in zip(q.tolist(), rows.tolist(), cols.tolist(), strict=True)
    ]


def seen_view(cells: Tensor, train: Tensor) -> Tensor:
    """For each puzzle of `cells`, whether some puzzle of `train` has its view (`views`): [n] bool."""
    known = set(views(train))
    return torch.tensor([v in known for v in views(cells)], dtype=torch.bool)


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


def _hide(values: Tensor, q: Tensor, removals: Tensor, g: torch.Generator) -> Tensor:
    """Hide up to `removals` cells of each solved grid, in a random order, keeping the query forced."""
    p = len(values)
    cells = values.clone()
    cells[torch.arange(p), q] = QUERY
    order = torch.rand(p, 16, generator=g).argsort(1)  # (P, 16)
    tried = torch.zeros(p, dtype=torch.long)
    for t in range(16):
        c = order[:, t]
        attempt = (c != q) & (tried < removals)
        tried += attempt.long()
        trial = cells.clone()
        trial[torch.arange(p), c] = torch.where(attempt, BLANK, trial[torch.arange(p), c])
        keep = attempt & (forced(trial) > 0)
        cells = torch.where(keep[:, None], trial, cells)
    return cells


def generate(
    n: int,
    *,
    seed: int = 0,
    squares: Sequence[int] | Tensor | None = None,
    mix: dict[str, float] | None = None,
    exclude: Iterable[str] = (),
    max_rounds: int | None = None,
) -> LSTSet:
    """`n` distinct puzzles from the given squares (indices into `latin_squares()`; default all).

    Args:
        mix: fraction of each grade (default: a third each).
        exclude: puzzle strings that must not be generated (e.g. a training set's).
        max_rounds: keep only puzzles whose query `deduction_rounds` fills within this many rounds
            (1: as in Ito et al.'s puzzle files, where every query follows from the shown cells in
            one round); None keeps every forced puzzle.
    """
    if max_rounds is not None:
        check_whole("max_rounds", max_rounds, 1)
    mix = mix or {g: 1 / 3 for g in GRADES}
    unknown = set(mix) - set(GRADES)
    if unknown:
        raise ValueError(f"unknown grades {sorted(unknown)}; known: {', '.join(GRADES)}")
    quota = {g: round(n * mix.get(g, 0)) for g in GRADES}
    quota[max(mix, key=mix.get)] += n - sum(quota.values())
    pool = torch.as_tensor(range(576) if squares is None else squares)
    g = torch.Generator().manual_seed(seed)
    seen, picked = set(exclude), {gr: [] for gr in GRADES}
    for _ in range(200):
        if all(len(picked[gr]) >= quota[gr] for gr in GRADES):
            break
        batch = 2048
        values = latin_squares()[pool[torch.randint(len(pool), (batch,), generator=g)]]
        q = torch.randint(16, (batch,), generator=g)
        removals = torch.randint(3, 16, (batch,), generator=g)
        cells = _hide(values, q, removals, g)
        if max_rounds is None:  # count rounds only when they are asked for
            within = torch.ones(len(cells), dtype=torch.bool)
        else:
            rounds = deduction_rounds(cells)
            within = (rounds > 0) & (rounds <= max_rounds)
        for row, grade, ok in zip(cells.tolist(), grades(cells), within.tolist(), strict=True):
            key = "".join(map(str, row))
            if grade and ok and key not in seen and len(picked[grade]) < quota[grade]:
                seen.add(key)
                picked[grade].append(row)
    else:
        raise RuntimeError(
            f"could not generate {quota} distinct puzzles from {len(pool)} squares; "
            "ask for fewer puzzles or allow more squares"
        )
    rows = [row for gr in GRADES for row in picked[gr]]
    perm = torch.randperm(len(rows), generator=g)
    cells = torch.tensor(rows)[perm]
    return LSTSet(cells, forced(cells), "generated")


def _features(cells: Tensor) -> Tensor:
    """Binary features of a puzzle for Jaccard distance: each (cell, shown symbol or query) pair."""
    return F.one_hot(cells, 6)[..., 1:].reshape(len(cells), -1).float()  # (n, 16*5)


def min_jaccard_distance(a: Tensor, b: Tensor, chunk: int = 4096) -> Tensor:
    """For each puzzle of `a` [n, 16], its Jaccard distance to the nearest puzzle of `b` [m, 16]."""
    fa, fb = _features(a), _features(b)
    out = []
    for i in range(0, len(fa), chunk):
        x = fa[i : i + chunk]
        inter = x @ fb.T  # (c, m)
        union = x.sum(1, keepdim=True) + fb.sum(1)[None] - inter
        out.append(1 - (inter / union).max(1).values)
    return torch.cat(out)


def splits(
    n_train: int = 8192,
    n_test: int = 1000,
    n_apart: int = 1000,
    *,
    seed: int = 0,
    apart_squares: float = 0.2,
    min_distance: float = 0.3,
    max_rounds: int | None = None,
) -> dict[str, LSTSet]:
    """Train, held-out and kept-apart puzzle sets.

    - train: puzzles from 80% of the squares;
    - test: other puzzles from the same squares (never one of the training puzzles);
    - apart: puzzles from the squares never used in training, each at Jaccard distance at least
      `min_distance` from every training puzzle (over shown (cell, symbol) pairs and the query).

    `max_rounds` is passed to `generate` for all three (1: puzzles like Ito et al.'s).
    """
    order = torch.randperm(576, generator=torch.Generator().manual_seed(seed))
    k = round(576 * apart_squares)
    apart_sq, train_sq = order[:k], order[k:]
    train = generate(n_train, seed=seed, squares=train_sq, max_rounds=max_rounds)
    test = generate(n_test, seed=seed + 1, squares=train_sq, exclude=train.strings(), max_rounds=max_rounds)
    candidates = generate(4 * n_apart, seed=seed + 2, squares=apart_sq, max_rounds=max_rounds)
    far = min_jaccard_distance(candidates.cells, train.cells) >= min_distance
    cells = candidates.cells[far]
    # keep the grade mix: take the first far puzzles of each grade in proportion
    chosen = []
    per = {gr: n_apart // 3 + (i < n_apart % 3) for i, gr in enumerate(GRADES)}
    far_grades = [gr for gr, f in zip(candidates.grades, far.tolist(), strict=True) if f]
    for gr in GRADES:
        idx = [i for i, x in enumerate(far_grades) if x == gr][: per[gr]]
        if len(idx) < per[gr]:
            raise RuntimeError(
                f"only {len(idx)} {gr} puzzles lie {min_distance} from the training set; "
                "lower min_distance or n_apart"
            )
        chosen += idx
    cells = cells[torch.tensor(sorted(chosen))]
    sets = {"train": train, "test": test, "apart": LSTSet(cells, forced(cells), "apart")}
    sets["train"].name, sets["test"].name = "train", "test"
    return sets
