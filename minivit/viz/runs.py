"""Training runs and the experiments' results: loss and accuracy as a run goes, the capstone's
encodings side by side, the initial-scale sweep against the published numbers, accuracy across
resolutions, and the network sweep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from minivit.train import History
from minivit.viz.base import ENCODING_COLOURS, cmap, colours, line_style


def plot_history(histories: Mapping[str, History], *, chance: float | None = None) -> Figure:
    """Training loss and held-out accuracy against step, one line per run (an encoding's run in the
    encoding's colour)."""
    fig = Figure(figsize=(10, 3.5), layout="constrained")
    ax_loss, ax_acc = fig.subplots(1, 2)
    colour = colours(histories)
    for name, h in histories.items():
        k = max(1, len(h.loss) // 50)  # smooth the per-batch loss over ~2% of the run
        smooth = np.convolve(h.loss, np.ones(k) / k, mode="valid")
        ax_loss.plot(h.step[k - 1 :], smooth, color=colour[name], ls=line_style(name), label=name)
        if h.eval_accuracy:
            ax_acc.plot(
                h.eval_step, h.eval_accuracy, marker="o", ls=line_style(name), color=colour[name], label=name
            )
    if chance is not None:
        ax_acc.axhline(chance, color="gray", ls="--", lw=1, label="chance")
    ax_loss.set(xlabel="step", ylabel="training loss", title="loss")
    ax_acc.set(xlabel="step", ylabel="held-out accuracy", ylim=(0, 1.02), title="accuracy")
    ax_acc.legend(loc="upper left", fontsize=8)
    ax_loss.legend(fontsize=8)
    return fig


def capstone(result: Mapping) -> Figure:
    """Every encoding of a capstone run: training loss against step, and test accuracy against
    training speed (images/s)."""
    fig = Figure(figsize=(11, 3.8), layout="constrained")
    ax_loss, ax_speed = fig.subplots(1, 2)
    colors = colours([r["encoding"] for r in result["rows"]])
    for r in result["rows"]:
        loss = np.asarray(r["loss"])
        k = max(1, len(loss) // 20)
        smooth = np.convolve(loss, np.ones(k) / k, mode="valid")
        ax_loss.plot(r["loss_step"][k - 1 :], smooth, color=colors[r["encoding"]], label=r["encoding"])
        ax_speed.scatter(r["images_per_second"], r["test_accuracy"], color=colors[r["encoding"]], s=40)
        ax_speed.annotate(
            r["encoding"],
            (r["images_per_second"], r["test_accuracy"]),
            xytext=(5, 3),
            textcoords="offset points",
            fontsize=8,
        )
    ax_loss.set(xlabel="step", ylabel="training loss (smoothed)", title="training")
    ax_loss.legend(fontsize=8)
    ax_speed.set(xlabel="training images / s", ylabel="test accuracy", title="accuracy and speed")
    ax_speed.grid(alpha=0.3)
    fig.suptitle(f"{result['description']} · {result['device']} ({result['precision']})", fontsize=10)
    return fig


def init_scale_sweep(
    summary: Mapping[str, Mapping[str, float]],
    published: Mapping[str, Sequence[float]],
    runs: Sequence[Mapping] = (),
    *,
    reference: str = "sincos2d",
) -> Figure:
    """Accuracy against the initial scale σ of a learned table, on held-out and kept-apart puzzles:
    our mean ± std over seeds (dots: single runs) next to the published means (dashed), in the learned
    table's colour; the fixed 2-D sinusoid as horizontal lines in its own."""
    sigmas = [k for k in summary if k != reference]
    learned, fixed = ENCODING_COLOURS["learned"], colours([reference])[reference]
    x = np.array([float(s) for s in sigmas])
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (split, column, title) in zip(
        axes, [("test", 0, "held-out generated puzzles"), ("apart", 1, "puzzles kept apart")], strict=True
    ):
        mean = np.array([summary[s][split] for s in sigmas])
        std = np.array([summary[s][split + "_std"] for s in sigmas])
        ax.errorbar(x, mean, yerr=std, marker="o", capsize=3, color=learned, label="ours (mean ± std)")
        for r in runs:
            if r["encoding"] != reference:
                ax.plot(float(r["encoding"]), r["accuracy"][split], ".", color=learned, alpha=0.35)
        pub = [published[s][column] for s in sigmas if s in published]
        if pub:  # no empty legend entry when there is nothing published to draw
            ax.plot(
                [float(s) for s in sigmas if s in published],
                pub,
                "s--",
                color=learned,
                markerfacecolor="white",
                label="Ito et al. 2024",
            )
        if reference in summary:
            ax.axhline(summary[reference][split], color=fixed, lw=1, label="2-D sinusoid (ours)")
        if reference in published:
            ax.axhline(
                published[reference][column],
                color=fixed,
                lw=1,
                ls="--",
                label="2-D sinusoid (published)",
            )
        ax.axhline(0.25, color="gray", lw=0.8, ls=":", label="chance")
        ax.set(xlabel="initial scale σ of the learned tables", title=title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy")
    axes[1].legend(fontsize=8, loc="lower left")
    return fig


def init_scale_curves(
    runs: Sequence[Mapping],
    encodings: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    splits: Mapping[str, str] | None = None,
) -> Figure:
    """Accuracy on each set as training goes (the runs' "evals"), one panel per encoding, one line
    per run and set. The sets are drawn in greys (light: train, black: kept apart), as they are not
    encodings."""
    splits = splits or {"train": "train", "test": "held-out", "apart": "kept apart"}
    colors = dict(zip(splits, ("0.7", "0.45", "0.1"), strict=False))
    styles = dict(zip(splits, (":", "--", "-"), strict=False))
    fig = Figure(figsize=(3.6 * len(encodings), 3.2), layout="constrained")
    axes = fig.subplots(1, len(encodings), sharey=True, squeeze=False)[0]
    for ax, encoding in zip(axes, encodings, strict=True):
        for n, r in enumerate(x for x in runs if x["encoding"] == encoding and "evals" in x):
            for split, name in splits.items():
                ax.plot(
                    r["evals"]["step"],
                    r["evals"][split],
                    color=colors[split],
                    ls=styles[split],
                    lw=1.2,
                    alpha=0.8,
                    label=name if n == 0 else None,
                )
        ax.axhline(0.25, color="gray", lw=0.8, ls=":")
        ax.set(xlabel="training step", title=(labels or {}).get(encoding, encoding), ylim=(0, 1.02))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy")
    axes[0].legend(fontsize=8, loc="lower right")
    return fig


def agreement_scatter(
    runs: Sequence[Mapping],
    *,
    x: str = "agreement_with_sincos",
    split: str = "apart",
    reference: str = "sincos2d",
) -> Figure:
    """Each run's attention agreement with the 2-D sinusoid model against its accuracy, coloured by σ."""
    fig = Figure(figsize=(5, 3.6), layout="constrained")
    ax = fig.subplots()
    sigmas = sorted({r["encoding"] for r in runs if r["encoding"] != reference}, key=float)
    colors = {s: c for s, c in zip(sigmas, np.linspace(0.1, 0.9, len(sigmas)), strict=True)}
    for s in sigmas:
        rs = [r for r in runs if r["encoding"] == s]
        ax.scatter(
            [r[x] for r in rs],
            [r["accuracy"][split] for r in rs],
            color=cmap("plasma")(colors[s]),
            label=f"σ = {s}",
        )
    ax.set(xlabel="attention agreement with the 2-D sinusoid model", ylabel=f"accuracy ({split})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def resolution_sweep(
    panels: Mapping[str, tuple[Mapping[str, Mapping], int]], *, ylabel: str = "accuracy"
) -> Figure:
    """Accuracy against test image size, one panel per task: {title: (summary, train_size)} with
    summary {variant: {"sizes": [...], "mean": [...], "std": [...]}}; a band of ± std over seeds, the
    training size marked. Each variant in its encoding's colour, dashed where it is one encoding with
    other options (rope-mixed-interp, learned-antialias, relative-clamp)."""
    fig = Figure(figsize=(4.6 * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    variants = list(dict.fromkeys(v for summary, _ in panels.values() for v in summary))
    colors = colours(variants)
    for ax, (title, (summary, train_size)) in zip(axes, panels.items(), strict=True):
        for variant, s in summary.items():
            x, m = np.array(s["sizes"]), np.array(s["mean"])
            sd = np.array(s.get("std", np.zeros_like(m)))
            ax.plot(x, m, marker="o", ls=line_style(variant), ms=3, color=colors[variant], label=variant)
            if sd.any():
                ax.fill_between(x, m - sd, m + sd, color=colors[variant], alpha=0.15)
        ax.axvline(train_size, color="gray", lw=1, ls=":")
        ax.set(xlabel="test image size (px)", title=title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    return fig


def network_sweep(
    summary: Mapping[str, Mapping], runs: Sequence[Mapping], labels: Mapping[str, str]
) -> Figure:
    """The recorded network sweep (`minivit.experiments.network`), the arms along the x axis of three
    panels: error on
    held-out steps as a fraction of the variance, and how well the table recovers the modules
    (within − between similarity, with its permutation null's 95th percentile; adjusted Rand
    index). Bars: mean over seeds, in each arm's colour (an encoding's own; a learned table at scale σ,
    the learned table's; others grey), hatched for a second run; dots: single seeds."""
    arms = list(summary)
    x = np.arange(len(arms))
    colour = [_arm_colour(a) for a in arms]
    fig = Figure(figsize=(12, 3.4), layout="constrained")
    axes = fig.subplots(1, 3)
    ax = axes[0]
    for split in ("later", "rerun"):
        offset = -0.2 if split == "later" else 0.2
        ax.bar(
            x + offset,
            [summary[a][f"unexplained_{split}"] for a in arms],
            width=0.4,
            color=colour,
            edgecolor=colour if split == "later" else "white",
            hatch=None if split == "later" else "//",
            alpha=0.7,
        )
        for r in runs:
            ax.plot(
                arms.index(r["arm"]) + offset, r["unexplained"][split], ".", color="k", mec="w", mew=0.4, ms=5
            )
    axes[0].set_ylabel("error / variance")
    axes[0].set_title("masked nodes, held out (lower is better)", fontsize=10)
    keys = [Patch(facecolor="0.6", edgecolor=e, hatch=h) for e, h in (("0.6", None), ("white", "//"))]
    names = ["later steps of the same run", "a second run, fresh noise"]
    axes[0].legend(keys, names, fontsize=8, loc="lower left")
    for ax, measure, title in (
        (axes[1], "within_between", "within − between similarity"),
        (axes[2], "ari", "adjusted Rand index (k-means)"),
    ):
        has = [a for a in arms if measure in summary[a]]
        xs = [arms.index(a) for a in has]
        ax.bar(xs, [summary[a][measure] for a in has], width=0.6, color=[colour[i] for i in xs], alpha=0.7)
        for r in runs:
            if "recovery" in r:
                ax.plot(arms.index(r["arm"]), r["recovery"][measure], ".", color="k", mec="w", mew=0.4, ms=5)
                top = r["recovery"][measure + "_null"][1]
                ax.plot(
                    arms.index(r["arm"]) + np.array([-0.3, 0.3]), [top, top], color="0.2", ls="--", lw=0.8
                )
        ax.set_title(title, fontsize=10)
        ax.axhline(0, color="gray", lw=0.6)
        ax.plot([], [], color="0.2", ls="--", lw=0.8, label="each run's null, 95th percentile")
        ax.legend(fontsize=8, loc="upper center")
    for ax in axes:
        ax.set_xticks(x, [labels[a] for a in arms], rotation=45, ha="right", fontsize=8)
        ax.grid(alpha=0.3, axis="y")
    return fig


def _arm_colour(arm: str) -> str:
    """An arm of the network sweep: an encoding's key, a learned table's initial scale σ, or another."""
    if arm in ENCODING_COLOURS:
        return ENCODING_COLOURS[arm]
    try:
        float(arm)
    except ValueError:
        return "0.6"
    return ENCODING_COLOURS["learned"]
