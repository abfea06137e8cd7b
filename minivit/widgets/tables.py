"""Trained position tables: a learned table through its training snapshots, a recorded run of the
initial-scale sweep on its grid, and a table's tokens against a network's modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import ipywidgets as W
import torch
from matplotlib.figure import Figure
from torch import Tensor

from minivit import analysis, viz
from minivit.posenc.base import grid_coords
from minivit.widgets.base import check_grid, check_position, explorer, slider
from minivit.widgets.guards import check_index, check_positions, check_table


def learned_view(
    snapshots: Mapping[str, Sequence[tuple[int, Tensor]]],
    grid: tuple[int, int],
    *,
    init: str,
    snapshot: int,
    position: int,
) -> Figure:
    """A learned table from a run's snapshots: one position's similarity map, and every position's."""
    grid = _check_snapshots(snapshots, grid)
    if init not in snapshots:
        raise ValueError(
            f"init={init!r} is not one of the snapshots' runs; pass one of {', '.join(map(str, snapshots))}"
        )
    check_index("snapshot", snapshot, len(snapshots[init]), f"snapshots of {init}")
    check_position("position", position, grid)
    step, table = snapshots[init][snapshot]
    check_table(
        "the snapshot's table", table, (None, None), f"[positions, width] for the {grid[0]}x{grid[1]} grid"
    )
    score = analysis.structure_score(table, grid)
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1, 1.3])
    viz.similarity_map(table, grid, position, ax=left.subplots())
    viz.similarity_grid(table, grid, fig=right)
    fig.suptitle(f"init {init}, step {step}: structure score {score:.2f}", fontsize=10)
    return fig


def _check_snapshots(snapshots, grid) -> tuple[int, int]:
    """`grid` checked, or a ValueError unless `snapshots` maps each run to a non-empty list of
    (step, table) pairs, the same number for each."""
    grid = check_grid(grid)
    check_positions(grid)
    counts = (
        {len(v) if isinstance(v, Sequence) else 0 for v in snapshots.values()}
        if isinstance(snapshots, Mapping)
        else {0}
    )
    if not snapshots or 0 in counts or len(counts) > 1:
        raise ValueError(
            "snapshots holds no snapshots, or runs with none or with different numbers of them; pass "
            "{run: [(step, table [positions, width]), ...]} with the same number of snapshots for each run"
        )
    return grid


def learned_explorer(snapshots: Mapping[str, Sequence[tuple[int, Tensor]]], grid: tuple[int, int]) -> W.VBox:
    """Sliders: which initialisation, which training snapshot, which position."""
    grid = _check_snapshots(snapshots, grid)
    inits = list(snapshots)
    count = len(snapshots[inits[0]])
    return explorer(
        lambda init, snapshot, position: learned_view(
            snapshots, grid, init=init, snapshot=snapshot, position=position
        ),
        {
            "init": W.ToggleButtons(options=inits, value=inits[0], description="init"),
            "snapshot": slider(count - 1, 0, count - 1, "snapshot"),
            "position": slider(0, 0, grid[0] * grid[1] - 1, "position"),
        },
    )


def init_scale_view(
    runs: Sequence[Mapping], *, sigma: str, seed: int, block: int, name: str | None = None
) -> Figure:
    """A recorded run of the σ sweep (`minivit.experiments.init_scale`): its trained table of one
    block as similarity maps at their place on the 4x4 grid (left) and mapped onto the grid by
    Procrustes alignment (right), each score with its null where the run has one (`grid`)."""
    (run,) = [r for r in runs if r["encoding"] == sigma and r["seed"] == seed]
    table = torch.tensor(run["tables"][block])
    grid = (4, 4)
    score, aligned = analysis.procrustes(table, grid_coords(grid))
    fig = Figure(figsize=(8.5, 3.9), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.2, 1])
    nulls = run["grid"][block] if "grid" in run else None  # the same table against the cells shuffled
    similar = "each cell's similarity to the others"
    if nulls:
        similar += (
            f"\nagainst closeness on the grid: {nulls['structure']:.2f} "
            f"(shuffled: 95% ≤ {nulls['structure_null'][1]:.2f})"
        )
    viz.similarity_grid(table, grid, fig=left, title=similar, itself=False)
    title = f"aligned to the grid: {score:.2f}"
    if nulls:
        title += f"\n(cells shuffled: 95% at or below {nulls['procrustes_null'][1]:.2f})"
    # the best fit shrinks the table by its score; drawn at the grid's size, its shape shows
    centre = aligned.mean(0)
    viz.procrustes_layout(
        (aligned - centre) / max(score, 1e-6) + centre, grid, ax=right.subplots(), title=title
    )
    acc = run["accuracy"]
    scores = f"train {acc['train']:.2f}, held-out {acc['test']:.2f}, kept apart {acc['apart']:.2f}"
    where = f"σ = {sigma}, seed {seed}, block {block}"
    fig.suptitle((f"{name}: " if name else "") + f"{where}: {scores}", fontsize=10)
    return fig


def init_scale_explorer(
    runs: Sequence[Mapping] | Mapping[str, Sequence[Mapping]],
    *,
    sweep: str | None = None,
    sigma: str | None = None,
    seed: int | None = None,
    block: int = 0,
    sweep_label: str = "sweep",
) -> W.VBox:
    """Sliders: σ (from the recorded sweep), seed and block, starting at the given ones (default:
    the smallest σ, the first seed, the first block). Given several sweeps by name ({name: runs}),
    a first slider, named `sweep_label`, picks the sweep (default: the first)."""
    sweeps = dict(runs) if isinstance(runs, Mapping) else {"": runs}
    sweep = next(iter(sweeps)) if sweep is None else sweep
    if sweep not in sweeps:
        raise ValueError(f"no sweep {sweep!r}; the sweeps are {list(sweeps)}")
    tabled = [r for rs in sweeps.values() for r in rs if "tables" in r]
    sigmas = sorted({r["encoding"] for r in tabled}, key=float)
    seeds = sorted({r["seed"] for r in tabled})
    depth = len(tabled[0]["tables"])
    sigma = sigmas[0] if sigma is None else sigma
    seed = seeds[0] if seed is None else seed
    if sigma not in sigmas or seed not in seeds or not 0 <= block < depth:
        raise ValueError(
            f"no recorded table for σ={sigma!r}, seed={seed!r}, block={block!r}; the sweep has σ in "
            f"{sigmas}, seeds {seeds} and blocks 0-{depth - 1}"
        )
    controls = {
        "sigma": W.SelectionSlider(options=sigmas, value=sigma, description="σ", continuous_update=False),
        "seed": W.SelectionSlider(options=seeds, value=seed, description="seed", continuous_update=False),
        "block": slider(block, 0, depth - 1, "block"),
    }
    if len(sweeps) == 1:
        return explorer(
            lambda sigma, seed, block: init_scale_view(runs, sigma=sigma, seed=seed, block=block), controls
        )
    pick = W.SelectionSlider(
        options=list(sweeps), value=sweep, description=sweep_label, continuous_update=False
    )
    return explorer(
        lambda sweep, sigma, seed, block: init_scale_view(
            sweeps[sweep], sigma=sigma, seed=seed, block=block, name=f"{sweep_label} {sweep}"
        ),
        {"sweep": pick, **controls},
    )


def network_view(
    snapshots: Mapping[str, Sequence[tuple[int, Tensor]]], modules: Tensor, *, run: str, step: int
) -> Figure:
    """One run's table at one of its training snapshots (by step): similarity in the token order and
    sorted by module, with its within − between similarity."""
    table = dict(snapshots[run])[step]
    score = analysis.within_between(analysis.cosine_similarity(table), modules)
    return viz.module_similarity(table, modules, title=f"{run}, step {step}", score=score)


def network_explorer(snapshots: Mapping[str, Sequence[tuple[int, Tensor]]], modules: Tensor) -> W.VBox:
    """Controls: which run (its σ), which training step (the steps every run has a snapshot at)."""
    runs = list(snapshots)
    steps = sorted(set.intersection(*({step for step, _ in snapshots[r]} for r in runs)))
    if not steps:
        raise ValueError(
            "the runs share no snapshot step; keep them at the same steps (train_one(every=...))"
        )
    return explorer(
        lambda run, step: network_view(snapshots, modules, run=run, step=step),
        {
            "run": W.ToggleButtons(options=runs, value=runs[0], description="table"),
            "step": W.SelectionSlider(
                options=steps, value=steps[-1], description="step", continuous_update=False
            ),
        },
    )
