"""Each lesson's jupytext pair holds the same cells, and its notebook carries a clean run's outputs.

nbval (the README's test command runs it on lessons/*.ipynb) re-executes every notebook; these
checks catch a .py edited without its .ipynb, or a notebook committed from a partial run.
"""

import os
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
import torch
from jupytext.compare import NotebookDifference, compare_notebooks

LESSONS = sorted((Path(__file__).parent.parent / "lessons").glob("[0-9][0-9]_*.py"))


def test_there_are_lessons():
    assert LESSONS, "no lessons/NN_topic.py found"


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_pair_holds_the_same_cells(py):
    ipynb = py.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `jupytext --sync {py}` and execute it"
    compare_notebooks(jupytext.read(ipynb), jupytext.read(py), fmt="py:percent")


@pytest.mark.parametrize("side", ["py", "ipynb"])
@pytest.mark.parametrize("edit", ["code", "markdown", "a cell more"])
def test_the_pair_check_fails_on_an_edit_to_one_side_and_not_on_outputs(tmp_path, side, edit):
    """What `test_pair_holds_the_same_cells` (also run by `make lint`) catches: one side edited without
    the other, by hand or by `ruff check --fix` on the .py alone; a notebook's outputs are its own."""
    py, ipynb = tmp_path / LESSONS[0].name, tmp_path / LESSONS[0].with_suffix(".ipynb").name
    py.write_text(LESSONS[0].read_text())
    nb = jupytext.read(py)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.outputs = [nbformat.v4.new_output("stream", name="stdout", text="an output the .py has not\n")]
    jupytext.write(nb, ipynb)
    test_pair_holds_the_same_cells(py)  # the pair as written: outputs are the notebook's alone

    if edit == "a cell more":
        nb.cells.insert(1, nbformat.v4.new_code_cell("x = 1"))
    else:
        next(c for c in nb.cells if c.cell_type == edit).source += "\n# one line more"
    if side == "py":
        jupytext.write(nb, py, fmt="py:percent")
    else:
        jupytext.write(nb, ipynb)
    with pytest.raises(NotebookDifference):
        test_pair_holds_the_same_cells(py)


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_notebook_holds_a_clean_top_to_bottom_run(py):
    nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{py.stem}: execution counts {counts}; re-run it top to bottom, e.g. "
        f"`jupyter nbconvert --to notebook --execute --inplace {py.with_suffix('.ipynb').name}`"
    )
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{py.stem}: committed with an error output"
    ignored = {i for i, c in enumerate(nb.cells) if "nbval-ignore-output" in c.metadata.get("tags", [])}
    compared = [(i, c) for i, c in enumerate(nb.cells) if i not in ignored]
    warned = [i for i, c in compared for o in c.get("outputs", []) if o.get("name") == "stderr"]
    assert not warned, (
        f"{py.stem}: cells {warned} wrote to stderr (a warning names this checkout's path, so nbval "
        "finds it differs elsewhere): remove its cause"
    )
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs), "no figure committed"


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_lesson_has_the_course_shape(py):
    text = py.read_text()
    for part in (
        "colab-badge.svg",
        "What you will learn",
        "google.colab",
        "## What we covered",
        "## Exercises",
        "assert",
    ):
        assert part in text, f"{py.name} lacks {part!r}"


def test_lessons_read_seed_and_threads_from_the_environment(monkeypatch):
    from minivit import lesson

    threads = torch.get_num_threads()
    try:
        monkeypatch.setenv("MINIVIT_SEED", "3")
        monkeypatch.setenv("MINIVIT_THREADS", "1")
        assert lesson.setup() == 3
        assert torch.get_num_threads() == 1
        first = torch.rand(4)
        lesson.setup()
        torch.testing.assert_close(torch.rand(4), first)  # the same seed, the same draws
        monkeypatch.delenv("MINIVIT_SEED")
        monkeypatch.delenv("MINIVIT_THREADS")
        assert lesson.setup() == 0 and torch.get_num_threads() == lesson.DEFAULT_THREADS
    finally:
        torch.set_num_threads(threads)


def test_a_lesson_trains_on_the_cpu_unless_it_asks_for_the_best_device(monkeypatch):
    """On Colab's GPU or an Apple chip, `pick_device()` would move a lesson's models off the CPU, away
    from the tensors its analyses make there: `setup` keeps every device=None on the CPU."""
    from minivit import devices, lesson

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # as on a machine with a GPU
    monkeypatch.setattr(devices, "_preferred", None)
    assert devices.pick_device() == torch.device("cuda")
    lesson.setup()
    assert devices.pick_device() == torch.device("cpu")
    assert devices.pick_device("cpu") == torch.device("cpu")  # a device named still wins
    lesson.setup(device=None)
    assert devices.pick_device() == torch.device("cuda")
    with pytest.raises(ValueError, match="is not a device"):
        lesson.setup(device="tpu")
    lessons = {py.stem[:2]: py.read_text() for py in LESSONS}
    assert [k for k, text in lessons.items() if "lesson.setup(device=None)" in text] == ["09"]


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("MINIVIT_SEED", "one", "is not a whole number"),
        ("MINIVIT_SEED", "-1", "is below 0"),
        ("MINIVIT_THREADS", "0", "is below 1"),
        ("MINIVIT_THREADS", "2.5", "is not a whole number"),
        ("MINIVIT_SEED", str(2**32), "is above 4294967295"),  # more than NumPy's seed takes
        ("MINIVIT_SEED", "0x10", "is not a whole number"),
        (
            "MINIVIT_THREADS",
            str(10 * max(os.cpu_count() or 1, 2)),
            rf"is above {max(os.cpu_count() or 1, 2)}",
        ),
    ],
)
def test_a_bad_seed_or_thread_count_is_named(monkeypatch, name, value, says):
    from minivit import lesson

    monkeypatch.setenv(name, value)
    threads = torch.get_num_threads()
    with pytest.raises(ValueError, match=f"{name}=.*{says}.*use an integer") as raised:
        lesson.setup()
    assert "\n" not in str(raised.value)
    assert torch.get_num_threads() == threads, "a refused setup sets nothing"


@pytest.mark.parametrize(
    ("where", "says"),
    [
        (lambda tmp: tmp, r"MINIVIT_CLAIMS=.* is a folder; name a file in it"),
        (lambda tmp: tmp / "no-such-folder" / "claims.jsonl", r"its folder .* does not exist; create it"),
    ],
    ids=["a-folder", "no-such-folder"],
)
def test_a_claims_file_that_cannot_be_written_is_named_before_the_lesson_trains(
    monkeypatch, tmp_path, where, says
):
    from minivit import lesson

    monkeypatch.setenv("MINIVIT_CLAIMS", str(where(tmp_path)))
    with pytest.raises(ValueError, match=says) as raised:
        lesson.setup()
    assert "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_every_lesson_takes_its_seed_from_one_place():
    for py in LESSONS:
        text = py.read_text()
        assert "SEED = lesson.setup(" in text, f"{py.name}: start with SEED = lesson.setup()"
        assert "torch.set_num_threads" not in text, f"{py.name}: the thread count comes from lesson.setup()"


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_badge_and_install_cell_name_the_one_repository(py):
    from minivit.lesson import REPOSITORY, links

    for path in (py, py.with_suffix(".ipynb")):
        text = path.read_text()
        assert links(text) == {REPOSITORY}, (
            f"{path.name} links to {links(text)}; run python -m minivit.lesson repoint {REPOSITORY}"
        )
        assert "enable_custom_widget_manager()" in text, (
            f"{path.name}: its first cell must enable Colab's widgets"
        )


def test_repoint_moves_every_badge_install_cell_and_the_constant(tmp_path):
    import shutil

    from minivit import lesson

    for py in LESSONS[:2]:
        shutil.copy(py, tmp_path / py.name)
        shutil.copy(py.with_suffix(".ipynb"), tmp_path / py.with_suffix(".ipynb").name)
    source = tmp_path / "lesson.py"
    shutil.copy(lesson.__file__, source)
    changed = lesson.repoint("someone/fork", tmp_path, source)
    assert len(changed) == 5
    for path in changed[:4]:
        text = path.read_text()
        assert lesson.links(text) == {"someone/fork"}
        assert "colab.research.google.com/github/someone/fork/blob/main/lessons/" in text
    assert 'REPOSITORY = "someone/fork"' in source.read_text()
    assert jupytext.read(tmp_path / LESSONS[0].with_suffix(".ipynb").name).cells  # still a notebook
    with pytest.raises(ValueError, match=r"'not a repo' is not OWNER/NAME"):
        lesson.repoint("not a repo", tmp_path, source)


CLAIMS_HEADING = "## Claims index"


def claims_index(py: Path) -> list[tuple[str, list[str], str]]:
    """The rows of a lesson's claims index: (claim, the assert snippets it names, what makes them fail).

    The index is a markdown cell headed "## Claims index" holding a three-column table; each snippet
    in the middle column is written in backticks, and a `|` inside one is escaped as `\\|`."""
    cells = [c for c in jupytext.read(py).cells if c.cell_type == "markdown" and CLAIMS_HEADING in c.source]
    assert len(cells) == 1, f"{py.name}: {len(cells)} markdown cells headed {CLAIMS_HEADING!r}, want 1"
    rows = []
    for line in cells[0].source.split(CLAIMS_HEADING, 1)[1].splitlines():
        line = line.strip()
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        parts = [p.replace("\\|", "|").strip() for p in re.split(r"(?<!\\)\|", line.strip("|"))]
        assert len(parts) == 3, f"{py.name}: claims-index row {line!r} has {len(parts)} columns, want 3"
        rows.append((parts[0], re.findall(r"`([^`]+)`", parts[1]), parts[2]))
    return rows[1:]  # the first row is the header


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_claims_index_names_asserts_that_exist(py):
    """Every lesson ends with a claims index; each row names asserts that are in the lesson's code,
    so the index cannot drift from what is checked."""
    cells = jupytext.read(py).cells
    last = [c for c in cells if c.cell_type == "markdown"][-1]
    assert CLAIMS_HEADING in last.source, f"{py.name}: the last markdown cell must be the {CLAIMS_HEADING!r}"
    code = " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "code")
    rows = claims_index(py)
    assert rows, f"{py.name}: the claims index has no rows"
    for claim, snippets, fails in rows:
        assert claim and fails, f"{py.name}: a claims-index row lacks its claim or what makes it fail"
        assert snippets, f"{py.name}: the claim {claim!r} names no assert (write it in backticks)"
        for snippet in snippets:
            assert "assert" in snippet or "lesson.claim(" in snippet, (
                f"{py.name}: {snippet!r} (claim {claim!r}) is not an assert or a lesson.claim"
            )
            assert " ".join(snippet.split()) in code, (
                f"{py.name}: the claims index names `{snippet}` (claim {claim!r}), which is not in its code"
            )


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_every_claim_is_in_the_claims_index(py):
    """A `lesson.claim` the index does not name would be a claim no reader is told how to break."""
    cells = jupytext.read(py).cells
    calls = [
        " ".join(line.split())
        for c in cells
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if line.lstrip().startswith("lesson.claim(")
    ]
    named = " ".join(" ".join(s.split()) for _, snippets, _ in claims_index(py) for s in snippets)
    for call in calls:
        head = call.split("#")[0].strip()
        head = head[: head.index(",")] if "," in head else head  # lesson.claim("name" (or an f-string)
        assert head in named, f"{py.name}: {call!r} is not in the claims index"


def test_claim_passes_fails_and_names_the_worst_value(monkeypatch):
    from minivit import lesson

    monkeypatch.delenv("MINIVIT_CLAIMS", raising=False)
    monkeypatch.setenv("MINIVIT_STRICT", "1")  # as the checks run: a claim that misses raises
    assert lesson.claim("above", 0.5, ">", 0.4) is None  # an assert: a cell ending with it shows nothing
    lesson.claim("below", torch.tensor(0.5), "<=", 0.5)
    lesson.claim("all", {"a": 0.9, "b": 0.8}, ">", 0.75)
    lesson.claim("a list", [3, 1, 2], ">=", 1)
    with pytest.raises(AssertionError, match=r"some: 0.7 \(at b\) > 0.75 is false \(margin -0.05\)"):
        lesson.claim("some", {"a": 0.9, "b": 0.7}, ">", 0.75)
    with pytest.raises(AssertionError, match="nan"):
        lesson.claim("not a number", float("nan"), "<", 1)
    with pytest.raises(AssertionError, match="at 1"):
        lesson.claim("a tensor", torch.tensor([0.1, 0.5]), "<", 0.3)
    with pytest.raises(ValueError, match="'==' is not one of"):
        lesson.claim("equal", 1, "==", 1)
    with pytest.raises(AssertionError, match=r"nothing to check"):  # nothing qualified: the claim misses
        lesson.claim("empty", {}, ">", 0)


def test_claim_on_a_tensor_that_needs_grad_writes_no_warning(monkeypatch):
    """A warning carries the package's path, so a cell's stderr would differ between checkouts."""
    import warnings

    from minivit import lesson

    monkeypatch.delenv("MINIVIT_CLAIMS", raising=False)
    weight = torch.tensor([0.5, 0.2], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lesson.claim("a scalar", weight.sum(), ">", 0.6)
        lesson.claim("elements", weight * 2, ">", 0.3)
        lesson.claim("a mapping", {"w": weight[0]}, ">", 0.4)


def test_a_missed_claim_explains_itself_and_the_lesson_goes_on_for_a_learner(monkeypatch):
    """Unset (as a learner runs a lesson) or 0: the claim, this run's value and bound, what the
    recorded sweep saw, and what it means, in one warning; nothing raised."""
    import warnings

    from minivit import lesson

    monkeypatch.delenv("MINIVIT_CLAIMS", raising=False)
    sweep = {
        "lessons": {
            "01_attention": {
                "the task is learned": {
                    "op": ">",
                    "bound": 0.8,
                    "passed": 23,
                    "runs": 24,
                    "low": 0.62,
                    "high": 0.99,
                }
            }
        }
    }
    monkeypatch.setattr("minivit.experiments.recorded", lambda name: sweep)  # what claims.py writes
    for value in (None, "0"):
        if value is None:
            monkeypatch.delenv("MINIVIT_STRICT", raising=False)
        else:
            monkeypatch.setenv("MINIVIT_STRICT", value)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert lesson.claim("the task is learned", {"seed 3": 0.42}, ">", 0.8) is None  # goes on
            lesson.claim("holds", 0.9, ">", 0.8)  # a claim that holds says nothing
        assert len(caught) == 1 and issubclass(caught[0].category, lesson.ClaimMissed)
        text = str(caught[0].message)
        assert "the task is learned" in text and "0.42 (at seed 3)" in text and "> 0.8" in text
        assert "another route" in text and "MINIVIT_STRICT=1" in text
        # the recorded sweep's line (claims.json, written by benchmarks/claims.py)
        assert "the recorded sweep (01_attention): passed 23 of 24 runs, values from 0.62 to 0.99." in text
    assert lesson.recorded_runs("a claim no lesson makes") == []

    def missing(name):
        raise FileNotFoundError(f"no recorded result {name!r}")

    monkeypatch.setattr("minivit.experiments.recorded", missing)  # no summary shipped: the run's line only
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lesson.claim("the task is learned", 0.42, ">", 0.8)
    assert "recorded sweep" not in str(caught[0].message) and "0.42" in str(caught[0].message)


def test_the_shipped_sweep_summary_is_what_claims_py_writes():
    """minivit/experiments/recorded/claims.json, which a missed claim quotes, is the sweep's own
    summary of benchmarks/claims.jsonl for each lesson's current code (redrawn by --table)."""
    from minivit.experiments import recorded

    claims = _claims_benchmark()
    assert recorded("claims.json")["lessons"] == claims.summary(claims.read_records())["lessons"]


def test_a_missed_claim_is_a_warning_block_in_a_notebook(monkeypatch):
    """In a kernel (JupyterLab, Colab) the explanation is an HTML block drawn as a warning, with a
    plain-text twin for front ends that show no HTML."""
    from minivit import lesson

    shown = []
    monkeypatch.delenv("MINIVIT_CLAIMS", raising=False)
    monkeypatch.delenv("MINIVIT_STRICT", raising=False)
    monkeypatch.setattr(lesson, "_in_a_notebook", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: shown.append((obj, raw)))
    lesson.claim("a <tagged> claim", 0.1, ">", 0.5)
    ((bundle, raw),) = shown
    assert raw and bundle["text/plain"].startswith("WARNING: This run falls outside a claim")
    assert "&#9888;" in bundle["text/html"] and "a &lt;tagged&gt; claim" in bundle["text/html"]


def test_strict_mode_is_read_and_checked_before_a_lesson_trains(monkeypatch):
    from minivit import lesson

    monkeypatch.setenv("MINIVIT_STRICT", "yes")
    with pytest.raises(ValueError, match=r"MINIVIT_STRICT='yes': use 1 .* or 0"):
        lesson.setup()
    monkeypatch.setenv("MINIVIT_STRICT", "1")
    assert lesson.strict()


def test_claim_records_its_margin_and_goes_on_under_a_sweep(monkeypatch, tmp_path):
    import json

    from minivit import lesson

    path = tmp_path / "claims.jsonl"
    monkeypatch.setenv("MINIVIT_CLAIMS", str(path))
    lesson.claim("holds", 0.5, ">", 0.4)
    lesson.claim("fails", {"x": 0.2, "y": 0.6}, "<", 0.5)  # recorded, not raised
    first, second = [json.loads(line) for line in path.read_text().splitlines()]
    assert first["passed"] and first["margin"] == pytest.approx(0.1) and first["op"] == ">"
    assert not second["passed"] and second["label"] == "y" and second["margin"] == pytest.approx(-0.1)
    lesson.claim("the worst of several", {"a": 0.9, "b": 0.8}, ">", 0.75)
    worst = json.loads(path.read_text().splitlines()[-1])
    assert worst["value"] == pytest.approx(0.8) and worst["label"] == "b"  # the one with the smallest margin


def _claims_benchmark():
    import importlib.util

    path = Path(__file__).parent.parent / "benchmarks" / "claims.py"
    spec = importlib.util.spec_from_file_location("claims_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_margin_table_counts_runs_and_flags_thin_or_failing_claims():
    claims = _claims_benchmark()
    py = LESSONS[0]
    source = claims.source_hash(py)

    def run(seed, threads, margins, ok=True):
        found = [
            {"name": name, "value": m, "label": "", "op": ">", "bound": 0.0, "margin": m, "passed": m > 0}
            for name, m in margins.items()
        ]
        return {"lesson": py.stem, "source": source, "seed": seed, "threads": threads, "ok": ok,
                "error": None if ok else "AssertionError: x", "seconds": 10.0, "claims": found,
                "torch": "2.x", "cpu": "a CPU", "date": "2026-11-24"}  # fmt: skip

    records = [run(s, 1, {"steady": 1.0 + 0.1 * s, "thin": 1.0 if s else 0.1}) for s in range(4)]
    records += [run(10, 2, {"steady": 1.2, "thin": 1.0}), run(11, 2, {"steady": 1.1, "thin": -0.5})]
    records.append({**run(0, 1, {"steady": 9.0}), "source": "stale"})  # another source: left out
    text = claims.table(records)
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if line.startswith("| ")}
    assert "| 6/6 | 1 | 1.15 | — | — |  |" in rows["steady"]  # no null run of it
    assert "| 5/6 | -0.5 | 1 | — | — | ⚠ 2 |" in rows["thin"]  # failed once; two groups: 1.0 and under 0.1
    summary = claims.summary(records)["lessons"][py.stem]
    assert summary["thin"] == {"op": ">", "bound": 0.0, "passed": 5, "runs": 6, "low": -0.5, "high": 1.0}


def test_the_table_shows_each_claim_against_its_null():
    """A claim about training that a null run passes is flagged; one that fails every null run is not;
    a claim with the same value in every run is fixed and needs no null."""
    claims = _claims_benchmark()
    py = LESSONS[0]
    source = claims.source_hash(py)

    def run(seed, values, null=None):
        found = [
            {"name": n, "value": v, "label": "", "op": ">", "bound": 0.5, "margin": v - 0.5,
             "passed": v > 0.5}
            for n, v in values.items()
        ]  # fmt: skip
        return {"lesson": py.stem, "source": source, "seed": seed, "threads": 1, "ok": True, "error": None,
                "seconds": 10.0, "claims": found, "torch": "2.x", "cpu": "a CPU", "date": "2026-11-28",
                **({"null": null} if null else {})}  # fmt: skip

    real = [run(s, {"learned": 0.9 + 0.01 * s, "moved": 0.8 + 0.01 * s, "recorded": 0.7}) for s in range(4)]
    nulls = [run(1000 + s, {"learned": 0.1, "moved": 0.6 if s else 0.4, "recorded": 0.7}, "labels")
             for s in range(3)]  # fmt: skip
    rows = {
        line.split(" | ")[0].strip("| "): line
        for line in claims.table(real, nulls).splitlines()
        if line.startswith("| ")
    }
    assert "| task |" in rows["learned"] and "| 3/3 labels | 0.1 |" in rows["learned"]
    assert "⚠" not in rows["learned"]
    assert "| 1/3 labels | 0.6 | ⚠ null |" in rows["moved"]  # two null runs pass it
    assert "| fixed |" in rows["recorded"] and "| — | — |" in rows["recorded"]


def test_a_restated_bound_judges_the_recorded_runs_again():
    """The code hash leaves out a claim's literal name, bound and `about`, so runs recorded before a
    claim is restated keep counting, judged against the new bound; a changed value is new code."""
    claims = _claims_benchmark()
    cell = '# %%\nlesson.claim("x learns", acc - 0.1, ">", 0.3)\n'
    restated = '# %%\nlesson.claim("x learns", acc - 0.1, ">", 0.45, about="task")  # stricter\n'
    assert claims.code_hash(cell) == claims.code_hash(restated)
    assert claims.code_hash(cell) != claims.code_hash(cell.replace("acc - 0.1", "acc - 0.2"))
    renamed = cell.replace("x learns", "x learns the task")  # a claim renamed is the one at its place
    assert claims.code_hash(cell) == claims.code_hash(renamed)
    two = cell + renamed.replace("# %%", "# %%\nz = 1")
    assert claims.claim_names(two) == ["x learns", "x learns the task"]
    assert claims.claim_specs(restated) == {"x learns": {"op": ">", "bound": 0.45, "about": "task"}}
    record = {"name": "x learns", "value": 0.4, "op": ">", "bound": 0.3, "margin": 0.1, "passed": True}
    again = claims.judged(record, claims.claim_specs(restated)["x learns"])
    assert again["passed"] is False and again["bound"] == 0.45 and abs(again["margin"] + 0.05) < 1e-12
    computed = '# %%\nlesson.claim("x learns", acc, ">", null95)\n'
    assert claims.claim_specs(computed)["x learns"]["bound"] is None  # judged as recorded
    assert claims.judged(record, claims.claim_specs(computed)["x learns"]) == record


def test_a_cell_error_keeps_the_end_of_a_long_message(tmp_path):
    """A null run's cell that raised is recorded with its message's start and end: a subprocess's
    error, quoted at the end of the message that reports it, is what says why."""
    claims = _claims_benchmark()
    message = "the run 'two' exited with 1:\n" + "[rank0]:   File x, line 1\n" * 100 + "ValueError: the cause"
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("raise_it()")
    cell.outputs = [nbformat.v4.new_output("error", ename="RuntimeError", evalue=message, traceback=[])]
    notebook.cells = [cell]
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    (found,) = claims.cell_errors(path)
    assert found["error"].startswith("RuntimeError: the run 'two' exited with 1")
    assert found["error"].endswith("ValueError: the cause") and len(found["error"]) < 1100


def test_a_check_kept_apart_reports_failures_and_margins_outside_the_sweep():
    claims = _claims_benchmark()
    name = LESSONS[0].stem

    def run(seed, margins, ok=True):
        found = [{"name": n, "margin": m, "passed": m > 0} for n, m in margins.items()]
        return {"lesson": name, "seed": seed, "threads": 1, "ok": ok, "seconds": 12.0, "claims": found,
                "error": None if ok else "AssertionError: x"}  # fmt: skip

    swept = {name: [run(s, {"wide": 0.5 + s, "tight": 0.2}) for s in range(3)]}
    report = claims.held_out(
        {name: [run(300, {"wide": 0.6, "tight": 0.1}), run(301, {"wide": -0.1}, ok=False)]}, swept
    )
    assert f"{name}: 2 runs (seed 300 on 1: 12 s, seed 301 on 1: 12 s)" in report
    assert "seed 300: 'tight': margin 0.1, below the sweep's smallest 0.2" in report
    assert "seed 301, 1 threads: STOPPED `AssertionError: x`" in report
    assert "seed 301: FAILED 'wide': margin -0.1" in report
    assert "seed 300: 'wide'" not in report  # inside the sweep's range: not reported


def test_the_sweep_flags_runs_that_split_into_two_routes():
    claims = _claims_benchmark()
    assert not claims.two_groups([0.30, 0.31, 0.33, 0.34, 0.36, 0.37])  # one spread
    assert claims.two_groups([0.02, 0.30, 0.31, 0.33, 0.34, 0.36])  # one run far below the rest
    assert claims.two_groups([0.05, 0.06, 0.07, 0.40, 0.41, 0.42])  # two routes, both passing
    assert not claims.two_groups([0.1, 0.5, 0.9])  # too few runs to tell


def test_the_sweep_plans_more_runs_for_a_quick_lesson():
    claims = _claims_benchmark()
    quick = [{"lesson": "00_x", "seconds": 20.0}] * 3
    one, two = claims.planned("00_x", quick)
    assert (len(one), len(two)) == (44, 4) and set(one).isdisjoint(two)
    one, two = claims.planned("07_x", [{"lesson": "07_x", "seconds": 400.0}])
    assert (list(one), list(two)) == (list(range(20)), list(range(20, 24)))
    old = [{"lesson": "10_x", "seconds": 40.0, "threads": 2}] * 9
    now = [{"lesson": "10_x", "seconds": 150.0, "threads": 1}]
    assert len(claims.planned("10_x", old + now, now)[0]) == 44  # quick, as far as is known...
    now.append({"lesson": "10_x", "seconds": 90.0, "threads": 2})
    assert len(claims.planned("10_x", old + now, now)[0]) == 20  # ...until its current code runs on two


def test_the_sweep_keys_runs_by_code_outside_exercises():
    claims = _claims_benchmark()
    lesson = "# %%\nx = 1\n\n# %% [markdown]\n# prose\n\n# %%\nassert x == 1\n"
    reworded = lesson.replace("# prose", "# other prose")
    with_exercise = lesson + '\n# %% tags=["exercise"]\nanswer = ...  # your code\n'
    assert claims.code_hash(reworded) == claims.code_hash(lesson)  # prose: the same runs count
    assert claims.code_hash(with_exercise) == claims.code_hash(lesson)  # an exercise: they count too
    assert claims.code_hash(lesson.replace("x = 1", "x = 2")) != claims.code_hash(lesson)  # code: run again
