"""The Latin square task's generator keeps its guarantees."""

import pytest
import torch

from minivit.data import lst


def test_there_are_576_distinct_latin_squares():
    sq = lst.latin_squares()
    assert sq.shape == (576, 16)
    assert len({tuple(r) for r in sq.tolist()}) == 576
    grid = sq.view(576, 4, 4)
    for line in (grid, grid.transpose(1, 2)):
        assert (line.sort(-1).values == torch.arange(1, 5)).all()


def puzzle(text):
    return torch.tensor([[int(c) for c in text]])


def test_grades_on_hand_made_puzzles():
    # query at (0, 3); its row shows 1 2 3: binary
    assert lst.grades(puzzle("1235" + "0" * 12)) == ["binary"]
    # row shows 1 2, column shows 3: ternary
    assert lst.grades(puzzle("1205" + "0003" + "0" * 8)) == ["ternary"]
    # column 1 shows 1 and 3, (0, 2) = 2 forces (0, 1) = 4, then the query (2, 1) = 2: quaternary
    assert lst.grades(puzzle("0020010005000300")) == ["quaternary"]
    assert lst.forced(puzzle("0020010005000300")).item() == 2
    # almost nothing shown: not forced
    assert lst.grades(puzzle("5100" + "0" * 12)) == [None]
    assert lst.forced(puzzle("5100" + "0" * 12)).item() == 0


def test_generated_puzzles_are_forced_distinct_graded_and_answered_right():
    s = lst.generate(240, seed=1)
    assert len(set(s.strings())) == 240
    assert {g: s.grades.count(g) for g in lst.GRADES} == {"binary": 80, "ternary": 80, "quaternary": 80}
    assert (s.cells == lst.QUERY).sum(1).eq(1).all()
    answers = lst.forced(s.cells)
    assert (answers > 0).all() and torch.equal(s.tensors[1], answers - 1)
    # uniquely forced: every Latin square consistent with what is shown agrees at the query
    sq = lst.latin_squares()
    for cells in s.cells[:40]:
        shown = (cells >= 1) & (cells <= 4)
        ok = (sq[:, shown] == cells[shown]).all(1)
        q = (cells == lst.QUERY).nonzero().item()
        assert sq[ok, q].unique().numel() == 1


def test_images_are_one_hot_over_blank_symbols_and_query():
    s = lst.generate(30, seed=2)
    x = s.tensors[0]
    assert x.shape == (30, 6, 4, 4)
    assert torch.equal(x.sum(1), torch.ones(30, 4, 4))
    assert torch.equal(x.argmax(1).view(30, 16), s.cells)


def test_splits_keep_test_and_apart_sets_away_from_training():
    sets = lst.splits(600, 150, 150, seed=0)
    train, test, apart = sets["train"], sets["test"], sets["apart"]
    assert not set(train.strings()) & set(test.strings())
    assert (lst.min_jaccard_distance(apart.cells, train.cells) >= 0.3).all()
    assert (lst.min_jaccard_distance(test.cells, train.cells) > 0).all()
    assert len(apart.cells) == 150 and all(apart.grades.count(g) == 50 for g in lst.GRADES)


def test_parse_puzzles_reads_strings_and_checks_them():
    s = lst.parse_puzzles("# a comment\n1235000000000000 4\n0020010005000300,2\n")
    assert s.strings() == ["1235000000000000", "0020010005000300"]
    assert s.tensors[1].tolist() == [3, 1]
    with pytest.raises(ValueError, match="line 1: '123 4' is not"):
        lst.parse_puzzles("123 4")
    with pytest.raises(ValueError, match="exactly one query"):
        lst.parse_puzzles("1255000000000000 4")
    with pytest.raises(ValueError, match="answer 3 given, but the rules force 4"):
        lst.parse_puzzles("1235000000000000 3")
    with pytest.raises(ValueError, match="do not force the query"):
        lst.parse_puzzles("5100000000000000 2")


REFERENCE_CSV = """ID,LST_num,condition,puzzles,solutions
0,,Binary,2000500234001000,4
1,,Ternary,0300340102454032,3
2,,Quaternary,1020050120040000,2
"""


def test_read_csv_reads_the_reference_puzzle_format(tmp_path):
    path = tmp_path / "generated_puzzle_data_dist80.csv"
    path.write_text(REFERENCE_CSV)
    s = lst.read_csv(path)
    assert s.strings() == ["2000500234001000", "0300340102454032", "1020050120040000"]
    assert s.tensors[1].tolist() == [3, 2, 1]  # answers 1-4 become classes 0-3
    assert s.grades == ["binary", "ternary", "quaternary"]  # the file's own condition column
    assert s.name == "generated_puzzle_data_dist80"
    assert (lst.forced(s.cells) == s.tensors[1] + 1).all()


@pytest.mark.parametrize(
    "text, message",
    [
        ("ID,puzzle,solution\n0,2000500234001000,4\n", r"no column puzzles, solutions"),
        ("puzzles,solutions\n", r"no puzzles below the header"),
        (
            "puzzles,solutions\n300340102454032,3\n",
            r"row 2: puzzle 300340102454032 has 15 digits; a leading 0",
        ),
        ("puzzles,solutions\n2000500234001000,4\n20005002340010,4\n", r"row 3: '20005002340010,4' is not"),
        ("puzzles,solutions\n2000500234001000,\n", r"row 2: '2000500234001000,' is not"),
        ("puzzles,solutions\n2000500234001050,4\n", r"row 2: 2000500234001050 needs .* exactly one query"),
        (
            "puzzles,solutions\n2000500234001000,3\n",
            r"row 2 \(2000500234001000\): answer 3 given, but the rules force 4",
        ),
        (
            "puzzles,solutions\n5000000000000000,1\n",
            r"row 2 \(5000000000000000\): the shown cells do not force",
        ),
    ],
)
def test_read_csv_names_the_row_of_a_bad_puzzle(tmp_path, text, message):
    path = tmp_path / "puzzles.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        lst.read_csv(path)


def test_reference_splits_reads_the_reference_folder(tmp_path, reference_folder):
    study = reference_folder(tmp_path)
    sets = lst.reference_splits(tmp_path, split="random", seed=3, test_fraction=0.2)
    assert len(sets["train"]) == 48 and len(sets["test"]) == 12  # 80 / 20 of 60 puzzles
    assert not set(sets["train"].strings()) & set(sets["test"].strings())
    assert sorted(sets["train"].grades + sets["test"].grades) == sorted(list(lst.GRADES) * 20)
    assert torch.equal(sets["apart"].cells, study)  # every trial, the query written as 5
    assert (lst.forced(sets["apart"].cells) == sets["apart"].tensors[1] + 1).all()  # corrections applied
    again = lst.reference_splits(tmp_path, split="random", seed=3, test_fraction=0.2)
    assert again["test"].strings() == sets["test"].strings()  # the split is seeded
    other = lst.reference_splits(tmp_path, split="random", seed=4, test_fraction=0.2)
    assert other["test"].strings() != sets["test"].strings()
    with pytest.raises(ValueError, match=r"holds 60 puzzles; the published split indexes .* split='random'"):
        lst.reference_splits(tmp_path)


def test_reference_splits_names_what_is_missing(tmp_path, reference_folder):
    with pytest.raises(
        FileNotFoundError, match=r"lacks generated_puzzle_data_binary_dist80.csv.*LSTNN_public"
    ):
        lst.reference_splits(tmp_path)
    reference_folder(tmp_path)
    (tmp_path / lst.STUDY_FILE).unlink()
    assert "apart" not in lst.reference_splits(tmp_path, split="random")
    with pytest.raises(ValueError, match=r"unknown split 'paper'; use one of published, random"):
        lst.reference_splits(tmp_path, split="paper")


@pytest.mark.slow
def test_the_shipped_puzzles_split_as_the_reference_splits_them():
    """The copy inside the package, split as lstnn/curricula.py does: stratified by grade, 10% held
    out with random_state 42 (recomputed here with scikit-learn, as the reference computes it)."""
    from sklearn.model_selection import train_test_split

    sets = lst.reference_splits()
    assert [len(sets[k]) for k in ("train", "test", "apart")] == [8100, 900, 108]
    assert sets["test"].grades.count("quaternary") == 300
    grades = [g for g in lst.GRADES for _ in range(3000)]  # the files' order: binary, ternary, quaternary
    _, test, _, _ = train_test_split(range(9000), grades, stratify=grades, test_size=0.1, random_state=42)
    cells = torch.cat([lst.read_csv(lst.shipped_folder() / f).cells for f in lst.REFERENCE_FILES])
    assert torch.equal(sets["test"].cells, cells[sorted(test)])
    # the study's puzzles are far from every generated one, as the files' name ("dist80") says
    assert lst.min_jaccard_distance(sets["apart"].cells, cells).min() >= 0.8


def test_views_are_the_query_with_its_row_and_column():
    a = puzzle("1235400000000000")  # the query in row 0, column 3 (cell 3)
    b = puzzle("1235010000203000")  # the same row and column, another grid elsewhere
    c = puzzle("1235000000000004")  # column 3 shows a 4 in row 3
    assert lst.views(a) == ["3:1235:5000"]
    assert lst.views(b) == lst.views(a) != lst.views(c) == ["3:1235:5004"]
    assert lst.seen_view(torch.cat([b, c]), a).tolist() == [True, False]


def test_deduction_rounds_counts_the_cells_worked_out_before_the_query():
    assert lst.deduction_rounds(puzzle("1235000000000000")).tolist() == [1]  # its row shows 1, 2, 3
    # 3 ? . .  /  . . . .  /  . 4 2 .  /  . . 4 .: the query's row and column leave {1, 2}; the cell
    # right of it can only be 1 (row 3, column 2 and 4), so round 1 fills it and round 2 the query
    assert lst.deduction_rounds(puzzle("3500000004200040")).tolist() == [2]
    assert lst.deduction_rounds(puzzle("3510000004200040")).tolist() == [1]
    assert lst.deduction_rounds(puzzle("5000000000000000")).tolist() == [0]  # not forced at all
    # the reference's three sample rows: one round each, a quaternary one included
    cells = torch.tensor(
        [[int(c) for c in p] for p in ("2000500234001000", "0300340102454032", "1020050120040000")]
    )
    assert lst.deduction_rounds(cells).tolist() == [1, 1, 1]


def test_deduction_never_fills_a_query_the_rules_do_not_force():
    g = torch.Generator().manual_seed(0)
    cells = lst.latin_squares()[torch.randint(576, (4000,), generator=g)]
    cells = torch.where(torch.rand(4000, 16, generator=g) < 0.5, cells, 0)  # show about half
    cells[torch.arange(4000), torch.randint(16, (4000,), generator=g)] = lst.QUERY
    deduced, forced = lst.deduction_rounds(cells) > 0, lst.forced(cells) > 0
    assert deduced.any() and (~deduced & forced).any()  # both kinds occur
    assert (forced[deduced]).all()


def test_generate_can_keep_only_one_round_puzzles_like_the_references():
    mixed = lst.generate(300, seed=2, mix={"quaternary": 1.0})
    rounds = lst.deduction_rounds(mixed.cells)
    assert (rounds >= 2).any()  # some generated quaternary puzzles need a cell worked out first
    shallow = lst.generate(300, seed=2, max_rounds=1)
    assert (lst.deduction_rounds(shallow.cells) == 1).all()
    assert all(shallow.grades.count(g) == 100 for g in lst.GRADES)
