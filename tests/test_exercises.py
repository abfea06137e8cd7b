"""The lessons' checked exercises (`minivit.exercises`): every worked solution in `solutions/` passes
its check, a plausible wrong answer to every exercise fails with the hint meant for it, and each
lesson wires its exercises in as answer and check cells that run unanswered without error.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import math
import re
from pathlib import Path

import jupytext
import pytest
import torch
import torch.nn.functional as F

from minivit import exercises
from minivit.data import shuffle_patches
from tests import exercise_answers as A
from tests.exercise_answers import ACCEPTED, REFUSED
from tests.exercise_forms import solution, solution_as, solutions

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.md"))
IDS = exercises.known()


def checked(exercise_id: str, answer, capsys) -> tuple[bool, str]:
    passed = exercises.check(exercise_id, answer)
    out = capsys.readouterr().out
    assert out.count("\n") == 1, f"{exercise_id}: the check printed {out!r}, not one line"
    return passed, out.strip()


def test_there_are_three_checked_exercises_per_lesson_or_more():
    lessons = {py.name[:2] for py in LESSONS}
    per_lesson = {n: [i for i in IDS if i.startswith(n + ".")] for n in lessons}
    assert all(len(ids) >= 3 for ids in per_lesson.values()), per_lesson
    assert len(IDS) >= 55


def test_every_exercise_has_a_worked_solution_and_every_solution_an_exercise():
    assert sorted(solutions()) == sorted(IDS)
    for exercise_id, (name, code) in solutions().items():
        assert name[:2] == exercise_id[:2], f"{exercise_id} is solved in {name}"
        assert f"answer_{exercise_id.replace('.', '_')}" in code, f"{exercise_id}: no answer in its code"


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_worked_solution_passes(exercise_id, capsys):
    passed, line = checked(exercise_id, solution(exercise_id), capsys)
    assert passed and line.startswith(f"✓ {exercise_id}: "), line


# --- wrong answers ----------------------------------------------------------------------------------


def unshuffled_change(model, images, perm):
    return (model.features(images) - model.features(images)).abs().max().item()


def patch_8_change(model, images, perm):
    return (model.features(shuffle_patches(images, 8, perm)) - model.features(images)).abs().max().item()


def transposed_causal(n):
    return torch.full((n, n), float("-inf")).triu(1).T


def raised_to_t(weights, t):
    w = weights**t
    return w / w.sum(-1, keepdim=True)


def first_rows(table, grid, size):
    return table[: size * size]


def key_minus_query(table, grid, clip):
    rc = torch.stack(torch.meshgrid(torch.arange(grid[0]), torch.arange(grid[1]), indexing="ij"), -1)
    rc = rc.reshape(-1, 2)
    off = (rc[None, :, :] - rc[:, None, :]).clamp(-clip, clip) + clip
    return table[:, off[..., 0], off[..., 1]]


def unclamped(table, grid, clip):
    rc = torch.stack(torch.meshgrid(torch.arange(grid[0]), torch.arange(grid[1]), indexing="ij"), -1)
    rc = rc.reshape(-1, 2)
    off = rc[:, None, :] - rc[None, :, :] + clip
    return table[:, off[..., 0], off[..., 1]]


def rotated_both(encoding, q, k, grid):
    n = grid[0] * grid[1]
    qs, ks = q.expand(1, encoding.heads, n, len(q)), k.expand(1, encoding.heads, n, len(k))
    qr, kr = encoding.rotate(qs, ks, grid, 0)
    return (qr[0, 0] * kr[0, 0]).sum(-1)


def axial_one_channel(dr, dc, base):
    return sum(math.cos(base ** (-4 * i / 16) * dc) + math.cos(base ** (-4 * i / 16) * dr) for i in range(4))


def uniform_without_self(grid, radius):
    rc = torch.cartesian_prod(torch.arange(grid[0]), torch.arange(grid[1])).double().reshape(-1, 2)
    d = torch.cdist(rc, rc)
    near = (d <= radius) & (d > 0)
    return ((d * near).sum(1) / near.sum(1).clamp_min(1)).mean().item()


def row_or_column_rule(cells):
    out = []
    for p in cells.tolist():
        r, c = divmod(p.index(5), 4)
        row, col = set(p[r * 4 : r * 4 + 4]), set(p[c::4])
        missing = {1, 2, 3, 4} - (row if len(row & {1, 2, 3, 4}) == 3 else col)
        out.append(missing.pop() if len(missing) == 1 else 0)
    return torch.tensor(out)


def row_view(cells):
    return [(p.index(5), tuple(p[p.index(5) // 4 * 4 :][:4])) for p in cells.tolist()]


def whole_grid_view(cells):
    return [tuple(p) for p in cells.tolist()]


def row_only_binary(cells):
    out = []
    for p in cells.tolist():
        r, c = divmod(p.index(5), 4)
        row = {v for v in p[r * 4 : r * 4 + 4] if 1 <= v <= 4}
        col = {v for v in p[c::4] if 1 <= v <= 4}
        out.append("binary" if len(row) == 3 else "ternary" if len(row | col) == 3 else "quaternary")
    return out


def corners_aligned(table, old, new):
    image = table[1:].T.reshape(1, table.shape[1], *old)
    resized = F.interpolate(image, size=new, mode="bicubic", align_corners=True)
    return torch.cat([table[:1], resized.reshape(table.shape[1], -1).T])


def no_class_token(table, old, new):
    image = table[1:].T.reshape(1, table.shape[1], *old)
    return F.interpolate(image, size=new, mode="bicubic").reshape(table.shape[1], -1).T


def flops_without_attention(config):
    from minivit import ViT

    params = sum(p.numel() for p in ViT(config).parameters())
    return 6 * params * config.grid[0] * config.grid[1]


def within_with_self(similarity, modules):
    same = modules[:, None] == modules[None, :]
    return (similarity[same].mean() - similarity[~same].mean()).item()


def explained_share(scores, grid):
    return 1 - solution("11.6")(scores, grid)


def by_raster_offset(scores, grid):
    n = grid[0] * grid[1]
    idx = torch.arange(n)
    group = (idx[:, None] - idx[None, :] + n - 1).reshape(-1)  # the 1-D offset j - i of the raster index
    s = scores.reshape(-1).double()
    means = torch.zeros(2 * n - 1, dtype=s.dtype).index_add_(0, group, s) / torch.bincount(
        group, minlength=2 * n - 1
    )
    return (((s - means[group]) ** 2).mean() / s.var(unbiased=False)).item()


def sincos_table():
    from minivit.posenc import sincos_2d

    return sincos_2d((6, 6), 64)


def built(answer):
    """The answer; a function of no arguments at all builds it (so that tables are drawn lazily)."""
    if callable(answer) and not inspect.signature(answer).parameters:
        return answer()
    return answer


# (exercise id, a wrong answer, words of the hint it must get); lambdas build the answer lazily
WRONG = [
    ("00.2", unshuffled_change, "shuffle_patches(images, model.config.patch_size, perm)"),
    ("00.2", patch_8_change, "read the patch size from the model"),
    ("00.3", ((3, 3), 1), "24 / patch_size"),
    ("00.3", ((6, 6), 2), "how many patches fit across it, and how many down"),
    ("00.5", {"none", "peg"}, "zero padding"),
    ("00.5", {"learned"}, "without an encoding every part of the model treats tokens alike"),
    ("00.5", {"none", "nope"}, "the encodings: none, learned"),
    ("01.1", 1 / 16, "one head's width"),
    ("01.1", 16.0, "the temperature divides the scores"),
    ("01.4", transposed_causal, "row i is the query"),
    ("01.4", lambda n: torch.ones(n, n).tril(), "0/1 weights are a mask"),
    ("01.5", raised_to_t, "raise to 1/T, not T"),
    ("01.5", lambda w, t: w ** (1 / t), "each row must be a distribution again"),
    ("02.1", 3, "compare each offset with the one before"),
    ("02.1", 5, "look from k = 1 upwards"),
    ("02.2", (1, 7), "which patch is one step from (0, 7)"),
    ("02.2", (0, 5), "similarity depends on the raster offset alone"),
    ("02.3", first_rows, "lay the table out as (gh, gw, D)"),
    ("02.4", lambda s_row, s_col, s_same: s_row + s_col, "which parts does s_row + s_col hold"),
    ("02.5", lambda: torch.eye(32), "a b ≠ 0 mixes a pair's sine with its cosine"),
    (
        "02.5",
        lambda: torch.randn(32, 32, generator=torch.Generator().manual_seed(1)),
        "commutes with every shift",
    ),
    ("02.5", lambda: torch.zeros(32, 32), "give the channel pairs blocks that are not zero"),
    ("03.7", lambda a: 1.0 + a, "cutting off the tails"),
    ("03.7", lambda a: 0.95, "trunc_normal_"),
    ("03.8", lambda sigma, dim: sigma, "sum of dim squared entries"),
    ("03.9", sincos_table, "a smooth layout scores 0"),
    (
        "03.9",
        lambda: torch.randn(36, 16, generator=torch.Generator().manual_seed(0)),
        "the 4 positions of a cell",
    ),
    ("04.1", 10.0, "the reach at 1× is the sum of lr_at"),
    ("04.1", math.log(15) / (600 * 3e-3), "the warmup and the cosine decay"),
    ("04.3", key_minus_query, "the query's position minus the key's"),
    ("04.3", unclamped, "clamp each offset to [−clip, clip]"),
    (
        "04.6",
        lambda: torch.randn(2, 7, 7, generator=torch.Generator().manual_seed(0)),
        "the same for every key",
    ),
    ("04.6", lambda: torch.zeros(2, 7, 7), "added to every score of a query's row"),
    ("05.3", lambda base, s, d: base * s, "base^(−(d − 2)/d), not 1/base"),
    ("05.4", rotated_both, "rotate only the key"),
    ("05.5", axial_one_channel, "each pair holds two channels"),
    (
        "05.5",
        lambda dr, dc, base: 2 * sum(math.cos(base ** (-i / 8) * (dr + dc)) for i in range(8)),
        "Dh/4 = 4",
    ),
    (
        "06.1",
        lambda grid: torch.arange(grid[0] * grid[1]).view(*grid).flip(0).reshape(-1),
        "mirror left to right",
    ),
    ("06.1", lambda grid: torch.arange(36).view(6, 6).flip(1).reshape(-1), "every patch once"),
    ("06.4", lambda: [1.4204, 1.4513], "caches its bias per grid"),
    ("06.4", [1.0, 1.0], "with each slope 16 times larger"),
    ("06.5", uniform_without_self, "attends to the query's own patch too"),
    ("06.5", lambda grid, radius: grid[0] + grid[1], "Euclidean distance"),
    ("07.4", row_or_column_rule, "not only the query's row or column"),
    ("07.5", row_view, "the view holds the query's column too"),
    ("07.5", whole_grid_view, "what lies elsewhere is no part of it"),
    ("07.6", row_only_binary, "reread the grades' definition"),
    ("08.5", lambda trained, new: torch.arange(new) * (trained - 1) / (new - 1), "not (L − 1)/(L′ − 1)"),
    ("08.6", lambda labels: torch.tensor([1, 0, 2, 3])[labels], "where does 'left of' go"),
    ("08.6", lambda labels: torch.tensor([3, 2, 1, 0])[labels], "transpose them"),
    ("08.7", corners_aligned, "align_corners=False"),
    ("08.7", no_class_token, "the class token's row, then one row per new patch"),
    ("09.6", flops_without_attention, "no parameter counts them"),
    (
        "09.7",
        lambda labels, lam, k: lam * F.one_hot(labels, k) + (1 - lam) * F.one_hot(labels, k).roll(1, 0),
        "the batch reversed",
    ),
    ("09.8", 64, "solve 6 P T = 12 T² D L"),
    ("10.4", 1, "compare each σ = 0.02 run's"),
    ("10.4", 9, "the seeds: [0, 1, 2, 3, 4]"),
    ("10.5", within_with_self, "leave out the diagonal"),
    ("10.6", lambda modules: modules.sort().values, "return indices"),
    ("10.6", lambda modules: torch.arange(len(modules)), "one module after another"),
    ("11.2", lambda grid, k: grid[0] * grid[1], "same neighbours inside"),
    ("11.2", lambda grid, k: 9, "same neighbours inside"),
    ("11.5", lambda g: 3 / g**2, "count those classes of cells"),
    ("11.6", explained_share, "what is left within each offset"),
    ("11.6", by_raster_offset, "group the pairs (i, j) by their 2-D offset"),
    ("12.1", lambda encoding, grid: solution("12.1")(encoding, grid).flip(0), "A_row first"),
    ("12.1", lambda encoding, grid: -solution("12.1")(encoding, grid), "exp(angle J)"),
    ("12.2", lambda a, b, t: t**2 * (a @ b - b @ a), "mind the half"),
    ("12.2", lambda a, b, t: t**2 / 2 * (b @ a - a @ b), "AB − BA, in that order"),
    (
        "12.2",
        lambda a, b, t: (
            torch.linalg.matrix_exp(t * a) @ torch.linalg.matrix_exp(t * b)
            - torch.linalg.matrix_exp(t * (a + b))
        ),
        "without the higher powers of t",
    ),
    ("12.3", lambda k: 3 * k // 4, "return None"),
    ("12.3", lambda k: k // 4 if k % 4 == 0 else None, "turns with r − c"),
    ("00.6", A.patch_shuffle(inverse=True), "out[i] = in[perm[i]]"),
    ("01.6", lambda w: -(w * w.log()).sum(-1), "0 · log 0"),
    (
        "02.6",
        lambda d, b, s: sum(2 * math.pi * b ** (2 * i / d) < s for i in range(d // 2)),
        "half the width",
    ),
    ("03.10", A.structure(self_pairs=True), "distinct positions"),
    ("04.7", A.pair_counts(clamp=False), "every pair counts"),
    ("05.6", A.rope_closed(sign=1.0), "n = m + offset"),
    ("06.6", A.grid_moves(square_only=False), "fits only a square"),
    ("07.7", A.jaccard(blanks=True), "a blank cell shows nothing"),
    ("08.8", lambda t, n: (1 - t[0] / n[0]) * (1 - t[1] / n[1]), "one new coordinate is enough"),
    ("09.9", lambda h, w, lam, cy, cx: lam, "the area actually pasted"),
    ("10.7", A.exact_p(strict=True), "the true labelling is one"),
    ("10.8", lambda m, s, pw, pb: s * pw / (s * pw + (m - 1) * s * pb), "no edge to itself"),
    ("11.7", A.attention_distance(renormalise=False), "renormalise"),
    ("11.8", A.four_terms(order=(0, 2, 1, 3)), "q(c_i)·k(e_j)"),
    ("12.8", A.pope_score(phase=1.0), "the key carries the phase"),
]


def test_every_exercise_has_a_wrong_answer():
    assert {w[0] for w in WRONG} == set(IDS)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "hint"), WRONG, ids=[f"{w[0]}-{i}" for i, w in enumerate(WRONG)]
)
def test_a_wrong_answer_fails_with_its_hint(exercise_id, answer, hint, capsys):
    answer = built(answer)
    passed, line = checked(exercise_id, answer, capsys)
    assert not passed and line.startswith(f"✗ {exercise_id}: "), line
    what, _, given = line.partition(" — hint: ")
    assert given, f"no hint in {line!r}"
    assert hint in given, f"{exercise_id}: wanted a hint with {hint!r}, got {line!r}"


@pytest.mark.parametrize(
    ("exercise_id", "wrong", "right"),
    [("01.1", 0.2, "0.088"), ("03.7", lambda a: 0.7, "0.88"), ("04.1", 4.5, "2.99"), ("09.8", 500, "1164")],
)
def test_a_wrong_number_is_not_told_the_right_one(exercise_id, wrong, right, capsys):
    passed, line = checked(exercise_id, wrong, capsys)
    assert not passed and right not in line, line


def test_an_answer_that_is_not_a_function_is_named(capsys):
    passed, line = checked("02.3", 42, capsys)
    assert not passed and "not a function" in line and "def answer_02_3(table, grid, size):" in line


@pytest.mark.parametrize("exercise_id", ["00.2", "04.6", "06.1"])
def test_a_check_leaves_the_global_random_state_as_it_was(exercise_id, capsys):
    state = torch.random.get_rng_state()
    checked(exercise_id, solution(exercise_id), capsys)
    assert torch.equal(torch.random.get_rng_state(), state)


# --- every checked exercise: typical wrong answers refused, right ones in other forms accepted ---------


def test_every_exercise_has_five_wrong_answers_and_two_other_right_forms():
    wrong = {i: sum(1 for w in WRONG + REFUSED if w[0] == i) for i in IDS}
    right = {i: sum(1 for a in ACCEPTED if a[0] == i) for i in IDS}
    assert all(n >= 5 for n in wrong.values()), {i: n for i, n in wrong.items() if n < 5}
    assert all(n >= 2 for n in right.values()), {i: n for i, n in right.items() if n < 2}


@pytest.mark.parametrize(("exercise_id", "answer", "what"), REFUSED, ids=[f"{r[0]}-{r[2]}" for r in REFUSED])
def test_a_typical_wrong_answer_is_refused(exercise_id, answer, what, capsys):
    passed, line = checked(exercise_id, built(answer), capsys)
    assert not passed and line.startswith(f"✗ {exercise_id}: ") and " — hint: " in line, (what, line)
    assert "could not use" not in line, (what, line)  # told what is wrong, not that the check failed


@pytest.mark.parametrize(
    ("exercise_id", "answer", "form"), ACCEPTED, ids=[f"{a[0]}-{a[2]}" for a in ACCEPTED]
)
def test_a_right_answer_in_another_form_is_accepted(exercise_id, answer, form, capsys):
    passed, line = checked(exercise_id, built(answer), capsys)
    assert passed and line.startswith(f"✓ {exercise_id}: "), (form, line)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "words"),
    [
        ("07.4", "lst.forced", "calls lst.forced"),
        ("07.5", "lst.views", "calls lst.views"),
        ("07.6", "lst.grades", "calls lst.grades"),
        ("11.6", "analysis.offset_dependence", "calls analysis.offset_dependence"),
        ("01.5", "analysis.with_temperature", "calls analysis.with_temperature"),
    ],
)
def test_the_packages_own_answer_is_refused_however_it_was_imported(exercise_id, answer, words, capsys):
    import importlib

    module, name = answer.split(".")
    function = getattr(
        importlib.import_module({"lst": "minivit.data.lst", "analysis": "minivit.analysis"}[module]), name
    )
    code = function.__code__

    def answer_calling(*args):
        return function(*args)  # imported under another name: still refused

    for given in (function, answer_calling):
        passed, line = checked(exercise_id, given, capsys)
        assert not passed and words in line, line
    assert function.__code__ is code  # the package function is whole again after the check


def test_the_checks_own_calls_of_the_package_function_still_work(capsys):
    from minivit.data import lst

    checked("07.4", lst.forced, capsys)
    cells = lst.generate(3, seed=0).cells
    assert lst.forced(cells).tolist() == solution("07.4")(cells).tolist()


def test_an_answer_that_loops_forever_is_stopped_with_a_clear_line(capsys):
    def answer_07_4(cells):
        while True:
            pass

    passed = exercises.check("07.4", answer_07_4, seconds=0.3)
    line = capsys.readouterr().out.strip()
    assert not passed and "stopped your answer after 0.3 s" in line and "answer_07_4, line" in line, line
    assert "`while True:`" in line, line


def test_a_time_limit_leaves_an_outer_timer_running():
    import signal

    from minivit.exercises.core import time_limit

    previous = signal.signal(signal.SIGALRM, lambda *args: None)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        with time_limit(5.0):
            pass
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 25.0 < left <= 30.0, left
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_error_in_the_answer_is_shown_with_its_line(capsys):
    def answer_06_1(grid):
        order = torch.arange(grid[0] * grid[1])
        return order[grid[0] * grid[1]]  # one past the end

    passed, line = checked("06.1", answer_06_1, capsys)
    assert not passed and "your answer raised IndexError" in line, line
    assert "in answer_06_1, line" in line and "`return order[grid[0] * grid[1]]" in line, line


@pytest.mark.parametrize(
    ("exercise_id", "answer", "words"),
    [
        (
            "02.5",
            lambda: torch.eye(32).index_put_((torch.tensor(0), torch.tensor(0)), torch.tensor(math.nan)),
            "NaN",
        ),
        ("02.5", lambda: torch.full((32, 32), math.inf), "infinity"),
        ("02.5", lambda: torch.empty(32, 32, device="meta"), "meta device"),
        (
            "09.7",
            lambda: __import__("tests.exercise_forms").exercise_forms.mixup(combine=torch.maximum),
            "not 1",
        ),
    ],
)
def test_a_message_names_what_is_wrong(exercise_id, answer, words, capsys):
    passed, line = checked(exercise_id, built(answer), capsys)
    what = line.partition(" — hint: ")[0]
    assert not passed and words in what, line
    assert "scores nothing" not in line and "sums to 1," not in line, line


# --- unanswered and unknown ----------------------------------------------------------------------


@pytest.mark.parametrize("answer", [..., None])
def test_an_unanswered_exercise_says_so_and_does_not_raise(answer, capsys):
    for exercise_id in IDS:
        assert exercises.check(exercise_id, answer) is False
        assert capsys.readouterr().out == f"{exercise_id}: not answered yet\n"


@pytest.mark.parametrize("exercise_id", ["02.9", "00.4", "02_1", "12.4", 0.2, None])
def test_an_unknown_exercise_is_told_in_one_line_that_lists_the_checked_ones(exercise_id, capsys):
    passed, line = checked(exercise_id, 1, capsys)
    assert not passed and line.startswith("✗ ") and "00.2, 00.3" in line and IDS[-1] in line, line


@pytest.mark.parametrize(("exercise_id", "written"), [("2.1", '"02.1"'), ("0.2", '"00.2"'), ("02.10", "")])
def test_an_id_written_without_its_zero_is_told_how_to_write_it(exercise_id, written, capsys):
    passed, line = checked(exercise_id, 4, capsys)
    assert not passed and (written in line if written else "has no check" in line), line


def test_an_id_with_spaces_around_it_is_checked(capsys):
    passed, line = checked(" 02.1 ", 4, capsys)
    assert passed and line.startswith("✓ 02.1: "), line


# --- what the checks take for granted ---------------------------------------------------------------


def test_only_the_model_without_an_encoding_ignores_a_shuffle():
    from minivit import REGISTRY, ViT, ViTConfig
    from minivit.data import odd_one_out
    from minivit.exercises.lesson_00 import invariant, why

    images = odd_one_out(4, seed=0).images
    perm = torch.randperm(9, generator=torch.Generator().manual_seed(0))
    for name in REGISTRY:
        model = ViT(
            ViTConfig(image_size=24, patch_size=8, num_classes=9, dim=32, depth=2, heads=2, position=name)
        )
        with torch.no_grad():
            for p in model.parameters():
                p.normal_(std=0.3)
            change = (model.features(shuffle_patches(images, 8, perm)) - model.features(images)).abs().max()
        assert (change < 1e-5) == (name in invariant()), (
            f"{name}: the pooled output moves by {change:.2g}; exercise 00.5 reads an encoding as blind "
            "to a shuffle when it overrides none of PositionalEncoding's hooks "
            "(minivit/exercises/lesson_00.py, `invariant`)"
        )
        assert name in invariant() or why(name), name


def test_the_relation_labels_are_read_from_the_layout():
    from minivit.data import relation
    from minivit.exercises.lesson_08 import _relation_labels

    data = relation(200, seed=0)
    assert torch.equal(_relation_labels(data.layout, 3), data.labels)


# --- the lessons ----------------------------------------------------------------------------------


def exercise_cells(py: Path) -> tuple[list, list]:
    """The lesson's cells, and the indices of its code cells tagged "exercise"."""
    cells = jupytext.read(py).cells
    tagged = [i for i, c in enumerate(cells) if "exercise" in c.metadata.get("tags", [])]
    return cells, tagged


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_each_lesson_wires_its_exercises_in_answer_and_check_cells(py):
    cells, tagged = exercise_cells(py)
    ids = [i for i in IDS if i.startswith(py.name[:2] + ".")]
    assert len(tagged) == 2 * len(ids), f"{py.name}: {len(tagged)} exercise cells for {len(ids)} exercises"
    assert all(cells[i].cell_type == "code" for i in tagged)
    assert cells[tagged[0]].source.startswith("from minivit import exercises\n")
    for k, exercise_id in enumerate(ids):
        name = "answer_" + exercise_id.replace(".", "_")
        answer, check = cells[tagged[2 * k]].source, cells[tagged[2 * k + 1]].source
        assert answer.splitlines()[-1] == f"{name} = ...  # your code", f"{py.name}: {answer!r}"
        assert check == f'exercises.check("{exercise_id}", {name})', f"{py.name}: {check!r}"
        assert tagged[2 * k + 1] == tagged[2 * k] + 1, (
            f"{py.name}: {exercise_id}'s check must follow its answer"
        )
        number = exercise_id.split(".")[1]
        above = [c.source for c in cells[: tagged[2 * k]] if c.cell_type == "markdown"][-1]
        assert re.search(rf"^{number}\. ", above, re.M), f"{py.name}: no exercise {number} above its cells"


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_exercise_cells_come_after_every_claim_and_before_the_claims_index(py):
    cells, tagged = exercise_cells(py)
    heading = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and "## Exercises" in c.source)
    index = next(
        i for i, c in enumerate(cells) if c.cell_type == "markdown" and "## Claims index" in c.source
    )
    assert heading < tagged[0] and tagged[-1] < index
    assert "](../solutions/)" in cells[heading].source.split("\n\n")[1], f"{py.name}: link the solutions"
    after = [i for i, c in enumerate(cells) if i > heading and c.cell_type == "code" and i not in tagged]
    assert not after, f"{py.name}: code cells among the exercises that are not exercise cells"
    claims = [
        i
        for i, c in enumerate(cells)
        if c.cell_type == "code" and re.search(r"\bassert\b|lesson\.claim\(", c.source)
    ]
    assert max(claims) < heading


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_an_unanswered_lesson_runs_its_exercise_cells_without_error(py):
    cells, tagged = exercise_cells(py)
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i in tagged:
            exec(compile(cells[i].source, f"{py.name} cell {i}", "exec"), namespace)
    ids = [i for i in IDS if i.startswith(py.name[:2] + ".")]
    assert out.getvalue() == "".join(f"{i}: not answered yet\n" for i in ids)


def test_every_encoding_has_its_reason_in_exercise_00_5_read_from_its_hooks():
    from minivit import REGISTRY
    from minivit.exercises import lesson_00

    assert lesson_00.invariant() == {"none"}
    assert set(lesson_00.WHY) <= set(REGISTRY)  # the sharper hints name encodings that exist
    for name in set(REGISTRY) - lesson_00.invariant():
        hint = lesson_00.why(name)
        assert hint and (name in lesson_00.WHY or hint.startswith(name)), (name, hint)


def test_a_new_encoding_gets_a_hint_in_exercise_00_5_without_an_edit(monkeypatch, capsys):
    from minivit import REGISTRY
    from minivit.posenc.base import PositionalEncoding

    class Toy(PositionalEncoding):
        def attn_bias(self, grid, layer):
            return None

    monkeypatch.setitem(REGISTRY, "toy", Toy)
    passed, line = checked("00.5", {"none", "toy"}, capsys)
    assert not passed and "toy changes the pooled output" in line, line
    assert "hint: toy biases attention by where the two patches are" in line, line


# --- cases a learner found: a right answer refused, a wrong one accepted, a hint off or too strong ---


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("01.1", 0.088),  # the ✓ line's own rounding
        ("01.1", 0.0884),
        ("08.7", lambda t, o, n: resample_timm(t, o, n)),  # timm's default resize, antialiased
        ("10.6", lambda modules: modules.argsort(descending=True)),  # module by module, the last first
        (
            "10.6",
            lambda modules: (modules - 2).remainder(modules.max() + 1).argsort(),
        ),  # another module order
        # a vector asked as [N] may come as [N, 1] or [1, N]: one rule for every exercise (`core.tensor`)
        ("05.4", solution_as("05.4", lambda t: t[:, None])),
        ("06.1", solution_as("06.1", lambda t: t[None])),
        ("06.4", lambda: [[x] for x in solution("06.4")]),
        ("07.4", solution_as("07.4", lambda t: t[:, None])),
        ("08.5", solution_as("08.5", lambda t: t[:, None])),
        ("08.6", solution_as("08.6", lambda t: t[None])),
        ("09.7", solution_as("09.7", lambda t: t[None])),
        ("10.6", solution_as("10.6", lambda t: t[:, None])),
    ],
)
def test_a_right_answer_that_was_refused_passes(exercise_id, answer, capsys):
    answer = built(answer)
    passed, line = checked(exercise_id, answer, capsys)
    assert passed and line.startswith(f"✓ {exercise_id}: "), line


def resample_timm(table, old_grid, new_grid):
    """timm's resample_abs_pos_embed with its defaults: bicubic, antialias=True, prefix rows kept."""
    cls, patches = table[:1], table[1:]
    d = table.shape[1]
    image = patches.T.reshape(1, d, *old_grid)
    resized = F.interpolate(image, size=new_grid, mode="bicubic", align_corners=False, antialias=True)
    return torch.cat([cls, resized.reshape(d, -1).T])


def one_hot_without_classes(labels, lam, classes):
    own = F.one_hot(labels).double()
    return lam * own + (1 - lam) * own.flip(0)


def forward_attention_only(config):
    rest = 6 * sum(p.numel() for p in __import__("minivit").ViT(config).parameters())
    tokens = config.grid[0] * config.grid[1]
    return rest * tokens + 4 * tokens**2 * config.dim * config.depth


def forward_parameters_only(config):
    params = sum(p.numel() for p in __import__("minivit").ViT(config).parameters())
    tokens = config.grid[0] * config.grid[1]
    return 2 * params * tokens + 12 * tokens**2 * config.dim * config.depth


def diagonal_hidden(n):
    return torch.full((n, n), float("-inf")).triu(0)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "hint"),
    [
        ("06.4", lambda: solution("06.4")[::-1], "answer [head 0, head 1]"),  # the heads swapped
        ("09.7", one_hot_without_classes, "a batch need not hold the last class"),
        ("09.6", forward_attention_only, "applies to attention's products"),
        ("09.6", forward_parameters_only, "6 per parameter and token"),
        ("01.4", diagonal_hidden, "itself included"),
        ("01.1", 0.09, "three significant digits"),
        ("08.7", lambda t, o, n: resample_bilinear(t, o, n), "mode='bicubic'"),
    ],
)
def test_a_wrong_answer_that_passed_or_got_an_off_hint_gets_its_own(exercise_id, answer, hint, capsys):
    answer = built(answer)
    passed, line = checked(exercise_id, answer, capsys)
    assert not passed and line.startswith(f"✗ {exercise_id}: "), line
    assert hint in line.partition(" — hint: ")[2], line


def resample_bilinear(table, old_grid, new_grid):
    d = table.shape[1]
    image = table[1:].T.reshape(1, d, *old_grid)
    resized = F.interpolate(image, size=new_grid, mode="bilinear")
    return torch.cat([table[:1], resized.reshape(d, -1).T])


def zero_bias(table, grid, clip):
    n = grid[0] * grid[1]
    return torch.zeros(table.shape[0], n, n)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "solution_words"),
    [
        ("04.3", zero_bias, "table[h, clip("),  # the whole index formula
        ("04.3", unclamped, "table[h, clip("),
        ("02.4", lambda s_row, s_col, s_same: s_row + s_col, "counts the parts at offset 0 twice"),
        ("05.3", lambda base, s, d: base * s, "slows it by c^((d − 2)/d)"),
        ("12.1", lambda encoding, grid: 0.5 * solution("12.1")(encoding, grid), "put rate · J on pair i"),
    ],
)
def test_a_hint_does_not_give_the_solution(exercise_id, answer, solution_words, capsys):
    passed, line = checked(exercise_id, answer, capsys)
    assert not passed and solution_words not in line, line


def test_an_answer_of_shape_p_1_reads_as_one_answer_per_puzzle(capsys):
    passed, line = checked("07.4", lambda cells: row_or_column_rule(cells)[:, None], capsys)
    wrong = re.search(r"(\d+) of (\d+) answers differ", line)
    assert not passed and wrong and int(wrong[1]) <= int(wrong[2]) == 60, line


def test_a_vector_of_another_shape_is_refused_by_the_shared_rule(capsys):
    passed, line = checked("05.4", solution_as("05.4", lambda t: t.reshape(6, 6)), capsys)
    assert not passed and "shape [6, 6], not [36]" in line, line


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_function_without_return_is_told_so_not_that_it_raised(exercise_id, capsys):
    passed, line = checked(exercise_id, lambda *args: None, capsys)
    assert not passed
    assert "your answer raised" not in line and "could not use" not in line, line
    if "is a function, not" not in line and exercise_id != "12.3":  # 12.3's answer may be None
        assert "without `return`" in line, line


@pytest.mark.parametrize("exercise_id", ["06.1", "07.4", "08.6", "10.6", "02.3"])
def test_an_error_in_the_answer_is_the_answers_and_a_returned_string_is_named(exercise_id, capsys):
    def fails(*args):
        raise ZeroDivisionError("division by zero")

    passed, line = checked(exercise_id, fails, capsys)
    assert not passed and "your answer raised ZeroDivisionError: division by zero" in line, line
    passed, line = checked(exercise_id, lambda *args: "text", capsys)
    assert not passed and "your answer raised" not in line and "not a tensor" in line, line


def test_a_message_names_kinds_with_their_article():
    from minivit.exercises.core import kind

    assert (
        kind(...).startswith("an ellipsis") and kind(3).startswith("an int") and kind("x").startswith("a str")
    )


def test_a_number_given_as_text_is_refused_and_counts_read_in_the_singular(capsys):
    passed, line = checked("02.1", "4", capsys)
    assert not passed and "the text '4', not a number" in line, line
    passed, line = checked("07.6", lambda cells: ["binary"], capsys)
    assert not passed and "has 1 entry for 60 puzzles" in line, line
