"""Every explorer leaves a static picture beside its widget (minivit.widgets.base.with_picture), so a
committed notebook shows the explorer where no kernel drives it: GitHub, nbviewer, Colab's preview,
the website. JupyterLab still shows the live widget, which it ranks above the picture.

The notebook test reads the committed lessons/*.ipynb: a notebook recorded before explorers carried
their picture fails it until the lesson is run again top to bottom (`make lessons`)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import ipywidgets as W
import nbformat
import pytest
from IPython.core.formatters import DisplayFormatter
from matplotlib.figure import Figure

from minivit.widgets.base import explorer, slider

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
EXPLORER = re.compile(r"widgets\.(\w+_explorer)\(")  # how docs/build.py finds an explorer's cell
PNG = b"\x89PNG\r\n\x1a\n"


def saved_image(nb, model_id: str) -> bytes | None:
    """The PNG the notebook's saved widget state holds for the Image inside the VBox `model_id`
    (what the explorer drew when the run was saved), or None where the state does not hold it."""
    state = nb.metadata.get("widgets", {}).get(STATE, {}).get("state", {})
    box = state.get(model_id)
    if box is None:
        return None
    for child in box["state"].get("children", []):
        model = state.get(child.removeprefix("IPY_MODEL_"), {})
        if model.get("model_name") == "ImageModel":
            for buffer in model.get("buffers", []):
                if buffer.get("path") == ["value"] and buffer.get("encoding") == "base64":
                    return base64.b64decode(buffer["data"])
    return None


def missing_pictures(nb) -> tuple[list[str], int]:
    """What is wrong with the explorers' outputs of notebook `nb` (an explorer's cell is one that
    calls `widgets.*_explorer(`), and how many explorer outputs it has."""
    problems, shown = [], 0
    for i, cell in enumerate(nb.cells):
        call = EXPLORER.search(cell.source) if cell.cell_type == "code" else None
        if call is None:
            continue
        name = call.group(1)
        # an explorer's output: the widget view of its VBox (tqdm's progress bars are HBoxes)
        outputs = [o for o in cell.outputs if o.get("data", {}).get("text/plain", "").startswith("VBox(")]
        outputs = [o for o in outputs if WIDGET in o.data]
        if not outputs:
            problems.append(f"cell {i} ({name}) shows no explorer")
        for out in outputs:
            shown += 1
            picture = base64.b64decode(out.data.get("image/png", ""))
            if not picture.startswith(PNG):
                problems.append(f"cell {i} ({name}): the widget has no static picture (image/png) beside it")
                continue
            drawn = saved_image(nb, out.data[WIDGET]["model_id"])
            if drawn is not None and drawn != picture:
                problems.append(
                    f"cell {i} ({name}): the picture is not the explorer's state saved with the run "
                    "(a control moved before saving?)"
                )
    return problems, shown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_explorer_in_a_committed_notebook_leaves_a_picture(path):
    nb = nbformat.read(path, as_version=4)
    problems, shown = missing_pictures(nb)
    assert not problems, (
        f"{path.name}: " + "; ".join(problems) + ". Run the lesson again top to bottom with this checkout's "
        f"package and commit it (`make lessons`, or `jupyter nbconvert --to notebook --execute --inplace "
        f"lessons/{path.name}`)"
    )
    code = "".join(c.source for c in nb.cells if c.cell_type == "code")
    assert shown or not EXPLORER.search(code), f"{path.name}: calls an explorer but shows none"


@pytest.mark.slow
def test_a_notebook_run_in_a_kernel_keeps_the_widget_and_the_picture_the_check_reads():
    """The whole path: a kernel runs an explorer, the notebook keeps its output and widget state, and
    the committed-notebook check finds the picture; without it, the check names the cell."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    code = "from minivit import widgets\nwidgets.sincos_explorer(grid=(4, 4))"
    nb.cells = [nbformat.v4.new_code_cell(code)]
    NotebookClient(nb, kernel_name="python3", timeout=120, store_widget_state=True).execute()
    [out] = nb.cells[0].outputs
    assert out.output_type == "execute_result" and set(out.data) == {"text/plain", WIDGET, "image/png"}
    assert missing_pictures(nb) == ([], 1)

    del out.data["image/png"]  # as recorded before explorers carried their picture
    problems, _ = missing_pictures(nb)
    assert problems == ["cell 0 (sincos_explorer): the widget has no static picture (image/png) beside it"]


def square(k: int) -> Figure:
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().imshow([[k, 0], [0, -k]], vmin=-3, vmax=3)
    return fig


def test_an_explorer_displays_the_live_widget_and_a_picture_of_what_it_shows():
    control = slider(1, 1, 3, "k")
    box = explorer(square, {"k": control})
    image = box.children[1]
    assert isinstance(image, W.Image)

    data, _ = DisplayFormatter().format(box)  # what IPython's display and a cell's result send
    assert set(data) == {"text/plain", WIDGET, "image/png"}
    assert data[WIDGET]["model_id"] == box.model_id  # JupyterLab renders this live widget
    assert data["text/plain"].startswith("VBox(children=(HBox(")  # the text nbval compares, as before
    first = base64.b64decode(data["image/png"])
    assert first.startswith(PNG) and first == image.value  # the picture the widget shows, as a PNG

    control.value = 3  # displayed again after a control moved: the picture it shows then
    moved = base64.b64decode(DisplayFormatter().format(box)[0]["image/png"])
    assert moved == image.value != first


def test_a_closed_explorer_is_displayed_as_ipywidgets_displays_a_closed_widget():
    box = explorer(square, {"k": slider(1, 1, 3, "k")})
    box.close()
    data, _ = DisplayFormatter().format(box)
    assert WIDGET not in data and "image/png" not in data


def test_nbval_leaves_pictures_uncompared():
    """A PNG's bytes differ between machines and library versions; nbval skips image/png unless it
    runs with --nbdime, so the explorers' pictures never fail the seed check."""
    addopts = re.search(r"^addopts = (.*)$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert addopts and "--nbval" in addopts.group(1) and "--nbdime" not in addopts.group(1)
