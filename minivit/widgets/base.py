"""The wiring every explorer shares: controls whose values a view function draws, redrawn as an
image whenever a control moves."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping

import ipywidgets as W
from matplotlib.figure import Figure


def figure_image(fig: Figure) -> bytes:
    """A figure as PNG bytes, for an ipywidgets Image that a slider updates."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def explorer(view: Callable[..., Figure], controls: Mapping[str, W.ValueWidget]) -> W.VBox:
    """Sliders wired to a figure: `view(**{name: control.value})` redrawn whenever a control moves."""
    image = W.Image(format="png")

    def draw(*_):
        image.value = figure_image(view(**{name: c.value for name, c in controls.items()}))

    for c in controls.values():
        c.observe(draw, names="value")
    draw()
    return W.VBox([W.HBox(list(controls.values())), image])


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
