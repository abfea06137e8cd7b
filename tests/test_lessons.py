"""Each lesson's jupytext pair holds the same cells, and its notebook carries a clean run's outputs.

nbval (the README's test command runs it on lessons/*.ipynb) re-executes every notebook; these
checks catch a .py edited without its .ipynb, or a notebook committed from a partial run.
"""

import re
from pathlib import Path

import jupytext
import nbformat
import pytest
import torch
from jupytext.compare import compare_notebooks

LESSONS = sorted((Path(__file__).parent.parent / "lessons").glob("[0-9][0-9]_*.py"))


def test_there_are_lessons():
    assert LESSONS, "no lessons/NN_topic.py found"


@pytest.mark.parametrize("py", LESSONS, ids=lambda p: p.stem)
def test_pair_holds_the_same_cells(py):
    ipynb = py.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `jupytext --sync {py}` and execute it"
    compare_notebooks(jupytext.read(ipynb), jupytext.read(py), fmt="py:percent")


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


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("MINIVIT_SEED", "one", "is not a whole number"),
        ("MINIVIT_SEED", "-1", "is below 0"),
        ("MINIVIT_THREADS", "0", "is below 1"),
        ("MINIVIT_THREADS", "2.5", "is not a whole number"),
    ],
)
def test_a_bad_seed_or_thread_count_is_named(monkeypatch, name, value, says):
    from minivit import lesson

    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"{name}=.*{says}.*use an integer"):
        lesson.setup()


def test_every_lesson_takes_its_seed_from_one_place():
    for py in LESSONS:
        text = py.read_text()
        assert "SEED = lesson.setup()" in text, f"{py.name}: start with SEED = lesson.setup()"
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
            assert "assert" in snippet, f"{py.name}: {snippet!r} (claim {claim!r}) is not an assert"
            assert " ".join(snippet.split()) in code, (
                f"{py.name}: the claims index names `{snippet}` (claim {claim!r}), which is not in its code"
            )
