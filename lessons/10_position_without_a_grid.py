# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 · Position without a grid: a learned table finds which tokens belong together
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/10_position_without_a_grid.ipynb)
#
# Every encoding so far was written for a grid: a row and a column, or an offset between two
# patches. What if the tokens' true arrangement is not a grid, and nobody knows it in advance? Ito et
# al. (arXiv 2406.08272) ask this of the nodes of a simulated network. The model sees the nodes'
# activity, not the graph, so no formula of position can be written down. A learned table has to
# find the arrangement.
#
# The one result: **a learned table finds which nodes belong together. Its initial scale decides
# whether that shows in the table**: started small, the table becomes the structure; started large,
# training still adds module structure, though less of it, and the random draw hides it.
#
# **What you will learn**
# - a masked-node task where nothing but the position table says which node is which;
# - why a grid or sequence encoding cannot find the arrangement when the token order is arbitrary;
# - how to measure "the table found the modules" against a permutation null;
# - what training added to a table started small, and to one started large.
#
# The network, its sizes and parameters are the course's own (Going deeper says how), so no number
# here is comparable with the paper's. The live part trains three small models in about half a
# minute on a laptop CPU.

# %%
# Set-up: on Colab, install the course's package; elsewhere it is already installed (see README).
import sys

if "google.colab" in sys.modules:  # Colab keeps its own torch and ipywidgets (7.7 or 8)
    import subprocess

    from google.colab import output

    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "minivit @ git+https://github.com/minivit-course/minivit"],
        check=True,
    )
    output.enable_custom_widget_manager()  # widgets render whichever ipywidgets is installed

import torch

# %matplotlib inline
from minivit import analysis, lesson, viz, widgets
from minivit.data.network import module_correlations
from minivit.experiments import network as experiment
from minivit.experiments import recorded
from minivit.posenc.sinusoidal import sincos_1d
from minivit.train import default_warmup, lr_at

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## The network
#
# 32 nodes in 4 modules of 8. Node i listens to node j with probability 0.5 when they share a
# module and 0.02 when they do not; an edge weighs about 1, and each node's inputs are divided by
# the square root of how many it has. Each step every node keeps half its value and takes the other
# half from a squashed sum of its inputs, plus noise:
#
# x[t+1] = ½ x[t] + ½ tanh(W x[t]) + √½ · noise
#
# Nodes of one module push each other, so they move together. Then the nodes are **shuffled once**:
# token k is some node of some module, and its index says nothing about which.

# %% tags=["nbval-ignore-output"]
setting = experiment.SETTINGS["lesson"]
data = experiment.make_data(setting, seed=SEED)
net = data.network
print(f"{net.nodes} nodes, modules of the tokens in order: {net.modules.tolist()}")
viz.network(net.weights, net.modules, net.traces)

# %% [markdown]
# Left: who listens to whom, in the token order: no structure to see. Sorted by module, the blocks
# appear, and the traces' correlations follow them. How much more do nodes of one module move
# together than nodes of two?

# %% tags=["nbval-ignore-output"]
within, between = module_correlations(net)
print(f"mean correlation of two nodes: same module {within:.2f}, different modules {between:.2f}")
lesson.claim("nodes of one module move together more than nodes of two", within - between, ">", 0.05, about="untrained")

# %% [markdown]
# ## The task
#
# A token is a node. It carries the node's last 4 values, and a fifth channel that is 1 when the
# node is **masked**: then its values are zeros, and the model must predict its next value from the
# other nodes. 5 of the 32 nodes (16%) are masked in each example. The model is minivit's ViT
# reading a row of 32 tokens (an "image" of 1 × 32 pixels, patch size 1), with one output per token
# (`pool="tokens"`, `num_classes=1`); `fit` trains it on the mean squared error of the masked nodes.
#
# Which other nodes should a masked node's prediction come from? From its own module's. But the
# tokens arrive with nothing to say which node they are, except the position encoding: without one,
# attention cannot tell node 3 from node 17.
#
# Errors are reported as a fraction of the variance: 1 is no better than predicting the average,
# 0 is exact. Three sets: the training steps, **later** steps of the same run, and a **rerun** of
# the same network with fresh noise.

# %%
for name, ds in data.splits().items():
    print(f"{name:>6}: {ds}")
print(experiment.build(setting, "0.1", SEED, net).config)

# %% [markdown]
# ## Why a grid encoding cannot find the modules
#
# A fixed encoding is a formula of the token's index, or of the offset between two indices. Here
# the index is arbitrary, so whatever the formula knows, it knows about the wrong thing. The 1-D
# sinusoid shows it: its similarity depends on the offset of two indices alone, which would follow
# the modules if the nodes were numbered module by module, and does not after the shuffle.
#
# The measure used from here on: **within − between**, the mean cosine similarity of two tokens of
# one module minus that of two tokens of two modules. Its **null** is the same measure with the
# modules shuffled among the tokens, 1,000 times: a table that knows nothing of the modules lands
# inside it.

# %% tags=["nbval-ignore-output"]
sinusoid = sincos_1d(torch.arange(net.nodes, dtype=torch.float32), setting.dim, 10000.0)
sim = analysis.cosine_similarity(sinusoid)
offsets = torch.arange(net.nodes)[:, None] - torch.arange(net.nodes)[None, :]
spread = max(sim[offsets == d].std().item() for d in range(-net.nodes + 2, net.nodes - 1))
print(f"sinusoid: spread of similarity at one index offset {spread:.1e} (it depends on the offset alone)")
numbered = torch.arange(net.nodes) // setting.nodes_per_module  # if node k were in module k // 8
as_numbered = analysis.module_recovery(sinusoid, numbered, net.weights, permutations=1000, seed=SEED)
as_shuffled = analysis.module_recovery(sinusoid, net.modules, net.weights, permutations=1000, seed=SEED)
for name, r in (("numbered by module", as_numbered), ("shuffled (the task)", as_shuffled)):
    print(f"{name:>20}: within − between {r['within_between']:+.3f}, "
          f"null 95th pct. {r['within_between_null'][1]:.3f}, p = {r['within_between_p']:.3f}")
assert spread < 1e-5
lesson.claim("numbered by module, the sinusoid finds the modules", as_numbered["within_between"] - as_numbered["within_between_null"][1], ">", 0.1, about="untrained")
lesson.claim("shuffled, the sinusoid is not far above its null", as_shuffled["within_between_p"], ">", 0.001, about="untrained")

# %% [markdown]
# Numbered module by module, the sinusoid would score far above its null. Shuffled, it is not far
# above it. (The assert asks only for p above 0.001: a table that knows nothing has its p spread
# evenly from 0 to 1. The recorded sweep tests the sinusoid on every seed.)
# It still gives every token a vector of its own, which will matter for the error. A learned
# table has no formula: every token's vector is free, and training can put any two tokens near each
# other. Does it put the modules' members together?
#
# ## Live: a table started small against one started large
#
# Three runs on this network, alike but for the encoding: a learned table drawn N(0, σ²) with
# σ = 0.1, the same with σ = 2, and no encoding. `train_one` trains for 800 steps (about 6 s each),
# keeps the table every 100 steps, then measures the errors and the table.

# %% tags=["nbval-ignore-output"]
ARMS = ("0.1", "2.0", "none")
live = {arm: experiment.train_one(arm, SEED, setting, data, every=100) for arm in ARMS}

# %% tags=["nbval-ignore-output"]
print("               error / variance            table: within − between")
print("               train  later  rerun         value   null 95%   p      ARI   connectivity")
for arm, (_, r) in live.items():
    u = r["unexplained"]
    line = f"{experiment.label(arm):>13}  {u['train']:.3f}  {u['later']:.3f}  {u['rerun']:.3f}"
    if "recovery" in r:
        c = r["recovery"]
        line += (f"         {c['within_between']:.3f}   {c['within_between_null'][1]:.3f}     "
                 f"{c['within_between_p']:.3f}  {c['ari']:.2f}  {c['connectivity']:.2f}")
    print(line)
small, large = live["0.1"][1], live["2.0"][1]
lesson.claim("live: the σ = 0.1 table recovers the modules, above its null", small["recovery"]["within_between"] - small["recovery"]["within_between_null"][1], ">", 0.055)
lesson.claim("live: the σ = 2 table is at most 0.08 above its null's 95th percentile", large["recovery"]["within_between"] - large["recovery"]["within_between_null"][1], "<", 0.08, about="absence")
lesson.claim("live: the σ = 0.1 table recovers more than the σ = 2 table", small["recovery"]["within_between"] - large["recovery"]["within_between"], ">", 0.09)

# %% [markdown]
# The σ = 0.1 table's similarity is above its null (the value column minus the null 95% column),
# far above on most networks. The σ = 2 table's is near its null. Trained on shuffled targets, where
# there is nothing to learn, the σ = 0.1 table ends at most 0.044 above that null (the null runs of
# `lessons/CLAIMS.md`), and the weakest of 128 real runs at 0.07: on the weakest networks the
# learned structure is only a little more than what shuffled targets leave. The error columns are for this
# one network; the recorded sweep below compares five. The last two columns ask whether the table
# found the modules two more ways: **ARI** compares the table's k-means groups with the modules (1:
# the same grouping, about 0: unrelated), and **connectivity** is the rank correlation between two
# tokens' similarity and how strongly they are connected.
#
# ## The reveal
#
# The σ = 0.1 table's similarity, first in the token order the model saw, then with the tokens
# sorted by their true module:

# %% tags=["nbval-ignore-output"]
trained = experiment.table(live["0.1"][0])
sim = analysis.cosine_similarity(trained)
same = net.modules[:, None] == net.modules[None, :]
off_diagonal = ~torch.eye(net.nodes, dtype=torch.bool)
for k in range(setting.modules):
    inside = same & off_diagonal & (net.modules[:, None] == k)
    print(f"module {k}: mean similarity of its tokens {sim[inside].mean():+.2f}")
print(f"two tokens of two modules: {sim[~same].mean():+.2f}")
viz.module_similarity(trained, net.modules, title="σ = 0.1, trained")

# %% [markdown]
# In the token order it looks like noise. Sorted, blocks appear on the diagonal, though not for every
# module. Some modules' tokens are clearly more alike than two tokens of two modules; others only
# faintly (another `MINIVIT_SEED` draws another network). Nothing told the model which nodes belong
# together: the table learned it from which nodes help predict which.
#
# ## Try it: σ and training step
#
# The same two panels for either table, at every 100th training step. Both tables move by about the
# same amount (printed below, against Adam's *reach*: roughly how far an entry can go in the run).
# For the σ = 0.1 table that is more than half its size: it is rewritten, and the blocks appear. For
# the σ = 2 table it is under a tenth: the whole table is still mostly its random draw. That does not
# mean training wrote nothing into it. How far a table moves is mostly the optimizer's doing, not
# the task's: trained on shuffled targets, where there is nothing to learn, the σ = 0.1 table still
# moves by more than half its size and the σ = 2 table by under a tenth (the null runs of
# `lessons/CLAIMS.md`). What the move holds is the next question.

# %% tags=["nbval-ignore-output"]
snapshots = {
    experiment.label(arm): [(int(step), torch.tensor(t)) for step, t in live[arm][1]["snapshots"].items()]
    for arm in ("0.1", "2.0")
}
widgets.network_explorer(snapshots, net.modules)

# %% tags=["nbval-ignore-output"]
for name, shots in snapshots.items():
    first, last = shots[0][1], shots[-1][1]
    moved = (last - first).pow(2).mean().sqrt().item()
    print(f"{name}: moved {moved:.3f} (rms), {moved / first.pow(2).mean().sqrt().item():.2f} of its starting size")
reach = sum(lr_at(s, steps=setting.steps, lr=setting.lr, warmup=default_warmup(setting.steps))
            for s in range(setting.steps))
print(f"reach (the learning rate summed over the run): {reach:.2f}")
lesson.claim("both tables move by less than a quarter of the reach", {arm: live[arm][1]["moved_rms"] for arm in ("0.1", "2.0")}, "<", reach / 4, about="training")
moved_small = live["0.1"][1]["moved_rms"] / 0.1
moved_large = live["2.0"][1]["moved_rms"] / 2.0
print(f"σ = 0.1 moved {live['0.1'][1]['moved_rms'] / live['2.0'][1]['moved_rms']:.2f} times as far as σ = 2")
lesson.claim("the σ = 0.1 table moves more than 2/3 as far as the σ = 2 table", live["0.1"][1]["moved_rms"] / live["2.0"][1]["moved_rms"], ">", 2 / 3, about="training")  # about the same distance
lesson.claim("the σ = 0.1 table moves less than 1.5 times as far as the σ = 2 table", live["0.1"][1]["moved_rms"] / live["2.0"][1]["moved_rms"], "<", 1.5, about="training")
lesson.claim("the σ = 0.1 table moves by more than half its size", moved_small, ">", 0.5, about="training")
lesson.claim("the σ = 2 table moves by less than a tenth of its size", moved_large, "<", 0.1, about="training")

# %% [markdown]
# ## What training added
#
# Lesson 07 split a trained table in two: the random draw it started from, and what training
# added to it, Δ = end − start. The live runs kept their start (step 0), so Δ is one subtraction.
# We score Δ as we scored the table: within − between, against the same null of shuffled modules.

# %% tags=["nbval-ignore-output"]
added = {}
for arm in ("0.1", "2.0"):
    shots = snapshots[experiment.label(arm)]
    start, end = shots[0][1], shots[-1][1]
    u = live[arm][1]["update_recovery"]  # within − between of end − start, and its null
    added[arm] = {"delta": end - start, "margin": u["within_between"] - u["within_between_null"][1],
                  "draw_over_delta": (start.norm() / (end - start).norm()).item()}
    print(f"{experiment.label(arm)}, what training added: within − between {u['within_between']:+.3f}, "
          f"null 95th pct. {u['within_between_null'][1]:.3f}; the draw is {added[arm]['draw_over_delta']:.1f} times its size")
lesson.claim("live: what training added to the σ = 2 table groups the modules, above its null", added["2.0"]["margin"], ">", 0.05)
lesson.claim("live: the σ = 2 draw is more than ten times what training added", added["2.0"]["draw_over_delta"], ">", 10, about="training")
viz.module_similarity(added["2.0"]["delta"], net.modules, title="σ = 2, what training added")

# %% [markdown]
# What training added to the σ = 2 table groups the modules too. Sorted, its blocks sit on the
# diagonal, and its within − between is well above its null. The update is about as large as σ =
# 0.1's. But the draw under it is more than ten times larger, and the whole table's similarity is
# the draw's. So here σ decides whether the learned structure **shows in the table**, not whether
# it is learned at all (from σ = 0.1 up, less is learned as σ grows: see below).
#
# Lesson 07 found something else on its Latin squares: no test there detected a layout in what
# training added to σ = 2's tables. Here a large start hides what was learned. The set-ups differ in
# more than the task (lesson 07: post-LayerNorm blocks, PyTorch's init, four tables at a third of the
# rate; here one table at the full rate), and any of these may play a part. The recorded sweep
# checks the finding on five networks and every σ.

# %% [markdown]
# ## The recorded sweep
#
# Three runs on one network say little. `python -m minivit.experiments.network` runs
# every σ in {0.02, 0.1, 0.5, 1, 2}, on five networks (seeds), with longer runs than the live one.
# Beside them: the 1-D sinusoid over the shuffled index, no encoding, and a fixed one-hot code of
# each node's module (the upper bound: a table that *is* the answer).

# %%
sweep = recorded("network.json")
print({k: sweep["provenance"][k] for k in ("command", "date", "hardware")}, sweep["setting"], sep="\n")
summary, runs = sweep["summary"], sweep["runs"]
labels = {arm: experiment.label(arm) for arm in summary}
viz.network_sweep(summary, runs, labels)

# %%
print("               error / variance (mean of seeds)     within − between (null mean)   ARI    above null 95%")
print("               train  later  rerun")
for arm, s in summary.items():
    line = f"{labels[arm]:>13}  {s['unexplained_train']:.3f}  {s['unexplained_later']:.3f}  {s['unexplained_rerun']:.3f}"
    if "ari" in s:
        line += (f"          {s['within_between']:+.3f} ({s['within_between_null']:+.3f})"
                 f"               {s['ari']:+.2f}   {s['within_between_above_null']}/{s['seeds']}")
    print(line)
by = {(r["arm"], r["seed"]): r for r in runs}
seeds = sorted({r["seed"] for r in runs})

# %% [markdown]
# What the sweep shows, checked seed by seed under *Going deeper*:
#
# - Every table started at σ = 0.02 or 0.1 recovers the modules on every network, far above its null.
# - Every whole σ = 2 table is at most 0.01 above its null's 95th percentile, and below it on most
#   networks.
# - The mean within − between falls with every step up in σ. The ARI does not: σ = 0.02's k-means
#   groups match the modules less well than σ = 0.1's (0.50 against 0.65 on average).
# - The module code recovers the modules exactly; the 1-D sinusoid is inside its null.
#
# ## What training added, on every network
#
# The recorded runs keep the end of each table, not its start. The start is drawn again from the
# run's seed and setting (`experiment.update`), and checked: end − start must give the run's
# recorded `moved_rms`, or `update` stops with an error. Then Δ is scored as in the live run.

# %%
recorded_setting = experiment.Setting(**sweep["setting"])
sigmas = [f"{float(x)}" for x in experiment.SIGMAS]
added_by = {}
for r in runs:
    if r["arm"] in sigmas:
        delta = experiment.update(recorded_setting, r)  # end − start, the start checked against the record
        modules = torch.tensor(sweep["networks"][str(r["seed"])]["modules"])
        g = experiment.grouping(delta, modules, permutations=1000, seed=r["seed"])
        start = experiment.start_table(recorded_setting, r)
        added_by[r["arm"], r["seed"]] = {**g, "margin": g["within_between"] - g["within_between_null"][1],
                                       "draw_over_delta": (start.norm() / delta.norm()).item()}
print("          within − between, lowest and highest seed     the draw over Δ (norms)")
print("            whole table      what training added")
for arm in sigmas:
    whole = [by[arm, s]["recovery"]["within_between"] for s in seeds]
    added_ = [added_by[arm, s]["within_between"] for s in seeds]
    ratio = [added_by[arm, s]["draw_over_delta"] for s in seeds]
    print(f"{labels[arm]:>9}   {min(whole):+.2f} to {max(whole):+.2f}    {min(added_):+.2f} to {max(added_):+.2f}"
          f"          {min(ratio):4.1f} to {max(ratio):4.1f}")
lesson.claim("recorded: what training added groups the modules, every σ and seed", {f"σ = {a}, seed {s}": added_by[a, s]["margin"] for a in sigmas for s in seeds}, ">", 0.05)
lesson.claim("recorded: the σ = 2 draw is more than ten times what training added", {f"seed {s}": added_by["2.0", s]["draw_over_delta"] for s in seeds}, ">", 10)
lesson.claim("recorded: the σ = 0.1 draw is less than twice what training added", {f"seed {s}": added_by["0.1", s]["draw_over_delta"] for s in seeds}, "<", 2)
lesson.claim("recorded: σ = 0.1's update groups the modules more than σ = 2's", {f"seed {s}": added_by["0.1", s]["within_between"] - added_by["2.0", s]["within_between"] for s in seeds}, ">", 0.15)
moved_ratio = {f"seed {s}": by["0.1", s]["moved_rms"] / by["2.0", s]["moved_rms"] for s in seeds}
print("σ = 0.1's update over σ = 2's (rms), per seed:", {k: round(v, 2) for k, v in moved_ratio.items()})
lesson.claim("recorded: σ = 0.1's update more than 2/3 as large as σ = 2's", moved_ratio, ">", 2 / 3)
lesson.claim("recorded: σ = 0.1's update less than 1.5 times as large as σ = 2's", moved_ratio, "<", 1.5)

# %% [markdown]
# On every network and at every σ, what training added groups the modules. Each update is more than
# 0.05 above its null's 95th percentile (per seed under *Going deeper*). The updates are about the
# same size at σ = 0.1 and σ = 2. What differs is the draw under them. At σ = 0.1 the draw is less
# than twice the update, and the whole table shows the modules. At σ = 2 it is more than ten times
# larger, and the whole table sits at its null.
#
# The update itself also depends on σ. σ = 0.1's groups the modules more strongly than σ = 2's, by
# more than 0.15 on every seed. A loud draw already tells every node apart, so the model may need
# less from the update (a reading, not tested here).
#
# ## What the error can and cannot tell
#
# Now the held-out error:

# %%
learned = [f"{float(x)}" for x in experiment.SIGMAS]
for split in ("later", "rerun"):
    best = min(summary[a][f"unexplained_{split}"] for a in learned)
    worst = max(summary[a][f"unexplained_{split}"] for a in learned)
    print(f"{split:>6}: learned tables {best:.3f}-{worst:.3f}, module code {summary['modules'][f'unexplained_{split}']:.3f}, "
          f"sinusoid {summary['sincos1d'][f'unexplained_{split}']:.3f}, none {summary['none'][f'unexplained_{split}']:.3f}")
gap = [by["0.1", s]["unexplained"]["later"] - by["2.0", s]["unexplained"]["later"] for s in seeds]
print("σ = 0.1 minus σ = 2, later steps, per seed:", [round(g, 3) for g in gap])
print("none minus σ = 2, later steps, per seed:", [round(by["none", s]["unexplained"]["later"] - by["2.0", s]["unexplained"]["later"], 3) for s in seeds])
lesson.claim("σ = 0.1 never predicts better than σ = 2 by more than 0.01", gap, ">", -0.01)
for split in ("train", "later"):  # σ = 0.02 is worse than σ = 2, on the training steps too
    lesson.claim(f"σ = 0.02 is worse than σ = 2 on the {split} steps", summary["0.02"][f"unexplained_{split}"] - summary["2.0"][f"unexplained_{split}"], ">", 0.03)
lesson.claim("every learned table beats no encoding by more than 0.05 on average", {a: summary["none"]["unexplained_later"] - summary[a]["unexplained_later"] for a in learned}, ">", 0.05)
lesson.claim("σ = 2 beats no encoding by more than 0.05 on every seed", {f"seed {s}": by["none", s]["unexplained"]["later"] - by["2.0", s]["unexplained"]["later"] for s in seeds}, ">", 0.05)
lesson.claim("on one seed σ = 0.1 is clearly worse", max(gap), ">", 0.04)
lesson.claim("σ = 2 matches the module code on average", abs(summary["2.0"]["unexplained_later"] - summary["modules"]["unexplained_later"]), "<", 0.01)
lesson.claim("every learned table predicts better than the sinusoid on average, by more than 0.02", {a: summary["sincos1d"]["unexplained_later"] - summary[a]["unexplained_later"] for a in learned}, ">", 0.02)
lesson.claim("the sinusoid beats no encoding by more than 0.02 on average", summary["none"]["unexplained_later"] - summary["sincos1d"]["unexplained_later"], ">", 0.02)

# %% [markdown]
# On these networks the error does **not** reward the table that found the modules. σ = 0.1 never
# predicts the later steps better than σ = 2 by more than 0.01, and on one seed it is worse by about
# 0.06; σ = 0.02 is worse on average, on the training steps as much as on the later ones. On
# average σ = 2 predicts as well as the module code itself (within 0.01). Every learned table, on
# average, beats no encoding by more than 0.05, and σ = 2 does so on every seed. The 1-D sinusoid
# lies between them (more than 0.02 behind every learned table; both asserts are on the average,
# not on each seed).
#
# What a small start buys here is a table whose own geometry reflects the network, readable without
# the rest of the model. Why a random σ = 2 table predicts as well: a reading under *Going deeper*.
#
# ## What Ito et al. claim, and what we can say
#
# The paper's abstract says, of its experiments taken together, that small-norm initialisation
# yields position tables that mirror the ground-truth positions, and better generalization. Our
# version, with our own parameters, supports the first part as a statement about the table. On every
# one of five networks a table started at σ ≤ 0.1 mirrors the modules far above chance. A whole table
# started at σ = 2 shows them at most faintly: never more than 0.055 above its null's 95th percentile,
# though above it on 47 of 128 networks (37%; the sweep's 48 runs and `benchmarks/network_live.jsonl`'s
# 80), where a table holding nothing would be above it on 5%. It does not support a stronger reading, that a large start keeps
# the model from learning the structure. What training added to the σ = 2 tables groups the modules
# on every network too, under a draw more than ten times its size. A small start is what makes the
# learned structure readable in the table alone.
#
# Our version does not support the second part at this size. Held-out error is no better for small
# σ than for large, and at σ = 0.02 it is worse. It says nothing about the paper's own simulation,
# whose settings we could not check.
#
# ## Going deeper
#
# ### The simulation, and the sweep's settings
#
# We could not check the settings of the paper's simulation, and we found no published code for it.
# This lesson builds one in the same spirit, loosely after the authors' earlier network model (Ito et
# al. 2017, *Nature Communications*). That model has communities of nodes, dense connections inside
# a community and sparse ones between, and nonlinear dynamics driven by noise; ours is a small
# discrete-time map. (Graph encodings, such as the Laplacian's eigenvectors, need the graph itself,
# which the model here never sees.) The recorded sweep trains for 2,000 steps at a learning rate of
# 1e-3, against 800 at 2e-3 live, on a longer run of each network. Its file holds the command, date
# and machine that produced it, and the sweep can be stopped and resumed.
#
# In the live run, Adam divides each step by the running size of the gradient, so an entry moves by
# about the learning rate per step, however large the table is. Summed over the run (warm-up, then a
# cosine decay), the rate gives the reach. The tables move by a small part of it (asserted under a
# quarter), presumably because their steps partly cancel.
#
# ### The sweep seed by seed
#
# The whole tables, each against its null, on every network:

# %%
small_sigmas = ("0.02", "0.1")


def margin(r):  # how far above its null's 95th percentile a table's within − between is
    return r["recovery"]["within_between"] - r["recovery"]["within_between_null"][1]


recovered = [summary[f"{float(x)}"]["within_between"] for x in experiment.SIGMAS]
print("within − between, mean of seeds, σ from small to large:", [round(v, 3) for v in recovered])
print("margin over the null's 95th pct., per seed:",
      {arm: [round(margin(by[arm, s]), 2) for s in seeds] for arm in (*small_sigmas, "2.0")})
assert len(seeds) >= 3
lesson.claim("recorded: small σ far above the null", {f"{arm}, seed {s}": margin(by[arm, s]) for arm in small_sigmas for s in seeds}, ">", 0.2)
lesson.claim("recorded: σ = 2 at most 0.01 above its null's 95th percentile", {f"seed {s}": margin(by["2.0", s]) for s in seeds}, "<", 0.01)
lesson.claim("recorded: σ = 2 below its null's 95th percentile on most seeds", sum(margin(by["2.0", s]) < 0 for s in seeds) / len(seeds), ">", 0.5)
lesson.claim("recorded: ARI above 0.4 at σ = 0.1", {f"seed {s}": by["0.1", s]["recovery"]["ari"] for s in seeds}, ">", 0.4)
lesson.claim("recorded: ARI below 0.1 at σ = 2", {f"seed {s}": by["2.0", s]["recovery"]["ari"] for s in seeds}, "<", 0.1)
assert all(by["modules", s]["recovery"]["ari"] == 1.0 for s in seeds)  # the upper bound
lesson.claim("recorded: the sinusoid below its null's 95th percentile", {f"seed {s}": margin(by["sincos1d", s]) for s in seeds}, "<", 0)  # a formula of the index: inside its null
lesson.claim("recorded: the larger σ, the less of the modules", [a - b for a, b in zip(recovered, recovered[1:])], ">", 0)
ari = {arm: [round(by[arm, s]["recovery"]["ari"], 2) for s in seeds] for arm in small_sigmas}
rose = {arm: [round(by[arm, s]["recovery"]["within_between"] - by[arm, s]["recovery_at_start"], 3) for s in seeds]
        for arm in (*small_sigmas, "2.0")}
print("ARI per seed:", ari, "\nthe whole table's within − between at the end minus at the start, per seed:", rose)
ari_margin = [by["0.02", s]["recovery"]["ari"] - by["0.02", s]["recovery"]["ari_null"][1] for s in seeds]
lesson.claim("recorded: ARI above 0.4 at σ = 0.1, rounded to two places", ari["0.1"], ">", 0.4)
lesson.claim("recorded: the mean ARI is lower at σ = 0.02 than at σ = 0.1", summary["0.1"]["ari"] - summary["0.02"]["ari"], ">", 0.05)
lesson.claim("recorded: on one σ = 0.02 seed the ARI only reaches its null's 95th percentile", min(ari_margin), "<", 0.01)
lesson.claim("recorded: small σ rose by more than 0.25 from its draw", rose["0.02"] + rose["0.1"], ">", 0.25)
lesson.claim("recorded: σ = 2 rose by less than 0.05 from its draw", rose["2.0"], "<", 0.05)

# %% [markdown]
# - Every table started at σ = 0.02 or 0.1 recovers the modules on every network: its within −
#   between similarity is more than 0.2 above the 95th percentile of its null, and rose by more
#   than 0.25 from its draw. At σ = 0.1 its k-means groups match the modules in part on every seed
#   (ARI above 0.4); at σ = 0.02 the similarity is higher on average, but on one seed its k-means
#   groups only reach the 95th percentile of a random grouping's ARI (exercise 4).
# - Every whole σ = 2 table is at or just above its null: its within − between is at most 0.01 above
#   the null's 95th percentile, and below it on four of five seeds (seed 1's is 0.01 above, in the
#   table below). Its ARI is below 0.1. Its within − between
#   rose by 0.01-0.03 from its draw, never by 0.05. (What training added to it is another matter,
#   as the main path showed.)
# - In between, the mean within − between falls with every step up in σ. The ARI does not: σ =
#   0.02's k-means groups match the modules less well than σ = 0.1's on average (0.50 against
#   0.65, in the table above). From σ = 1 to σ = 2 the step compares two values near the null
#   (0.036 and 0.013).
# - The fixed module code recovers the modules exactly, as it must; the 1-D sinusoid over the
#   shuffled index is inside its null on every seed.
#
# ### What training added, seed by seed
#
# Each update's within − between, its null's 95th percentile and its p-value (1,000 shuffles of the
# modules; 1/1001 is the smallest p they can give). Beside them, the whole table's margin: its
# within − between minus its null's 95th percentile.

# %%
print("                 what training added: within − between (null 95th pct., p)      whole table − null 95th pct.")
for arm in sigmas:
    cells = [f"{added_by[arm, s]['within_between']:.2f} ({added_by[arm, s]['within_between_null'][1]:.2f}, "
             f"{added_by[arm, s]['within_between_p']:.3f})" for s in seeds]
    print(f"{labels[arm]:>9}  " + "  ".join(cells) + "   " + " ".join(f"{margin(by[arm, s]):+.2f}" for s in seeds))
lesson.claim("recorded: every update's p-value below 0.05", {f"σ = {a}, seed {s}": added_by[a, s]["within_between_p"] for a in sigmas for s in seeds}, "<", 0.05)
added_mean = [sum(added_by[a, s]["within_between"] for s in seeds) / len(seeds) for a in sigmas[1:]]
print("what training added, within − between, mean of seeds, σ = 0.1 to 2:", [round(v, 2) for v in added_mean])
lesson.claim("recorded: from σ = 0.1 up, the larger σ, the less grouping the update adds", [a - b for a, b in zip(added_mean, added_mean[1:])], ">", 0)

# %% [markdown]
# Every update passes, with p at most about 0.01. These are 25 tests, and each still passes after
# Holm's correction for testing 25 at once (lesson 07): the three largest p, 0.004, 0.007 and 0.009,
# stay under their thresholds 0.017, 0.025 and 0.05. The weakest updates are σ = 2's: about 0.1
# above their null's 95th percentile on seeds 3 and 4, 0.2-0.25 on the other three. Across σ the pattern is one of degree. From σ = 0.1 up, the
# larger σ, the less grouping the update adds on average (printed and asserted above). The whole
# table shows it clearly only where the draw is about the update's size or smaller (σ ≤ 0.1).
#
# ### Name tags
#
# Why does σ = 2 lose nothing? Here the tokens are the *same* nodes at test time as in training. A
# random σ = 2 table is a fixed name tag for each node. Its 32 vectors are far from alike: two of
# them have a cosine similarity of about ±0.14 (random vectors at width 32: $\sqrt{2/\pi}/\sqrt{32}$
# on average, below). A cosine ignores size, so a draw at σ = 0.1 or 0.02 is as far from alike in
# direction; what σ = 2 adds is loudness, a draw far larger than what training adds to it (the
# sweep above). So attention can tell every node from every other. Through its query and key
# weights it can fit which nodes to listen to for each masked one (we do not measure where it
# listens). For that it does not need similar vectors for nodes that belong together.
#
# The sinusoid is a name tag too, but a crowded one. With base 10,000 most of its wavelengths are
# far longer than 32 tokens, so its vectors are much alike. That fits its predicting worse than any
# learned table. One more reading, not measured here: a table started very small may have to grow
# before its tags stand out next to the tokens, which would fit σ = 0.02 being worse on its own
# training steps.

# %% tags=["nbval-ignore-output"]
off_diagonal = ~torch.eye(net.nodes, dtype=torch.bool)
tags = {
    "1-D sinusoid": sincos_1d(torch.arange(net.nodes, dtype=torch.float32), setting.dim, 10000.0),
    "σ = 2 draw": 2.0 * torch.randn(net.nodes, setting.dim, generator=torch.Generator().manual_seed(SEED)),
}
alike = {name: analysis.cosine_similarity(t)[off_diagonal] for name, t in tags.items()}
for name, sims in alike.items():
    print(f"{name:>13}: cosine similarity of two tokens' vectors, mean {sims.mean():+.2f}, mean size {sims.abs().mean():.2f}, "
          f"lowest {sims.min():+.2f}")
assert alike["1-D sinusoid"].mean() > 0.5 and alike["1-D sinusoid"].min() > 0.3
lesson.claim("a σ = 2 draw's vectors are far from alike", alike["σ = 2 draw"].abs().mean(), "<", 0.25, about="untrained")

# %% [markdown]
# ## What we covered
#
# Points marked *(Going deeper)* come from the optional section; the others, from the main path.
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - A masked-node task on a modular network whose node order is shuffled: only the position encoding
#   says which token is which node.
# - A formula of the index (the 1-D sinusoid) knows nothing of the modules once the order is
#   arbitrary; numbered by module, it would.
# - A learned table started small recovers the modules (block-diagonal similarity once sorted,
#   above a permutation null; far above on most networks). A whole table started at σ = 2 shows them
#   faintly at most (above its null's 95th percentile on 37% of 128 networks, by 0.055 at most).
# - What training added (Δ = end − start) groups the modules at every σ, σ = 2 included. There it is
#   hidden by a draw more than ten times larger. Here σ decides whether the learned structure shows
#   in the table. In lesson 07 no test found a layout even in σ = 2's update.
# - Held-out error does not reward the small start here (and the smallest start is worse). One
#   reading, which this lesson does not test: a random table's distinct vectors may be name tags
#   enough for attention to learn whom to listen to *(Going deeper)*.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. (discussion) Shrink the training set: `from dataclasses import replace`, `short =
#    replace(setting, run_steps=800, train_steps=300)`, then `experiment.make_data(short, SEED)` and
#    `train_one` on it. Does the σ = 2 model now predict the later steps worse than σ = 0.1?
# 2. (discussion) Make the modules harder to see: `replace(setting, gain=0.5)` (the nodes barely
#    move together). Does the σ = 0.1 table still recover them?
# 3. (discussion) Give the σ = 2 table a larger learning rate (`experiment.train_one("2.0", SEED,
#    setting, data, position_lr_scale=20)`): can training rewrite it in 800 steps, and does it then
#    recover the modules? Compare the whole table's score (`record["recovery"]`) with its update's
#    (`record["update_recovery"]`): which of the two did the larger rate change more?
# 4. The recorded σ = 0.02 runs keep their tables (`run["table"]`) and k-means groups
#    (`run["recovery"]["clusters"]`, from the unit-length vectors). On which seed do the groups not
#    match the modules, although within − between is far above its null? `answer_10_4 = seed`. Draw that table
#    with `viz.module_similarity(torch.tensor(run["table"]),
#    torch.tensor(sweep["networks"][str(run["seed"])]["modules"]))`.

# %% tags=["exercise"]
from minivit import exercises

answer_10_4 = ...  # your code

# %% tags=["exercise"]
exercises.check("10.4", answer_10_4)

# %% [markdown]
# 5. Write `answer_10_5(similarity, modules)`: within − between for a similarity matrix [N, N] and
#    each token's module [N], the mean similarity of two different tokens of one module minus that
#    of two tokens of two modules.

# %% tags=["exercise"]
answer_10_5 = ...  # your code

# %% tags=["exercise"]
exercises.check("10.5", answer_10_5)

# %% [markdown]
# 6. The reveal sorts the tokens by module. Write `answer_10_6(modules)`: an order of the tokens
#    (indices, a tensor [N]) that lays them out module by module, so that `sim[order][:, order]`
#    shows the blocks.

# %% tags=["exercise"]
answer_10_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("10.6", answer_10_6)

# %% [markdown]
# 7. With a few tokens, a null can list every relabelling instead of 1,000 shuffles. Write
#    `answer_10_7(similarity, modules)`: the share of all relabellings of the tokens (every
#    arrangement of the same module labels) whose within − between is at least that of `modules`.
#    With 8 tokens in 2 modules of 4, what is the smallest share it can give, and why not 1/70?

# %% tags=["exercise"]
answer_10_7 = ...  # your code

# %% tags=["exercise"]
exercises.check("10.7", answer_10_7)

# %% [markdown]
# 8. Write `answer_10_8(modules, per_module, p_within, p_between)`: the share of a node's inputs that
#    come from its own module, as its expected number of inputs from its module over its expected
#    number of inputs in all (a node has no edge to itself). What is it for the lesson's network?

# %% tags=["exercise"]
answer_10_8 = ...  # your code

# %% tags=["exercise"]
exercises.check("10.8", answer_10_8)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | nodes of one module move together more than nodes of two (a property of the network `MINIVIT_SEED` draws: over network seeds 0-999 the smallest value is 0.072, the median 0.23) | `lesson.claim("nodes of one module move together more than nodes of two", within - between, ">", 0.05, about="untrained")` | a global mode hides the modules (`simulate_network(p_between=0.05, gain=2.0)`: below 0.05 apart on seeds 0-4), or they are hardly denser inside than between (`p_within=0.2, p_between=0.1`: about 0.01) |
# | the 1-D sinusoid's similarity depends on the index offset alone; numbered by module it would find the modules, shuffled it is not far above its null (its p-value is spread evenly from 0 to 1 over networks: one network in a thousand falls under the bound) | `assert spread < 1e-5` `lesson.claim("numbered by module, the sinusoid finds the modules", as_numbered["within_between"] - as_numbered["within_between_null"][1], ">", 0.1, about="untrained")` `lesson.claim("shuffled, the sinusoid is not far above its null", as_shuffled["within_between_p"], ">", 0.001, about="untrained")` | the table is not a function of the offset, or the node order is left unshuffled (p = 0.001: the last fails) |
# | live: the σ = 0.1 table recovers the modules above its null, the σ = 2 table stays near its null, and σ = 0.1 is ahead | `lesson.claim("live: the σ = 0.1 table recovers the modules, above its null", small["recovery"]["within_between"] - small["recovery"]["within_between_null"][1], ">", 0.055)` `lesson.claim("live: the σ = 2 table is at most 0.08 above its null's 95th percentile", large["recovery"]["within_between"] - large["recovery"]["within_between_null"][1], "<", 0.08, about="absence")` `lesson.claim("live: the σ = 0.1 table recovers more than the σ = 2 table", small["recovery"]["within_between"] - large["recovery"]["within_between"], ">", 0.09)` | the small table does not train (its similarity stays at its null), or the large one is rewritten (`position_lr_scale=20` on it: within − between 0.22, exercise 3). Over 128 seeds (the sweep's 48 and seeds 400-479, `benchmarks/network_live.py`): σ = 0.1 0.07 to 0.70 above its null's 95th percentile, median 0.45; σ = 2 −0.06 to 0.055, median −0.01; σ = 0.1 ahead by 0.10 to 0.73. The bound for σ = 2 catches a table that groups the modules as σ = 0.1 does, not a slight grouping. The earlier bounds (0.15, 0.03, 0.2) failed 9 of the 80 new seeds: on seven σ = 2 ended a little above its null (0.036-0.055), on seeds 451 and 473 σ = 0.1 recovered little (0.07, 0.15). Trained on shuffled targets (8 null runs), σ = 0.1 ends at most 0.044 above its null's 95th percentile and at most 0.077 ahead of σ = 2, which the bounds 0.03 and 0.05 let pass; they are now 0.055 and 0.09, between the null's largest and the real runs' smallest (0.07 and 0.10), with little room on either side |
# | both tables move by about the same amount, less than a quarter of the reach; for σ = 0.1 that is more than half its size, for σ = 2 under a tenth | `lesson.claim("both tables move by less than a quarter of the reach", {arm: live[arm][1]["moved_rms"] for arm in ("0.1", "2.0")}, "<", reach / 4, about="training")` `lesson.claim("the σ = 0.1 table moves more than 2/3 as far as the σ = 2 table", live["0.1"][1]["moved_rms"] / live["2.0"][1]["moved_rms"], ">", 2 / 3, about="training")` `lesson.claim("the σ = 0.1 table moves less than 1.5 times as far as the σ = 2 table", live["0.1"][1]["moved_rms"] / live["2.0"][1]["moved_rms"], "<", 1.5, about="training")` `lesson.claim("the σ = 0.1 table moves by more than half its size", moved_small, ">", 0.5, about="training")` `lesson.claim("the σ = 2 table moves by less than a tenth of its size", moved_large, "<", 0.1, about="training")` | one table's learning rate is scaled (`position_lr_scale`) |
# | live: what training added to the σ = 2 table (Δ = end − start) groups the modules above its null; the draw is more than ten times Δ | `lesson.claim("live: what training added to the σ = 2 table groups the modules, above its null", added["2.0"]["margin"], ">", 0.05)` `lesson.claim("live: the σ = 2 draw is more than ten times what training added", added["2.0"]["draw_over_delta"], ">", 10, about="training")` | what training adds to the σ = 2 table holds nothing of the modules (as in lesson 07, where its update held no layout), or its update outgrows the draw (`position_lr_scale=20`: the draw ratio falls below ten) |
# | recorded, every seed: σ ≤ 0.1 recovers the modules (more than 0.2 above the null's 95th percentile), the whole σ = 2 table is at most 0.01 above it and below it on most seeds; ARI above 0.4 at σ = 0.1, below 0.1 at σ = 2, at its null's 95th percentile on one σ = 0.02 seed, lower at σ = 0.02 than at σ = 0.1 on average; the module code is exact; the sinusoid below its null's 95th percentile; mean within − between falls with σ; small σ rose by more than 0.25 from its draw, σ = 2 by less than 0.05 | `assert len(seeds) >= 3` `lesson.claim("recorded: small σ far above the null", {f"{arm}, seed {s}": margin(by[arm, s]) for arm in small_sigmas for s in seeds}, ">", 0.2)` `lesson.claim("recorded: σ = 2 at most 0.01 above its null's 95th percentile", {f"seed {s}": margin(by["2.0", s]) for s in seeds}, "<", 0.01)` `lesson.claim("recorded: σ = 2 below its null's 95th percentile on most seeds", sum(margin(by["2.0", s]) < 0 for s in seeds) / len(seeds), ">", 0.5)` `lesson.claim("recorded: ARI above 0.4 at σ = 0.1", {f"seed {s}": by["0.1", s]["recovery"]["ari"] for s in seeds}, ">", 0.4)` `lesson.claim("recorded: ARI below 0.1 at σ = 2", {f"seed {s}": by["2.0", s]["recovery"]["ari"] for s in seeds}, "<", 0.1)` `assert all(by["modules", s]["recovery"]["ari"] == 1.0 for s in seeds)` `lesson.claim("recorded: the sinusoid below its null's 95th percentile", {f"seed {s}": margin(by["sincos1d", s]) for s in seeds}, "<", 0)` `lesson.claim("recorded: the larger σ, the less of the modules", [a - b for a, b in zip(recovered, recovered[1:])], ">", 0)` `lesson.claim("recorded: ARI above 0.4 at σ = 0.1, rounded to two places", ari["0.1"], ">", 0.4)` `lesson.claim("recorded: the mean ARI is lower at σ = 0.02 than at σ = 0.1", summary["0.1"]["ari"] - summary["0.02"]["ari"], ">", 0.05)` `lesson.claim("recorded: on one σ = 0.02 seed the ARI only reaches its null's 95th percentile", min(ari_margin), "<", 0.01)` `lesson.claim("recorded: small σ rose by more than 0.25 from its draw", rose["0.02"] + rose["0.1"], ">", 0.25)` `lesson.claim("recorded: σ = 2 rose by less than 0.05 from its draw", rose["2.0"], "<", 0.05)` | the sweep is recorded with a learning rate that rewrites a σ = 2 table, without shuffling the nodes (the sinusoid's fails), or with runs that did not train (small σ stays at its null) |
# | recorded, every σ and seed: what training added (the start drawn again and checked against `moved_rms`) groups the modules more than 0.05 above its null's 95th percentile, p below 0.05; the σ = 2 draw is more than ten times Δ, the σ = 0.1 draw less than twice; σ = 0.1's Δ groups more than σ = 2's by more than 0.15 and is between 2/3 and 1.5 times its size; from σ = 0.1 up, the mean grouping of Δ falls with σ | `lesson.claim("recorded: what training added groups the modules, every σ and seed", {f"σ = {a}, seed {s}": added_by[a, s]["margin"] for a in sigmas for s in seeds}, ">", 0.05)` `lesson.claim("recorded: the σ = 2 draw is more than ten times what training added", {f"seed {s}": added_by["2.0", s]["draw_over_delta"] for s in seeds}, ">", 10)` `lesson.claim("recorded: the σ = 0.1 draw is less than twice what training added", {f"seed {s}": added_by["0.1", s]["draw_over_delta"] for s in seeds}, "<", 2)` `lesson.claim("recorded: σ = 0.1's update groups the modules more than σ = 2's", {f"seed {s}": added_by["0.1", s]["within_between"] - added_by["2.0", s]["within_between"] for s in seeds}, ">", 0.15)` `lesson.claim("recorded: σ = 0.1's update more than 2/3 as large as σ = 2's", moved_ratio, ">", 2 / 3)` `lesson.claim("recorded: σ = 0.1's update less than 1.5 times as large as σ = 2's", moved_ratio, "<", 1.5)` `lesson.claim("recorded: every update's p-value below 0.05", {f"σ = {a}, seed {s}": added_by[a, s]["within_between_p"] for a in sigmas for s in seeds}, "<", 0.05)` `lesson.claim("recorded: from σ = 0.1 up, the larger σ, the less grouping the update adds", [a - b for a, b in zip(added_mean, added_mean[1:])], ">", 0)` | the model's initialisation changes after the sweep was recorded (`experiment.update` stops: record the sweep again), a sweep whose σ = 2 updates hold nothing of the modules (as in lesson 07), or one where a large table's rate is scaled so that its update outgrows the draw |
# | recorded: held-out error does not reward σ = 0.1 over σ = 2 (never better by more than 0.01, worse by more than 0.04 on one seed); σ = 0.02 is worse than σ = 2 on training and later steps; σ = 2 matches the module code on average (within 0.01); learned tables beat no encoding by more than 0.05, σ = 2 on every seed; the sinusoid lies between on average | `lesson.claim("σ = 0.1 never predicts better than σ = 2 by more than 0.01", gap, ">", -0.01)` `lesson.claim("on one seed σ = 0.1 is clearly worse", max(gap), ">", 0.04)` `lesson.claim(f"σ = 0.02 is worse than σ = 2 on the {split} steps", summary["0.02"][f"unexplained_{split}"] - summary["2.0"][f"unexplained_{split}"], ">", 0.03)` `lesson.claim("σ = 2 matches the module code on average", abs(summary["2.0"]["unexplained_later"] - summary["modules"]["unexplained_later"]), "<", 0.01)` `lesson.claim("every learned table beats no encoding by more than 0.05 on average", {a: summary["none"]["unexplained_later"] - summary[a]["unexplained_later"] for a in learned}, ">", 0.05)` `lesson.claim("σ = 2 beats no encoding by more than 0.05 on every seed", {f"seed {s}": by["none", s]["unexplained"]["later"] - by["2.0", s]["unexplained"]["later"] for s in seeds}, ">", 0.05)` `lesson.claim("every learned table predicts better than the sinusoid on average, by more than 0.02", {a: summary["sincos1d"]["unexplained_later"] - summary[a]["unexplained_later"] for a in learned}, ">", 0.02)` `lesson.claim("the sinusoid beats no encoding by more than 0.02 on average", summary["none"]["unexplained_later"] - summary["sincos1d"]["unexplained_later"], ">", 0.02)` | σ = 0.1 predicts better than σ = 2 by more than 0.01 on some seed (a setting where name tags are not enough), a small table that has grown by the end of training (σ = 0.02 no longer worse), or a run that never trained (its error near 1) |
# | a σ = 2 draw's vectors are far from alike (mean \|cos\| near 0.14); the sinusoid's are much alike at width 32 | `assert alike["1-D sinusoid"].mean() > 0.5 and alike["1-D sinusoid"].min() > 0.3` `lesson.claim("a σ = 2 draw's vectors are far from alike", alike["σ = 2 draw"].abs().mean(), "<", 0.25, about="untrained")` | the sinusoid's base is made small enough for its wavelengths to fit the 32 tokens (base 32: mean 0.23, lowest −0.17), or the σ = 2 draw is replaced by the sinusoid (mean \|cos\| above 0.5) |
