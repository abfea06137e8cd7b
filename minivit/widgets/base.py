"""The wiring every explorer shares: controls whose values a view function draws, redrawn as an
image whenever a control moves."""

from __future__ import annotations

import base64
import io
import operator
from collections.abc import Callable, Mapping

import ipywidgets as W
from matplotlib.figure import Figure

from minivit.checks import check_number
from minivit.widgets.frames import record_if_asked


def figure_image(fig: Figure) -> bytes:
    """A figure as PNG bytes, for an ipywidgets Image that a slider updates."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def explorer(view: Callable[..., Figure], controls: Mapping[str, W.ValueWidget]) -> W.VBox:
    """Sliders wired to a figure: `view(**{name: control.value})` redrawn whenever a control moves.
    (With ``MINIVIT_FRAMES`` set, the first explorer also draws its frames for the website:
    `minivit.widgets.frames`.)"""
    record_if_asked(view, controls)
    image = W.Image(format="png")

    def draw(*_):
        image.value = figure_image(view(**{name: c.value for name, c in controls.items()}))

    for c in controls.values():
        c.observe(draw, names="value")
    draw()
    return with_picture(W.VBox([W.HBox(list(controls.values())), image]), image)


def with_picture(box: W.VBox, image: W.Image) -> W.VBox:
    """`box`, which when displayed also leaves `image`'s picture (as it is then: an explorer's first
    state, where a lesson shows it as it builds it) as a static PNG in the same output.

    A front end picks one type from the output: JupyterLab ranks the widget view above a PNG, so a
    running notebook shows the live widget; a reader that has no widget manager or no saved state for
    the widget (GitHub, nbconvert and nbviewer without the state, an untrusted notebook in JupyterLab,
    the website, whose build drops widget views) shows the PNG instead of the `VBox(...)` text. That
    text stays the VBox's own, which nbval compares (nbval skips PNGs): hence set on the instance, as
    a subclass would change the class name the text starts with. Under ipywidgets 7 (Colab's), which
    displays widgets through `_ipython_display_`, the widget alone is shown, as before."""

    def bundle(**kwargs) -> dict:
        data = W.VBox._repr_mimebundle_(box, **kwargs)
        if data is not None and image.value:
            data["image/png"] = base64.b64encode(bytes(image.value)).decode("ascii")
        return data

    box._repr_mimebundle_ = bundle
    return box


def slider(value, lo, hi, description, step=1, **kw) -> W.ValueWidget:
    klass = W.IntSlider if isinstance(step, int) and isinstance(value, int) else W.FloatSlider
    return klass(
        value=value,
        min=lo,
        max=hi,
        step=step,
        description=description,
        continuous_update=False,
        style={"description_width": "initial"},
        **kw,
    )


def check_grid(grid) -> tuple[int, int]:
    """`grid` as (rows, columns), or a ValueError naming it unless it is two whole numbers >= 1."""
    if not isinstance(grid, tuple | list) or len(grid) != 2:
        raise ValueError(
            f"grid={grid!r} is not (rows, columns); pass two whole numbers >= 1, e.g. grid=(8, 8)"
        )
    for side in grid:
        try:
            whole = None if isinstance(side, bool) else operator.index(side)
        except TypeError:
            whole = None
        if whole is None or whole < 1:
            raise ValueError(
                f"grid={tuple(grid)!r} has a side of {side!r}; pass two whole numbers >= 1, e.g. grid=(8, 8)"
            )
    return int(grid[0]), int(grid[1])


def check_base(base) -> None:
    """A ValueError naming `base` unless it is a finite number > 1 (as the encodings take it)."""
    check_number("base", base, low=1, low_ok=False)


def check_position(name: str, value, grid: tuple[int, int]) -> None:
    """A ValueError naming `name` unless it is a patch of `grid`: 0 to rows * columns - 1."""
    try:
        index = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        index = None
    if index is None or not 0 <= index < grid[0] * grid[1]:
        raise ValueError(
            f"{name}={value!r} is not a patch of the {grid[0]}x{grid[1]} grid; "
            f"pass 0 to {grid[0] * grid[1] - 1} (row * columns + column)"
        )
