# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · The initial scale decides what a learned encoding becomes
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/07_init_scale.ipynb)
#
# Lesson 03 hinted at it on images; here we test it the way Ito, Cocchi, Klinger, Ram, Campbell and
# Hearne did ("Learning interpretable positional encodings in transformers depends on
# initialization", 2024). On a reasoning task whose tokens lie on a 4×4 grid, they report that a
# learnable position table started with a **small** norm learns that grid and generalizes, while
# the same model started **large** does worse on new puzzles and much worse on puzzles unlike its
# training ones (σ = 2: 0.85 and 0.38, against 0.97 and 0.93 at σ = 0.1).
#
# We reproduce the experiment at a size a laptop trains in minutes, compare with the published
# numbers, and say plainly where ours differ. The biggest difference: in our short CPU runs a
# large table does not make a model that memorizes; it makes a model that does not train at all.
#
# **What you will learn**
# - the Latin square task, and what "puzzles kept apart" from training means;
# - why the initial scale σ only means something next to how far training can move the table;
# - a live run: small σ against large σ, two seeds each;
# - our recorded σ sweep next to the published one, and where they differ;
# - how to measure whether a table learned the grid (Procrustes alignment), and whether attention
#   that matches the 2-D sinusoid model goes with generalization (in our runs it does not, once the
#   runs that never trained are left out);
# - one run of SGD against Adam at small σ, and what one run can and cannot say;
# - how the reference code showed why our numbers fell short of the paper's, and the run on its own
#   puzzles that matches them.
#
# The live part trains five small models: about two minutes on a laptop CPU.

# %%
# Set-up: on Colab, install the course's package; elsewhere it is already installed (see README).
import math
import sys

if "google.colab" in sys.modules:  # Colab keeps its own torch and ipywidgets (7.7 or 8)
    import subprocess

    from google.colab import output

    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "minivit @ git+https://github.com/minivit-course/minivit"],
        check=True,
    )
    output.enable_custom_widget_manager()  # widgets render whichever ipywidgets is installed

from dataclasses import replace

import torch

# %matplotlib inline
from minivit import ViT, analysis, lesson, viz, widgets
from minivit.data import lst
from minivit.experiments import init_scale, recorded
from minivit.posenc.base import grid_coords

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## The task: Latin square puzzles
#
# A 4×4 Latin square holds the symbols 1–4 so that no symbol repeats in a row or a column (there
# are 576 of them). A puzzle shows some cells, hides the others, and marks one hidden cell **?**:
# the answer is the symbol the rules force there. Each cell is a token (one-hot over blank, 1–4
# and ?), so a puzzle is a 6-channel 4×4 "image" read with patch size 1: 16 tokens in raster
# order, the answer read from the last one. Nothing tells the model which tokens share a row or a
# column. That is the position encoding's job.
#
# Puzzles are graded by what the deduction needs: *binary* (the query's row or column alone shows
# the other three symbols), *ternary* (its row and column together do), *quaternary* (other cells
# must be worked out first).

# %%
setting = init_scale.SETTINGS["lesson"]
data = init_scale.make_data(setting, seed=SEED)
for name, ds in data.items():
    print(f"{name:>5}: {ds}")
train = data["train"]
viz.lst_puzzles(train.cells[:6], train.tensors[1][:6], titles=train.grades[:6])

# %% [markdown]
# Every answer is forced by the rules (checked by enumerating the 576 squares), and the three sets
# are built so that a model cannot pass the last one by remembering:
#
# - **train**: puzzles from 80% of the squares;
# - **test** (held-out): new puzzles from the same squares;
# - **apart**: puzzles from the 20% of squares never used in training, each at Jaccard distance at
#   least 0.3 from every training puzzle.

# %% tags=["nbval-ignore-output"]
for name, ds in data.items():
    assert (lst.forced(ds.cells) == ds.tensors[1] + 1).all(), name
assert not set(data["test"].strings()) & set(train.strings())
nearest = lst.min_jaccard_distance(data["apart"].cells, train.cells)
print(f"kept-apart puzzles: nearest training puzzle at Jaccard distance {nearest.min():.2f} or more")
assert nearest.min() >= 0.3

# %% [markdown]
# ## The model, and the scale of its tables
#
# Four post-LayerNorm blocks with one head, as in the paper but narrower (width 32 instead of 160,
# so it trains in seconds). Each block has its own learnable table, 16 vectors added to the tokens
# before that block's attention, drawn from N(0, σ²).
#
# Next to what is it large or small? Next to the tokens it is added to, and next to how far
# training can move it. Adam normalises each gradient by its running size, so a step typically
# moves an entry by about the learning rate (in the worst case a few times more: about 3.2 times
# with the default betas, Kingma & Ba 2015, arXiv 1412.6980, §2.1); summed over the run's
# learning-rate schedule that gives the **reach**: roughly how far an entry can travel. A table
# with σ well below its reach can be rewritten by training; a table with σ well above it stays
# mostly the random draw it started as. Ito et al.'s reading of the large-σ case: a random table
# is a *name tag* for each position, something to memorize with rather than a grid to reason on.
# Our runs below do not get that far.

# %% tags=["nbval-ignore-output"]
model = ViT(setting.config("0.1"))
print(model.config)
with torch.no_grad():
    tokens, _ = model.patch_embed(train.tensors[0][:256])
print(f"size of a patch token entry (rms): {tokens.pow(2).mean().sqrt():.2f}")
for sigma in ("0.1", "2.0"):
    table = ViT(setting.config(sigma)).pos.table
    print(f"σ = {sigma}: table {tuple(table.shape)}, rms {table.pow(2).mean().sqrt():.2f}")
published = init_scale.SETTINGS["paper"]
print(f"reach (sum of the learning rates): published setting {published.reach:.2f} "
      f"(lr {published.lr}, {published.steps} steps); this lesson {setting.reach:.2f} (lr {setting.lr}, {setting.steps} steps)")
assert abs(ViT(setting.config("2.0")).pos.table.std().item() - 2.0) < 0.1

# %% [markdown]
# ## Live: small σ against large σ
#
# Two seeds each, the same puzzles, the same everything but σ. `train_one` trains, then evaluates
# on the three sets and measures the trained tables. (Four runs of about 20 s each.) The last column
# is the loss of the last training batch: ln 4 ≈ 1.386 is the loss of a model that gives every
# puzzle the same answer distribution. We call a run one that never trained when it answers its own
# training puzzles no better than chance (0.25) plus 0.1; its last loss is then near ln 4.

# %% tags=["nbval-ignore-output"]
live = {}
for sigma in ("0.1", "2.0"):
    for seed in (SEED, SEED + 1):
        trained, record = init_scale.train_one(sigma, seed, setting, data)
        live[sigma, seed] = (trained, record)

# %% tags=["nbval-ignore-output"]
print("  σ   seed  train  test  apart  table moved (rms)  final loss")
for (sigma, seed), (_, r) in live.items():
    a = r["accuracy"]
    print(f"{sigma:>4}  {seed:>4}  {a['train']:.3f}  {a['test']:.3f}  {a['apart']:.3f}  {r['moved_rms']:.2f}"
          f"               {r['final_loss']:.3f}")


def mean_over_seeds(sigma, key):
    return sum(r["accuracy"][key] for (s, _), (_, r) in live.items() if s == sigma) / 2


def never_trained(r):  # no better than chance (0.25) on its own training puzzles
    return r["accuracy"]["train"] < 0.35


small, large = mean_over_seeds("0.1", "apart"), mean_over_seeds("2.0", "apart")
print(f"kept-apart accuracy, mean of 2 seeds: σ = 0.1 {small:.3f}, σ = 2.0 {large:.3f} (chance 0.25)")
assert small > large + 0.15
assert all(never_trained(r) for (s, _), (_, r) in live.items() if s == "2.0")  # σ = 2: dead, not memorizing
assert not any(never_trained(r) for (s, _), (_, r) in live.items() if s == "0.1")

# %% [markdown]
# So in this short CPU run σ = 0.1 generalizes and σ = 2 does not train: it stays at chance on its
# own training puzzles and its loss near ln 4, so the gap above is between a model that learned and
# one that never did. It says that a large table can stop training altogether at this budget; it
# says nothing about memorizing.
#
# ## The recorded sweep, next to the published one
#
# Five small runs cannot draw the whole curve. `python -m minivit.experiments.init_scale` runs every
# σ in {0.1, 0.2, 0.5, 1.0, 1.5, 2.0} and the fixed 2-D sinusoid, three seeds each, and writes what
# it measured to `minivit/experiments/recorded/init_scale.json`, with the command, date and machine that produced it. On a
# GPU, `--setting paper` runs the paper's own size.

# %%
sweep = recorded("init_scale.json")
print({k: sweep["provenance"][k] for k in ("command", "date", "hardware")}, sweep["setting"], sep="\n")
summary, runs = sweep["summary"], sweep["runs"]
viz.init_scale_sweep(summary, init_scale.PUBLISHED, runs)

# %%
print("              held-out          kept apart: ours (unseen squares), paper (human study's 108)")
print("              ours   paper      ours   paper   (train: ours)")
for enc, (p_test, p_apart) in init_scale.PUBLISHED.items():
    s = summary[enc]
    print(f"{init_scale.label(enc):>13}  {s['test']:.3f}  {p_test:.3f}      {s['apart']:.3f}  {p_apart:.3f}   ({s['train']:.3f})")

# %% [markdown]
# The two "kept apart" columns are different puzzles: ours come from the 20% of squares never used
# in training, at Jaccard distance 0.3 or more from every training puzzle; the paper's are the 108
# puzzles of its human study. Held-out puzzles are new puzzles from the training squares in both.
#
# What we claim from the recorded runs, checked here:

# %%
small_sigmas = [e for e in summary if e != "sincos2d" and float(e) <= 0.5]
best_small_apart = max(summary[e]["apart"] for e in small_sigmas)
assert all(summary[e]["apart"] > summary["2.0"]["apart"] + 0.15 for e in small_sigmas)  # σ = 2 runs are dead (below)
assert summary["sincos2d"]["apart"] >= best_small_apart - 0.05  # the sinusoid is near the best
assert summary["0.1"]["test"] > summary["2.0"]["test"]

# the differences stated below
small_runs = [r for r in runs if r["encoding"] in small_sigmas]
assert all(summary[e]["test"] < 0.95 for e in small_sigmas)  # short of the paper's 0.97-0.99
assert all(r["accuracy"]["train"] < 1.0 for r in runs)  # no run fits every training puzzle
dead = [r for r in runs if r["encoding"] != "sincos2d" and abs(r["final_loss"] - math.log(4)) < 0.01]
assert all(r in dead for r in runs if r["encoding"] in ("1.5", "2.0"))  # σ ≥ 1.5: the loss stays at ln 4
assert sum(r in dead for r in runs if r["encoding"] == "1.0") == 1  # and one σ = 1 seed of three
assert not any(r in dead for r in small_runs)
assert min(r["accuracy"]["train"] for r in runs if r["encoding"] == "0.2") < 0.7  # one σ = 0.2 seed still learning
assert summary["0.5"]["apart"] > max(summary["0.1"]["apart"], summary["0.2"]["apart"])

# %% [markdown]
# **Where we agree with the paper.** The ranking: every σ ≤ 0.5 generalizes to the kept-apart
# puzzles (0.73–0.88) and σ = 2 does not (chance), with the fixed 2-D sinusoid the best of all.
# Only the ranking: our σ = 2 is at chance because it never trained (next paragraph).
#
# **Where we differ, and by how much.**
# - Our accuracies are lower: held-out 0.75–0.89 against the paper's 0.97–0.99; kept apart
#   0.73–0.90 against the paper's 0.93–0.98 on its human-study puzzles (a different set). Our model
#   is 5× narrower and trains 4× fewer steps, and it does not reach 100% on its training puzzles
#   (0.84–0.97), which the paper's models all do. Most of the gap turns out to come with the puzzles
#   themselves (see *Is it the puzzles?* below).
# - Large σ fails differently. In the paper a σ = 2 model still reaches 0.85 on held-out puzzles
#   and 0.38 on the human study's: it fails out of distribution. Ours, at a 30× larger learning
#   rate, do not train at all: the loss stays at ln 4 ≈ 1.386, the answer is a constant, in every
#   run with σ ≥ 1.5 and in one of three with σ = 1. So our sweep shows that a large table can stop
#   a short run from training, not *how* a large table harms a model that does train.
# - σ = 0.1 and 0.2 are not our best: their runs are still learning when training ends (one σ = 0.2
#   seed is at 0.68 on its training puzzles), where σ = 0.5 has converged.
#
# **Is it the width?** One more recorded run takes the paper's own model (width 160) and data, for
# 5,000 steps at 3× the paper's learning rate (about 8 minutes a run on 2 CPU cores; one seed,
# `--setting wide`):

# %%
wide = recorded("init_scale_wide.json")
print(wide["provenance"]["command"], wide["setting"], sep="\n")
wide_summary = wide["summary"]
for enc, s in wide_summary.items():
    print(f"{init_scale.label(enc):>13}  train {s['train']:.3f}  held-out {s['test']:.3f}  kept apart {s['apart']:.3f}")
wide_runs = {r["encoding"]: r for r in wide["runs"]}
assert wide["setting"]["dim"] == published.dim and math.isclose(wide["setting"]["lr"], 3 * published.lr)
assert all(r["seconds"] < 10 * 60 for r in wide["runs"])  # about 8 minutes a run on 2 CPU cores
assert abs(wide_summary["0.1"]["test"] - 0.89) < 0.01  # held-out near 0.89 (the paper: 0.97)
assert wide_summary["0.1"]["train"] > 0.99  # the wide model fits its training puzzles...
assert all(s["test"] < 0.95 for s in wide_summary.values())  # ...and is still short of the paper's held-out
assert wide_summary["0.1"]["apart"] > wide_summary["2.0"]["apart"] + 0.15  # small σ still wins
assert wide_runs["2.0"]["final_loss"] < math.log(4) - 0.5  # σ = 2 trains at this width...
assert wide_summary["2.0"]["train"] < 0.9  # ...but fits its training puzzles no better than it generalizes

# %% [markdown]
# Width closes one gap and not the other. At the paper's width σ = 0.1 fits every training puzzle,
# and σ = 2 trains instead of dying (though it fits its training puzzles no better than new ones:
# it does not memorize either), but held-out accuracy stays near 0.89 (the paper: 0.97), with the
# training puzzles already fitted. So something else differs. The reference code is public
# ([LSTNN_public](https://github.com/ljhearne/LSTNN_public)); here is what it does, next to what
# `--setting paper` does:
#
# | | reference (file, line) | minivit `--setting paper` |
# |---|---|---|
# | input tokens | one-hot over 1–4 and ?, a blank cell all zeros (`dataset.py` 242–248) | one-hot over blank, 1–4, ? (the same once embedded, with a bias) |
# | embedding, readout | `Linear(5, 160)` with bias; the last token, cell 15 (`transformer_main.py` 231, 305) | 1×1 patch embedding with bias; `pool="last"` |
# | position table | one per block, 16 × 160, `randn · σ`, added to the residual stream before attention, trained at the others' rate (`learnable_pe.py` 15, `transformer_main.py` 415) | `per_block=True`, N(0, σ²), the same place and rate |
# | blocks | 4 post-LN blocks, 1 head, width 160, dropout 0 (419–422) | the same |
# | MLP, other weights | Linear–GELU–Linear–**GELU**; PyTorch's default init | no last GELU; truncated normal, std 0.02 (kept: they do not matter, below) |
# | optimizer, schedule | AdamW, lr 1e-4, betas (0.9, 0.999), no weight decay, **constant**, no warmup (`run_transformer.py` 146) | the same (`schedule="constant"`) |
# | batch, length, loss | 128, reshuffled each epoch; 4,000 epochs, held-out flat from epoch 200; cross-entropy | 128; 12,800 steps (≈ 230 epochs); cross-entropy |
# | puzzles | 3,000 per grade, each ≥ 0.8 Jaccard from the 108 puzzles of the human study; held-out: a random part; kept apart: the human study's 108 | generated (`max_rounds=1`, below), or the reference's own files with `--puzzles` |
#
# The schedule differed (we decayed the rate, the reference keeps it constant), and the two marked
# details differ still. Which of them matters? The test is to train our model, with the reference's
# recipe, on the reference's own puzzle files: `lst.reference_splits` reads them (a seeded 80/20
# split of the 9,000 generated puzzles; the human study's 108 kept apart), and
# `--setting paper-cpu` is the recipe at 3× the learning rate for 2,000 steps, about 6 minutes a run
# on 2 CPU cores. Recorded, 3 seeds:

# %%
ref = recorded("init_scale_reference.json")
print(ref["provenance"]["command"], ref["setting"], f"puzzles: {ref['puzzles']}", sep="\n")
ref_summary = ref["summary"]
print("              held-out         kept apart (human study)   train")
print("              ours    paper    ours            paper")
for enc in ref_summary:
    s, (p_test, p_apart) = ref_summary[enc], init_scale.PUBLISHED[enc]
    print(f"{init_scale.label(enc):>13}  {s['test']:.3f}   {p_test:.3f}    {s['apart']:.3f} ± {s['apart_std']:.3f}   {p_apart:.3f}     {s['train']:.3f}")
assert ref["puzzles"] == "reference" and ref["setting"]["schedule"] == "constant" and ref_summary["0.1"]["seeds"] == 3
assert abs(ref_summary["0.1"]["test"] - init_scale.PUBLISHED["0.1"][0]) < 0.03  # held-out: the paper's, within 0.03
assert ref_summary["0.1"]["apart"] > init_scale.PUBLISHED["0.1"][1]  # the human study's puzzles: at least the paper's
assert all(ref_summary[e]["test"] < init_scale.PUBLISHED[e][0] - 0.1 for e in ("2.0", "sincos2d"))  # not matched
spread = max(ref_summary[e]["apart_std"] for e in ("0.1", "2.0"))
assert ref_summary["0.1"]["apart"] - ref_summary["2.0"]["apart"] > 3 * spread  # small σ wins on the human study's puzzles
assert max(r["accuracy"]["train"] for r in ref["runs"] if r["encoding"] == "2.0") < 0.5  # σ = 2 has not fit, at this budget
viz.init_scale_sweep(ref_summary, init_scale.PUBLISHED, ref["runs"])

# %% [markdown]
# On the reference's puzzles, our model matches the paper at σ = 0.1: held-out accuracy within 0.03
# of the published 0.970, and the human study's puzzles solved at least as well (0.95 against
# 0.93). So the last GELU and the weight init do not explain the gap at σ = 0.1. What closed it is
# the reference's puzzles *together with* its recipe (constant learning rate, another rate and
# length): this run changed them at once, and does not say which of them mattered; the deduction
# depth below points at the puzzles. Where this CPU-sized run does not match the paper: σ = 2 has
# not yet fit its training puzzles (0.37 on them; the paper's 0.85 held-out is out of reach), and
# the 2-D sinusoid is slow to start on two seeds of three (0.82 held-out against 0.985); both would
# need the full length (`--setting paper`, on a GPU), which we have not run.
#
# **What was different about ours?** A puzzle's grade says which cells the deduction looks at; it
# does not say how deep it goes. `lst.deduction_rounds` counts rounds: in one round every blank cell
# whose symbol follows directly from the shown cells is filled (a naked or a hidden single). Every
# one of the reference's 9,000 puzzles, and of the human study's 108, is solved in one round
# (`lst.deduction_rounds(lst.reference_splits(folder)["train"].cells)` on its files). Our generator
# also made quaternary puzzles that need a cell worked out first (the shares depend on the drawn
# puzzles, so they vary a little with `MINIVIT_SEED`):

# %% tags=["nbval-ignore-output"]
for name, ds in data.items():
    rounds = lst.deduction_rounds(ds.cells)
    by_grade = {g: rounds[[x == g for x in ds.grades]] for g in lst.GRADES}
    print(f"{name:>5}: " + ", ".join(f"{g} {(r >= 2).float().mean():.0%} need 2+ rounds" for g, r in by_grade.items()))
    assert all((by_grade[g] == 1).all() for g in ("binary", "ternary"))  # always one round
    assert (by_grade["quaternary"] >= 2).float().mean() > 0.2  # a sizeable share of deeper ones
wide_grades = wide_runs["0.1"]["accuracy_apart_by_grade"]
print("the wide σ = 0.1 run, kept-apart accuracy by grade:", {g: round(a, 2) for g, a in wide_grades.items()})
assert wide_grades["quaternary"] < wide_grades["ternary"] - 0.2  # the quaternary puzzles are where it fails

# %% [markdown]
# Those deeper puzzles are where our models lost their accuracy: the wide run is perfect on binary
# and ternary puzzles and at about two thirds on quaternary ones. `generate(..., max_rounds=1)` now
# leaves them out, and `--setting paper` uses it. That may not be the whole difference: run
# `--setting paper-cpu` without `--puzzles` and compare its training accuracy with the recorded
# runs above. Until our generated puzzles match the reference's there, `--puzzles` with the
# reference's files is how to reproduce the paper. The CPU sweeps above were recorded on puzzles of
# any depth and are kept as they are: they still show σ's effect.
#
# **How far did the tables move?** Each record keeps the root-mean-square change of its tables
# (`moved_rms`). Far less than the reach: the gradient's sign changes from step to step, so Adam's
# steps partly cancel. What matters is the movement against σ:

# %%
print("  σ    moved (rms, mean of seeds)   moved / σ")
for enc in summary:
    if enc != "sincos2d":
        moved = [r["moved_rms"] for r in runs if r["encoding"] == enc]
        m = sum(moved) / len(moved)
        print(f"{enc:>4}   {m:.3f}                        {m / float(enc):.2f}")
moved_small = [r["moved_rms"] for r in runs if r["encoding"] == "0.1"]
moved_large = [r["moved_rms"] for r in runs if r["encoding"] == "2.0"]
assert min(moved_small) > 0.1  # a σ = 0.1 table is rewritten: it moved more than its own size
assert max(moved_large) < 0.05 * 2.0  # a σ = 2 table keeps more than 95% of its draw (runs that never trained)

# %% [markdown]
# A σ = 0.1 table ends up mostly what training wrote into it; a σ = 2 table is still, to 97%, the
# random draw it started as (moved/σ ≈ 0.03): 16 unrelated vectors that say nothing about rows and
# columns. But every σ = 2 run here is one that never trained, and its table moved less than any
# live run's (about 0.06 against 0.13-0.16): these runs cannot tell "too large for its reach" apart
# from "no useful gradient reached it".
#
# ## What did the tables learn?
#
# For each trained table, the cosine similarity of every cell's vector to every other's, drawn at
# that cell's place on the grid, and the table mapped onto the 4×4 grid by Procrustes alignment:
# the rotation, reflection and scale that bring its 16 vectors closest to the grid's coordinates.
# A score of 1 means the table *is* the grid, seen from some angle; a random table scores low.
# Move σ and compare.

# %% tags=["nbval-ignore-output"]
widgets.init_scale_explorer(runs)

# %% [markdown]
# The σ = 0.1 and 0.2 tables hold a little of the grid: their Procrustes score is above a random
# table's, and nearby cells have more similar vectors (a positive correlation), but the maps are far
# from the clean rows and columns the paper shows after 200 epochs. The σ = 0.5 tables, whose
# models generalize best here (0.88 kept apart), hold barely more of the grid than the σ = 2 noise:
# in these runs, solving unseen puzzles does not need a table that holds the grid.

# %%
print("  σ     Procrustes to grid  to sinusoid  similarity-distance corr.")
for enc in summary:
    if enc != "sincos2d":
        s = summary[enc]
        print(f"{enc:>4}   {s['procrustes_grid']:.2f} ± {s['procrustes_grid_std']:.2f}"
              f"        {s['procrustes_sincos']:.2f}         {s['structure']:.2f}")
g = torch.Generator().manual_seed(SEED)
random_score = sum(analysis.procrustes(torch.randn(16, 32, generator=g), grid_coords((4, 4)))[0] for _ in range(50)) / 50
print(f"a random 16 x 32 table: {random_score:.2f}")
assert summary["0.1"]["procrustes_grid"] > summary["2.0"]["procrustes_grid"] + 0.03
assert abs(summary["2.0"]["procrustes_grid"] - random_score) < 0.03  # σ = 2 tables: no more grid than noise
assert summary["0.1"]["structure"] > 0.1 > summary["1.5"]["structure"]
assert summary["0.5"]["procrustes_grid"] < summary["2.0"]["procrustes_grid"] + 0.03  # the best generalizer: little grid

# %% [markdown]
# ## Does attention like the sinusoid's go with generalization?
#
# The paper compares each model's attention maps with those of the 2-D sinusoid model, on the same
# puzzles, and finds a strong correlation with generalization. Here: the attention mass the two put
# on the same cells (1 = identical maps), averaged over 256 kept-apart puzzles and the four blocks,
# for every recorded run, against its accuracy on the kept-apart puzzles; then the same over the
# runs that trained (loss below ln 4).

# %%
sigma_runs = [r for r in runs if r["encoding"] != "sincos2d"]
agreement = torch.tensor([r["agreement_with_sincos"] for r in sigma_runs])
apart = torch.tensor([r["accuracy"]["apart"] for r in sigma_runs])
corr = torch.corrcoef(torch.stack([agreement, apart]))[0, 1].item()
trained = torch.tensor([r not in dead for r in sigma_runs])
corr_trained = torch.corrcoef(torch.stack([agreement[trained], apart[trained]]))[0, 1].item()
print(f"correlation across {len(sigma_runs)} runs: {corr:.2f}; across the {int(trained.sum())} that trained: {corr_trained:.2f}")
assert corr > 0.5
assert corr_trained < 0.2  # the correlation comes from the runs that never trained
viz.agreement_scatter(runs)

# %% [markdown]
# Across all runs the correlation is strong, as in the paper; but it comes from the runs that never
# trained (low agreement, chance accuracy). Among the runs that trained it is gone: σ = 0.5 and 1.0
# generalize as well as any while agreeing least with the sinusoid model. Our runs do not show that
# attention like the sinusoid's goes with generalization.
#
# ## Adam against SGD at small σ: one run
#
# Adam moves an entry by about the learning rate whatever the size of its gradient; SGD moves it by
# the learning rate *times* the gradient. If a position table's gradients are small next to the
# other weights' (we do not measure them here), SGD at a rate suited to the rest of the model
# barely moves the table, and its initial scale is all it has. One live run: σ = 0.1, the whole
# model under SGD with momentum 0.9 at a learning rate of 0.05, not tuned.

# %% tags=["nbval-ignore-output"]
sgd = replace(setting, optimizer="sgd", lr=0.05)
_, sgd_record = init_scale.train_one("0.1", SEED, sgd, data, progress=False)
adam_record = live["0.1", SEED][1]
for name, r in (("Adam", adam_record), ("SGD", sgd_record)):
    print(f"{name:>5}: train {r['accuracy']['train']:.3f}, kept apart {r['accuracy']['apart']:.3f}, table moved {r['moved_rms']:.3f} rms, "
          f"aligned to the grid {sum(r['alignment']['procrustes_grid']) / 4:.2f}")
assert sgd_record["moved_rms"] < adam_record["moved_rms"] / 5
assert sgd_record["moved_rms"] < 0.2 * 0.1
assert sgd_record["accuracy"]["train"] < adam_record["accuracy"]["train"] - 0.15  # SGD hardly trains

# %% [markdown]
# What this one run shows: under SGD at this rate the model hardly trains in this budget (its own
# training puzzles stay near chance, 0.25), and the σ = 0.1 table moved more than five times less
# than under Adam (the numbers above), a small fraction of its σ of 0.1. Its lower kept-apart
# accuracy is that of a run that did not train, so it says nothing about how SGD generalizes.
# What it does not show either: that the table is the reason the run did not train. The whole
# model switched optimizer, and SGD at an untuned rate is a poor optimizer for transformers in
# general (Zhang et al. 2020, arXiv 1912.03194), so the rest of the model may be what did not
# train. Telling the two apart needs a tuned SGD rate, more seeds, and the table's gradients
# measured next to the others'.

# %% [markdown]
# ## What we covered
#
# - On the Latin square task, in our short CPU runs, a model whose learned table starts small
#   (σ ≤ 0.5) solves puzzles unlike its training ones; started at σ ≥ 1.5 it does not train at all
#   (loss at ln 4). The memorization the paper describes at large σ does not appear in these runs.
# - σ is small or large next to the reach of training, roughly the sum of Adam's learning rates.
# - Procrustes alignment and the similarity–distance correlation measure how much of the grid a
#   table holds. In our runs that trained, neither the grid a table holds nor its attention's
#   agreement with the 2-D sinusoid model tracks generalization.
# - Reproducing a paper means reading its code: trained with the reference's recipe on the
#   reference's puzzles, our model matches the published held-out accuracy at σ = 0.1 (σ = 2 and the
#   sinusoid stay below theirs at this budget); puzzles that needed deeper deduction than any of
#   theirs were where our earlier models lost most.
#
# ## Exercises
#
# 1. Halve the learning rate of the live run (`replace(setting, lr=...)`): which σ changes most, and why?
# 2. Run `python -m minivit.experiments.init_scale --sigmas 0.05 3.0 --seeds 2` and extend the curve.
# 3. Give only the position tables a smaller learning rate (hint: `model.parameter_groups`); can a
#    small-σ table now behave like a large one?

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | every answer is forced by the rules, held-out puzzles are new, kept-apart ones are at Jaccard distance ≥ 0.3 from training | `assert (lst.forced(ds.cells) == ds.tensors[1] + 1).all(), name` `assert not set(data["test"].strings()) & set(train.strings())` `assert nearest.min() >= 0.3` | a label is not the forced symbol, a test puzzle repeats a training one, or a kept-apart puzzle is close to a training one |
# | a σ = 2 table is drawn at standard deviation 2 | `assert abs(ViT(setting.config("2.0")).pos.table.std().item() - 2.0) < 0.1` | the table is drawn at another scale (e.g. truncated, or a fixed std) |
# | live: σ = 0.1 beats σ = 2 on the kept-apart puzzles by more than 0.15 | `assert small > large + 0.15` | σ = 2 generalizes as well as σ = 0.1 |
# | live: the σ = 2 runs never train (chance on their training puzzles), the σ = 0.1 runs do; so the gap above is training against no training, not memorization | `assert all(never_trained(r) for (s, _), (_, r) in live.items() if s == "2.0")` `assert not any(never_trained(r) for (s, _), (_, r) in live.items() if s == "0.1")` | a σ = 2 run trains (above 0.35 on its training puzzles), or a σ = 0.1 run stays below it |
# | recorded: every σ ≤ 0.5 beats σ = 2 on kept-apart puzzles (σ = 2 never trained), the sinusoid is within 0.05 of the best, σ = 0.1 beats σ = 2 on held-out ones | `assert all(summary[e]["apart"] > summary["2.0"]["apart"] + 0.15 for e in small_sigmas)` `assert summary["sincos2d"]["apart"] >= best_small_apart - 0.05` `assert summary["0.1"]["test"] > summary["2.0"]["test"]` | a small σ falls to σ = 2's level, or the sinusoid falls behind |
# | where our sweep differs: below the paper's held-out accuracy, no run fits all its training puzzles, every σ ≥ 1.5 run and one σ = 1 run never train while no σ ≤ 0.5 run dies, one σ = 0.2 seed is still learning, σ = 0.5 generalizes best | `assert all(summary[e]["test"] < 0.95 for e in small_sigmas)` `assert all(r["accuracy"]["train"] < 1.0 for r in runs)` `assert all(r in dead for r in runs if r["encoding"] in ("1.5", "2.0"))` `assert sum(r in dead for r in runs if r["encoding"] == "1.0") == 1` `assert not any(r in dead for r in small_runs)` `assert min(r["accuracy"]["train"] for r in runs if r["encoding"] == "0.2") < 0.7` `assert summary["0.5"]["apart"] > max(summary["0.1"]["apart"], summary["0.2"]["apart"])` | the recorded runs reach the paper's accuracy, a large-σ run trains, or a small-σ run dies |
# | the wide run: the paper's width and 3× its rate; σ = 0.1 fits its training puzzles but stays near 0.89 held-out; σ = 2 trains, does not memorize, and loses to σ = 0.1 | `assert wide["setting"]["dim"] == published.dim and math.isclose(wide["setting"]["lr"], 3 * published.lr)` `assert all(r["seconds"] < 10 * 60 for r in wide["runs"])` `assert abs(wide_summary["0.1"]["test"] - 0.89) < 0.01` `assert wide_summary["0.1"]["train"] > 0.99` `assert all(s["test"] < 0.95 for s in wide_summary.values())` `assert wide_summary["0.1"]["apart"] > wide_summary["2.0"]["apart"] + 0.15` `assert wide_runs["2.0"]["final_loss"] < math.log(4) - 0.5` `assert wide_summary["2.0"]["train"] < 0.9` | the record is re-run with another width or rate, σ = 2 dies or fits its training puzzles, or σ = 0.1 reaches the paper |
# | on the reference's puzzles with its recipe, σ = 0.1 matches the paper (held-out within 0.03, human-study puzzles at least as well); σ = 2 and the sinusoid do not; small σ wins by more than 3 spreads; σ = 2 has not fit its training puzzles | `assert ref["puzzles"] == "reference" and ref["setting"]["schedule"] == "constant" and ref_summary["0.1"]["seeds"] == 3` `assert abs(ref_summary["0.1"]["test"] - init_scale.PUBLISHED["0.1"][0]) < 0.03` `assert ref_summary["0.1"]["apart"] > init_scale.PUBLISHED["0.1"][1]` `assert all(ref_summary[e]["test"] < init_scale.PUBLISHED[e][0] - 0.1 for e in ("2.0", "sincos2d"))` `assert ref_summary["0.1"]["apart"] - ref_summary["2.0"]["apart"] > 3 * spread` `assert max(r["accuracy"]["train"] for r in ref["runs"] if r["encoding"] == "2.0") < 0.5` | the record comes from other puzzles or schedule, σ = 0.1 misses the paper, or σ = 2 catches up |
# | binary and ternary puzzles take one deduction round, a sizeable share of ours quaternary ones more; the wide run fails on the quaternary ones | `assert all((by_grade[g] == 1).all() for g in ("binary", "ternary"))` `assert (by_grade["quaternary"] >= 2).float().mean() > 0.2` `assert wide_grades["quaternary"] < wide_grades["ternary"] - 0.2` | the generator makes only one-round puzzles (`max_rounds=1`), or the wide run solves quaternary puzzles as well as ternary ones |
# | a σ = 0.1 table moves more than its own size; a σ = 2 table keeps more than 95% of its draw (in runs that never trained) | `assert min(moved_small) > 0.1` `assert max(moved_large) < 0.05 * 2.0` | the small table barely moves, or the large one moves more than 0.1 |
# | σ = 0.1 tables hold a little more grid than σ = 2's, which hold no more than noise; σ = 0.5, the best generalizer, holds little grid | `assert summary["0.1"]["procrustes_grid"] > summary["2.0"]["procrustes_grid"] + 0.03` `assert abs(summary["2.0"]["procrustes_grid"] - random_score) < 0.03` `assert summary["0.1"]["structure"] > 0.1 > summary["1.5"]["structure"]` `assert summary["0.5"]["procrustes_grid"] < summary["2.0"]["procrustes_grid"] + 0.03` | the small-σ tables hold no more grid than noise, or σ = 0.5's table holds the grid clearly |
# | agreement with the sinusoid model correlates with generalization across all runs only because of the runs that never trained | `assert corr > 0.5` `assert corr_trained < 0.2` | the correlation is weak over all runs, or it holds among the runs that trained |
# | one SGD run at an untuned rate hardly trains and moves the σ = 0.1 table five times less than Adam (not attributed to the table: the whole model changed optimizer) | `assert sgd_record["moved_rms"] < adam_record["moved_rms"] / 5` `assert sgd_record["moved_rms"] < 0.2 * 0.1` `assert sgd_record["accuracy"]["train"] < adam_record["accuracy"]["train"] - 0.15` | Adam in place of SGD (the table moves as far and the run trains) |
