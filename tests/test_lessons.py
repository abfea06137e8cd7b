"""Each lesson's jupytext pair holds the same cells, and its notebook carries a clean run's outputs.

nbval (the README's test command runs it on lessons/*.ipynb) re-executes every notebook; these
checks catch a .py edited without its .ipynb, or a notebook committed from a partial run.
"""

from pathlib import Path

import jupytext
import nbformat
import pytest
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
