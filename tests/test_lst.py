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
