"""One colour per encoding: every registered encoding has its own, and the figures and explorers draw
an encoding in it."""

import itertools

import numpy as np
import pytest
import torch
from matplotlib.colors import same_color, to_rgb, to_rgba

from minivit import viz, widgets
from minivit.posenc import REGISTRY
from minivit.train import History

C = viz.ENCODING_COLOURS


def lab(colour) -> np.ndarray:
    """CIELAB of a matplotlib colour (D65): distances in it follow how different two colours look."""
    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_every_registered_encoding_has_one_colour_and_no_other_name_has_one():
    assert set(C) == set(REGISTRY), "give a new encoding a colour in minivit/viz/base.py (ENCODING_COLOURS)"
    assert "none" in C


def test_the_colours_look_different_from_each_other_and_from_the_page():
    gaps = {(a, b): float(np.linalg.norm(lab(C[a]) - lab(C[b]))) for a, b in itertools.combinations(C, 2)}
    close = {pair: round(gap, 1) for pair, gap in gaps.items() if gap < 20}
    assert not close, f"encodings whose colours look alike (CIELAB distance under 20): {close}"
    faint = [name for name, c in C.items() if np.linalg.norm(lab(c) - lab("white")) < 40]
    assert not faint, f"colours too pale to see on a white page: {faint}"


def test_a_variant_takes_its_encodings_colour_dashed_and_other_names_take_none_of_them():
    assert viz.encoding_of("rope-mixed-interp") == "rope-mixed"
    assert viz.encoding_of("learned-antialias") == "learned"
    assert viz.encoding_of("rope-axial") == "rope-axial" and viz.encoding_of("0.1") is None
    assert viz.line_style("relative-clamp") == "--" and viz.line_style("relative") == "-"
    got = viz.colours(["zeros", "rope-mixed", "0.02", "rope-mixed-interp"])
    assert got["rope-mixed"] == got["rope-mixed-interp"] == C["rope-mixed"]
    assert not same_color(got["zeros"], got["0.02"])
    assert not any(same_color(got[n], c) for n in ("zeros", "0.02") for c in C.values())


def _history() -> History:
    return History(step=list(range(20)), loss=list(np.linspace(2, 0.1, 20)), eval_step=[10, 20],
                   eval_accuracy=[0.4, 0.8], accuracy=[0.5] * 20)  # fmt: skip


def _is(artist_colour, name: str) -> bool:
    return same_color(to_rgba(artist_colour)[:3], to_rgb(C[name]))


def test_training_curves_capstone_and_resolution_figures_draw_each_encoding_in_its_colour():
    fig = viz.plot_history({"rope-mixed": _history(), "learned": _history()})
    for ax in fig.axes:
        assert [_is(line.get_color(), line.get_label()) for line in ax.lines] == [True, True]
    rows = [dict(encoding=e, loss=[2.0, 1.0], loss_step=[0, 1], images_per_second=90, test_accuracy=0.5)
            for e in ("alibi2d", "none")]  # fmt: skip
    loss, speed = viz.capstone({"rows": rows, "description": "", "device": "cpu", "precision": ""}).axes
    assert all(_is(line.get_color(), line.get_label()) for line in loss.lines)
    first, second = speed.collections
    assert _is(first.get_facecolor()[0], "alibi2d") and _is(second.get_facecolor()[0], "none")
    s = {"sizes": [16, 24], "mean": [0.5, 0.9], "std": [0.0, 0.0]}
    fig = viz.resolution_sweep({"a": ({"sincos2d": s, "rope-mixed": s, "rope-mixed-interp": s}, 24)})
    sincos, mixed, interp = fig.axes[0].lines[:3]
    assert _is(sincos.get_color(), "sincos2d") and _is(mixed.get_color(), "rope-mixed")
    assert _is(interp.get_color(), "rope-mixed") and interp.get_linestyle() == "--"


def test_figures_of_lesson_11_and_the_shuffle_draw_each_encoding_in_its_colour():
    stages = ["input of block 0", "output of block 0"]
    probe = {"r2": torch.zeros(2, 2), "accuracy": torch.full((2, 2), 0.25), "chance": torch.full((2,), 0.25),
             "stages": stages}  # fmt: skip
    acc, r2 = viz.probe_stages({"peg": probe, "rope-axial": probe}).axes
    assert _is(acc.lines[0].get_color(), "peg") and _is(acc.lines[1].get_color(), "rope-axial")
    fig = viz.attention_distances({"learned": torch.ones(1, 2), "pope": torch.ones(1, 2)}, uniform=1.0)
    dots = fig.axes[0].collections
    assert _is(dots[0].get_facecolor()[0], "learned") and _is(dots[1].get_facecolor()[0], "pope")
    p = torch.tensor([0.5, 0.5])
    fig = viz.shuffle_comparison(torch.rand(3, 8, 8), torch.rand(3, 8, 8), {"sincos1d": (p, p)}, patch_size=4)
    assert all(_is(bar.get_facecolor(), "sincos1d") for bar in fig.axes[2].patches)


def test_the_network_sweep_draws_an_encoding_in_its_colour_and_a_learned_table_in_learneds():
    runs = [{"arm": a, "unexplained": {"later": 0.5, "rerun": 0.6}} for a in ("0.1", "sincos1d")]
    summary = {a: {"unexplained_later": 0.5, "unexplained_rerun": 0.6} for a in ("0.1", "sincos1d")}
    fig = viz.network_sweep(summary, runs, {"0.1": "σ = 0.1", "sincos1d": "1-D sinusoid"})
    later = fig.axes[0].patches[:2]
    assert _is(later[0].get_facecolor(), "learned") and _is(later[1].get_facecolor(), "sincos1d")


def test_the_explorers_draw_an_encoding_in_its_colour():
    fig = widgets.alibi_view(heads=4, head=1, query=0, grid=(4, 4))
    bars = fig.axes[0].patches
    assert _is(bars[1].get_facecolor(), "alibi2d") and not _is(bars[0].get_facecolor(), "alibi2d")
    fig = widgets.family_view(strength=0.5, change="add", head_dim=8, grid=(4, 4))
    curves = [line for line in fig.axes[1].lines if line.get_label() in widgets.FAMILY_CHANGES]
    assert len(curves) == 2 and _is(curves[0].get_color(), "liere") and _is(curves[1].get_color(), "string")


@pytest.mark.parametrize("figure", ["init_scale_sweep", "rope_frequencies", "procrustes_layout"])
def test_one_encoding_figures_use_its_colour(figure):
    if figure == "init_scale_sweep":
        summary = {
            e: {"test": 0.8, "test_std": 0.1, "apart": 0.7, "apart_std": 0.1} for e in ("0.1", "sincos2d")
        }
        ax = viz.init_scale_sweep(summary, {}).axes[0]
        assert _is(ax.lines[0].get_color(), "learned")  # ours, mean ± std
        assert any(_is(line.get_color(), "sincos2d") for line in ax.lines)
    elif figure == "rope_frequencies":
        freqs = torch.randn(1, 2, 1, 4)
        arrows = viz.rope_frequencies(freqs, freqs).axes[0].collections
        assert all(_is(a.get_facecolor()[0], "rope-mixed") for a in arrows)
    else:
        from minivit.posenc.base import grid_coords

        ax = viz.procrustes_layout(grid_coords((3, 3)), (3, 3)).axes[0]
        assert _is(ax.lines[-1].get_color(), "learned")


def test_the_glossary_names_every_encoding_and_its_colour_once():
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "glossary.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \| ([a-z ]+) \|", text, flags=re.MULTILINE)
    assert sorted(key for key, _ in rows) == sorted(REGISTRY), "docs/glossary.md: one row per encoding"
    words = [word for _, word in rows]
    assert len(set(words)) == len(words), f"two encodings with one colour word in docs/glossary.md: {words}"
