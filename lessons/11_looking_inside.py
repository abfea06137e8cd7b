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
# # 11 · Looking inside: which part of attention carries position
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/11_looking_inside.ipynb)
#
# The earlier lessons explained each encoding by its formula. This one opens up eight trained
# models, one per encoding, and *measures* where position sits inside them. The one result: **an
# added encoding puts position in the tokens, so a score depends on where two patches are; RoPE,
# relative bias and ALiBi put it in the score itself, and there it depends on the offset alone.**
# The same measurements work on any ViT of your own (`minivit.analysis`).
#
# **What you will learn**
# - how an attention score splits into content and position terms, and how much each carries;
# - the offset-only test: one content vector at every patch, and does the score depend on the offset alone?
# - the direction test: does a head score an offset and its opposite alike?
#
# Going deeper: linear probes that read position out of the tokens, how PEG gets position from a
# convolution's zero padding, how position leaks into RoPE models, and how far each head looks.
# Runs top to bottom in about a minute and a half on 2 CPU cores (most of it training).

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
from minivit import ViT, ViTConfig, analysis, lesson, viz, widgets
from minivit.data import make_task
from minivit.evaluate import evaluate
from minivit.posenc import alibi_slopes, sincos_2d
from minivit.train import fit

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## Eight models, one task
#
# The `where` task on a 4×4 layout: one shape in one of 16 cells, and the answer is the cell. With
# 8-pixel patches each cell is exactly one patch. So a patch's pixels say nothing about where it is,
# and whatever a model knows about position comes from its encoding. We train a tiny ViT (width 32,
# 2 blocks, 8 heads, mean pooling) with each of the eight encodings for 500 steps.

# %% tags=["nbval-ignore-output"]
ENCODINGS = ["none", "learned", "sincos2d", "relative", "rope-axial", "rope-mixed", "alibi2d", "peg"]
train = make_task("where", 4096, cells=4, seed=SEED)
test = make_task("where", 2000, cells=4, seed=SEED + 1)
config = ViTConfig(image_size=32, patch_size=8, num_classes=16, dim=32, depth=2, heads=8)
grid = config.grid  # (4, 4)
models, accuracy = {}, {}
for name in ENCODINGS:
    torch.manual_seed(SEED)
    models[name] = ViT(config.with_(position=name))
    fit(models[name], train, steps=500, batch_size=64, lr=3e-3, desc=name, seed=SEED)
    accuracy[name] = evaluate(models[name], test)
print("held-out accuracy (chance 1/16 = 0.06):", {name: round(a, 2) for name, a in accuracy.items()})

# %%
chance = 1 / 16
four = ["sincos2d", "rope-axial", "rope-mixed", "peg"]  # learned: slower; relative: some seeds only
lesson.claim("without position every cell looks alike", accuracy["none"], "<", chance + 0.04, about="absence")
lesson.claim("four of the others solve the task", {name: accuracy[name] for name in four}, ">", 0.75)
lesson.claim("the learned table is far above chance", accuracy["learned"], ">", 0.5)
lesson.claim("alibi2d at most 3/16", accuracy["alibi2d"], "<", 3 / 16 + 0.03, about="absence")
print("at chance:", [name for name in ("none",) if accuracy[name] < chance + 0.04])
print("solve it (above 0.75):", [name for name in four if accuracy[name] > 0.75])
print("at most 3/16:", [name for name in ("alibi2d",) if accuracy[name] < 3 / 16 + 0.03])

# %% [markdown]
# ## Look first
#
# Pick an encoding, a block, a head and a query patch. Left: the head's attention from the query on
# a held-out image. Middle: its scores when the query's content is put at *every* patch, so only
# position differs. Right: those scores averaged by offset, with the fraction the offset does not
# explain. Move the query: for RoPE and ALiBi the middle map moves with it unchanged (up to the
# border); for `learned` it changes shape. For `peg`, choose block 1. The rest of the lesson
# measures what this shows.

# %% tags=["nbval-ignore-output"]
widgets.inside_explorer(models, test.images[:8], encoding="rope-axial")

# %% [markdown]
# `none` cannot beat chance: moving the shape to another cell only moves a patch (lesson 00).
# ALiBi-2D cannot beat 3/16. Its bias depends on the distance between two patches, which a mirror or
# a turn of the grid keeps. So with mean pooling it gives the same answer for a scene and its mirror
# image (lesson 06). It cannot tell the 4 corners apart, nor the 8 edge cells, nor the 4 centre
# cells. At best it is right (4·¼ + 8·⅛ + 4·¼)/16 = 3/16 of the time, on average over scenes. A test
# set of 2,000 scenes can land a little above it (up to 0.199 in the sweep), so the claim allows
# 3/16 + 0.03. In 500 steps it sometimes gets close to that and sometimes learns nothing. The two
# properties of ALiBi measured below hold for any weights, so they hold for this model too.
#
# The learned table is slower: it starts as small random vectors and must learn every position
# (lesson 03). In 500 steps it is far above chance (asserted: above 0.5); whether it also solves
# the task depends on the seed.
#
# The relative-bias model can take one of two routes (runs with other seeds have taken both): it
# solves the task like the four others (its accuracy is printed above), or it stays near chance for
# all 500 steps. So we make no claim about its accuracy. Its offset-only test below holds for any
# bias table, so it holds on either route.
#
# How far each model gets in 500 steps varies with the seed. Apart from `none`, `peg` is the only
# model with no position anywhere in block 0: its convolution acts after the first block, as in Chu
# et al. (2021).

# %% [markdown]
# ## Where position enters a score
#
# A head scores query $i$ against key $j$ with $s_{ij} = q_i \cdot k_j / \sqrt{d} + b_{ij}$. Position
# can enter at three places (lessons 02–06):
#
# - added to the tokens before $q$ and $k$ are made (`learned`, `sincos2d`, `peg`);
# - as a rotation of $q$ and $k$ (RoPE);
# - as a bias $b_{ij}$ (`relative`, `alibi2d`).
#
# For an additive encoding the token is content plus position, $x_i = c_i + e_i$. So the score
# splits into four terms (Ke et al. 2021, arXiv 2006.15595):
#
# $$s_{ij} = \underbrace{q(c_i)\cdot k(c_j)}_{\text{content·content}} + \underbrace{q(c_i)\cdot k(e_j)}_{\text{content·position}}
#  + \underbrace{q(e_i)\cdot k(c_j)}_{\text{position·content}} + \underbrace{q(e_i)\cdot k(e_j)}_{\text{position·position}} \quad(\text{each} / \sqrt d).$$
#
# (A pre-LN block's LayerNorm is linear once its per-token scale is fixed, and the projections' and
# LayerNorm's biases count in the content terms.) `analysis.logit_terms` makes the split from the
# model's own weights. It gives each term's share of the spread over the keys: how much the term
# varies from key to key (what the softmax sees), over the same for all four terms. Terms can
# cancel, so a share compares the terms' sizes; it does not split the score's own spread. We check
# that the terms add up to the block's logits. Then we look at block 0 of the two additive models on
# 200 held-out images, trained and, beside them, untrained copies.

# %% tags=["nbval-ignore-output"]
images = test.images[:200]
measured = {**models}
for name in ("learned", "sincos2d"):
    torch.manual_seed(SEED)
    measured[name + " untrained"] = ViT(config.with_(position=name))  # the start the trained one had
shares, position_share, cross_share = {}, {}, {}
for name in ("learned", "learned untrained", "sincos2d", "sincos2d untrained", "none"):
    terms = analysis.logit_terms(measured[name], images, layer=0)
    total = sum(terms[t] for t in analysis.TERMS)
    torch.testing.assert_close(total, analysis.attention_logits(measured[name], images)[0], atol=1e-4, rtol=1e-4)
    s = {t: v for t, v in terms["shares"].items() if t != "bias"}  # no attention bias in these models
    shares[name] = s
    position_share[name] = (1 - s["content_content"]).mean().item()  # mean over heads
    cross_share[name] = (s["content_position"] + s["position_content"]).mean().item()
    print(f"{name:>18}:", ", ".join(f"{t} {v.mean():.2f}" for t, v in s.items()))
ADDITIVE = ["learned", "learned untrained", "sincos2d", "sincos2d untrained"]
assert position_share["none"] == 0  # the control: no position, all content·content
lesson.claim("position terms carry most of the spread in the additive models", {name: position_share[name] for name in ADDITIVE}, ">", 0.5, about="untrained")
lesson.claim("mixed terms carry a part of the spread in the additive models", {name: cross_share[name] for name in ADDITIVE}, ">", 0.1, about="untrained")
viz.term_shares({name: shares[name] for name in ("learned", "sincos2d")})

# %% [markdown]
# In both models the terms with position in them make up most of the four terms' spread in block 0.
# So it was before training too: in the untrained copies the position terms also carry most of it,
# and the mixed terms a part. Part of that is probably the task (exercise 3 asks how much): 15 of
# the 16 patches are black, so content hardly differs between keys. The mixed terms
# (content·position, position·content) carry a sizeable share. Ke et al. argued that they mix two
# unrelated kinds of information, and removed them (TUPE). The figure gives the trained models'
# shares head by head: they differ from head to head.

# %% [markdown]
# ## Offset only? The same content at every position
#
# To see what position alone does to a score, take content out. Put one content vector $c$ at every
# patch, let the encoding do what it does, and score (`analysis.same_content_scores`). Whatever
# $s_{ij}$ now does across the grid comes from position. If it depends on the offset
# $(r_i - r_j, c_i - c_j)$ alone, all pairs at one offset score the same.
# `analysis.offset_dependence` measures the variance left *within* offsets, as a fraction of the
# total. **0 means offset-only**; 1 means the offset explains nothing:
#
# $$\text{fraction} = \frac{\operatorname{mean}_{ij}\,\big(s_{ij} - \bar s_{\text{offset}(i,j)}\big)^2}{\operatorname{var}_{ij}\, s_{ij}} .$$
#
# The printout below labels this fraction *not by offset*: "not by offset 0" means offset-only.
#
# What to expect:
#
# - RoPE: $R_i q \cdot R_j k = q \cdot R_{j-i} k$, a function of the offset by construction.
# - ALiBi and relative bias: $q\cdot k$ is the same for every pair, plus a bias indexed by the offset.
# - Additive encodings: $q(c + e_i)\cdot k(c + e_j)$ depends on $e_i$ and $e_j$ each. Nothing forces
#   it to depend on their offset only.
#
# As content we take what the shape patch of 8 held-out images brings to each block. The direction
# test comes next; one figure after it draws both.

# %% tags=["nbval-ignore-output"]
shown, cells = test.images[:8], test.labels[:8]  # the label is the shape's cell, which is its patch
offset_test, asymmetry = {}, {}
for name in ENCODINGS:
    content = analysis.block_tokens(models[name], shown)["content"]  # per block: [8, N, D]
    for layer in range(config.depth):
        scores = analysis.same_content_scores(models[name], content[layer][torch.arange(8), cells], layer)
        offset_test[name, layer] = analysis.offset_dependence(scores, grid)  # each [8 contents, H]
        asymmetry[name, layer] = analysis.direction_asymmetry(scores, grid)
for name in ENCODINGS:
    said = []
    for layer in range(config.depth):
        d = offset_test[name, layer]
        said.append(f"block {layer}: " + (f"not by offset {d['fraction'].mean():.2g}" if d["varies"].any() else "flat"))
    print(f"{name:>10}:", "   ".join(said))

# %%
OFFSET_ONLY = ["relative", "rope-axial", "rope-mixed", "alibi2d"]
for name in OFFSET_ONLY:
    for layer in range(config.depth):
        d = offset_test[name, layer]
        assert d["varies"].all() and d["fraction"].max() < 1e-9, (name, layer, d["fraction"].max())
lesson.claim("learned and sincos2d (block 0) do not score by offset only", {name: offset_test[name, 0]["fraction"].mean() for name in ("learned", "sincos2d")}, ">", 0.3, about="untrained")
lesson.claim("peg (block 1) does not score by offset only", offset_test["peg", 1]["fraction"].mean(), ">", 0.3, about="untrained")
assert not offset_test["none", 0]["varies"].any() and not offset_test["none", 1]["varies"].any()
print("offset only, to float rounding (every block):", OFFSET_ONLY)
print("not offset only (over 0.3):", [f"{name} (block {layer})" for name, layer in (("learned", 0), ("sincos2d", 0), ("peg", 1)) if offset_test[name, layer]["fraction"].mean() > 0.3])

# %% [markdown]
# For `relative`, both RoPEs and `alibi2d`, every head's score varies across the grid. What is
# left within an offset is zero, or float rounding (about $10^{-14}$ of the variance). For `learned`
# and `sincos2d` in block 0, a large part of the variance is *not* explained by the offset: the same
# two patches moved together score differently. In block 1 their scores are flat. The encoding was
# added once, before block 0, and from then on position travels inside the tokens, which this test
# replaces by one vector. `peg` acts before block 1, and its scores there depend on where the patches
# are: a convolution with zero padding treats border patches differently (Going deeper). `none` is
# flat everywhere.

# %% [markdown]
# ## Which way round? The direction test
#
# Take $T(d)$, the mean same-content score at offset $d$. Does a head score the key to the right of
# the query as it scores the key to the left: is $T(d) = T(-d)$? `analysis.direction_asymmetry` is
# the share of $T$'s variance in its part that is odd in $d$. It is 0 when symmetric and 1 when
# $T(d) = -T(-d)$.
#
# - ALiBi's $-m\lVert d\rVert$ is symmetric by construction.
# - RoPE's $q \cdot R_d\, k$ has a sine part, odd in $d$, unless $q$ and $k$ are parallel in every
#   rotation plane.
# - Any table's dot products $e_i \cdot e_j$ are symmetric: swapping $i$ and $j$ turns $d$ into
#   $-d$. What the 2-D sinusoid adds is that $e_i \cdot e_j$ depends on the offset alone (a sum of
#   cosines, lesson 02); a random table's does not. But a model scores $W_q e_i \cdot W_k e_j$,
#   which is symmetric only if $W_q^\top W_k$ is.

# %% tags=["nbval-ignore-output"]
pe = sincos_2d(grid, config.dim)
table = torch.randn(grid[0] * grid[1], config.dim, generator=torch.Generator().manual_seed(SEED))  # a random table
pe_by_offset = analysis.offset_dependence(pe @ pe.T, grid)["fraction"].item()
table_by_offset = analysis.offset_dependence(table @ table.T, grid)["fraction"].item()
print(f"PE·PE: asymmetry {analysis.direction_asymmetry(pe @ pe.T, grid):.1e}, not by offset {pe_by_offset:.1e}")
print(f"random table: asymmetry {analysis.direction_asymmetry(table @ table.T, grid):.1e}, not by offset {table_by_offset:.2f}")
for name in ("alibi2d", "rope-axial", "rope-mixed", "relative", "learned", "sincos2d"):
    print(f"{name:>10}: block 0 asymmetry {asymmetry[name, 0].mean():.2f} (mean over heads and contents)")
assert analysis.direction_asymmetry(pe @ pe.T, grid) < 1e-12  # as for any table's dot products
assert pe_by_offset < 1e-9  # what is the sinusoid's own: offset only
lesson.claim("a random table's dot products do not depend on the offset alone", table_by_offset, ">", 0.1, about="untrained")
assert max(asymmetry["alibi2d", layer].max() for layer in range(config.depth)) < 1e-12
lesson.claim("RoPE, relative bias, learned and sincos2d models are not symmetric in the offset", {name: asymmetry[name, 0].mean() for name in ("rope-axial", "rope-mixed", "relative", "learned", "sincos2d")}, ">", 0.2, about="training")
fraction = torch.tensor([[offset_test[n, b]["fraction"].mean() for b in range(config.depth)] for n in ENCODINGS])
varies = torch.tensor([[bool(offset_test[n, b]["varies"].any()) for b in range(config.depth)] for n in ENCODINGS])
odd = torch.tensor([[asymmetry[n, b].mean() for b in range(config.depth)] for n in ENCODINGS])
viz.score_tests(fraction, odd, ENCODINGS, varies)

# %% [markdown]
# ALiBi-2D is exactly symmetric: it cannot tell left from right. That is why it cannot solve
# lesson 06's relation task. It cannot tell a cell from its mirror image either, since its bias
# depends on the length of the offset alone; this test checks only the half turn $d \to -d$. The
# RoPE models, the relative bias and the learned table score an offset and its opposite differently.
# So does the `sincos2d` model, although its encoding's own dot product is symmetric. For the learned
# and `sincos2d` models, read this with the offset-only test beside it. Their scores are not
# functions of the offset (left), so "an offset and its opposite" compares averages over many pairs
# of places, not one score with another. That these models tell $d$ from $-d$ says what their
# weights allow, not what the task taught: trained on shuffled labels they do too (`lessons/CLAIMS.md`).
#
# Left: the offset-only test; right: the direction test, per encoding and block ("flat": the score
# does not vary with position at all).

# %% [markdown]
# ## What to remember
#
# - An added encoding (learned, sinusoidal) puts position in the tokens. A score then depends on
#   where the two patches are, not only on their offset.
# - RoPE, relative bias and ALiBi put position in the score, and there it depends on the offset
#   alone: exactly, for any weights.
# - ALiBi's score is also symmetric in the offset, so it cannot tell left from right; RoPE's and
#   relative bias's need not be.
# - Offset-only scores do not keep a model from learning absolute position: the RoPE models solve
#   `where`. Position leaks into their tokens; by our argument, through the grid's border (Going
#   deeper).

# %% [markdown]
# ## Going deeper
#
# ### Position in the tokens: linear probes
#
# Scores are one place to look; the tokens are another. A linear probe (Alain & Bengio 2016, arXiv
# 1610.01644) fits a linear map from each patch's token to its row and column. It is fitted on the
# tokens of 256 held-out images and scored on 256 others: how often the row (and the column) it
# reads is right, chance 1/4, and the $R^2$ of the coordinates. We probe three stages: the input of
# block 0 (after the encoding added what it adds) and the outputs of blocks 0 and 1.

# %% tags=["nbval-ignore-output"]
probe_train = make_task("where", 256, cells=4, seed=SEED + 2).images
probe_test = make_task("where", 256, cells=4, seed=SEED + 3).images
probes = {name: analysis.position_probe(models[name], probe_train, probe_test) for name in ENCODINGS}
read = {name: p["accuracy"].mean(1) for name, p in probes.items()}  # per stage, mean of row and column
for name in ENCODINGS:
    print(f"{name:>10}: row and column read right", " -> ".join(f"{a:.2f}" for a in read[name].tolist()))
base = probes["none"]["chance"].mean().item()  # 1/4
lesson.claim("a probe reads no row or column out of none", (probes["none"]["accuracy"] - base).abs().max(), "<", 0.03, about="absence")
lesson.claim("a probe reads no coordinates out of none", probes["none"]["r2"].max(), "<", 0.03, about="absence")
lesson.claim("a probe reads position out of learned and sincos2d from the start", {name: read[name][0] for name in ("learned", "sincos2d")}, ">", 0.8, about="untrained")
viz.probe_stages(probes)

# %% [markdown]
# Out of `none` the probe reads nothing at any stage: the control. Out of `learned` and
# `sincos2d` it reads position from the start, since the encoding was added to the tokens. The other
# lines start at chance, since none of those encodings adds anything before block 0. Then some of
# them rise. Two questions: where does `peg`'s position come from, and how do the relative-bias and
# RoPE models get any?

# %% [markdown]
# ### PEG: position from a convolution's zero padding
#
# The conditional positional encoding of Chu et al. (2021, arXiv 2102.10882) has no table and no
# formula of the grid. After block 0, its Position Encoding Generator lays the tokens back on their
# grid and adds a depthwise 3×3 convolution: $x + \mathrm{DWConv}(x)$. A convolution does the same
# thing everywhere, except at the border, where its zero padding puts zeros where a neighbour would
# be. Islam et al. (2020, arXiv 2001.08248) showed that CNNs learn absolute position this way. Chu et
# al. note that PEG's zero padding is what lets it know absolute position.
#
# First, a blank image: every patch has the same content. How many different tokens come out of
# each block?

# %% tags=["nbval-ignore-output"]
def distinct(tokens, tol=1e-4):
    """How many different vectors tokens [N, D] holds; two closer than tol x their mean length count as one."""
    kept = []
    for t in tokens:
        if all((t - k).norm() > tol * tokens.norm(dim=1).mean() for k in kept):
            kept.append(t)
    return len(kept)


blank = torch.zeros(1, 3, 32, 32)
counts = {name: [distinct(out[0]) for out in analysis.block_tokens(models[name], blank)["outputs"]] for name in ENCODINGS}
print("different tokens after block 0, block 1 on a blank image:", counts)
assert counts["peg"] == [1, 9]
assert all(counts[name] == [1, 1] for name in ("none", "relative", "rope-axial", "rope-mixed", "alibi2d"))
assert all(counts[name] == [16, 16] for name in ("learned", "sincos2d"))

# %% [markdown]
# On a 4×4 grid a 3×3 convolution with zero padding tells row 0, row 3 and the two inner rows
# apart (rows 1 and 2 both have neighbours above and below). The same holds for columns: 3 × 3 = 9
# kinds of patch, the 9 different tokens after block 1. Before it acts, after block 0, all 16 tokens
# are the same. The relative-bias, RoPE and ALiBi models give 1. Attention averages values, and when
# every value is the same, any weights give the same average. Their border needs content that
# differs (next section).
#
# Now the probe on `peg`, and the same model with its convolution's padding changed from zeros to
# *circular*: the grid wraps around, so no patch is at a border. Nothing else changes. With circular
# padding every part of the model does the same at every patch and to its cyclic neighbours. So
# shifting the image by one patch (what falls off the right comes in at the left) must leave the
# mean-pooled answer exactly as it was. With zero padding it need not.

# %% tags=["nbval-ignore-output"]
peg = models["peg"].eval()
shifted = torch.roll(images, shifts=config.patch_size, dims=-1)  # the whole grid one patch to the right


def shift_change(model):
    """How much the answers (logits) change when the image moves one patch around the wrap."""
    with torch.no_grad():
        return ((model(shifted) - model(images)).abs().max() / model(images).abs().max()).item()


zero_shift = shift_change(peg)
peg.pos.conv.padding_mode = "circular"  # what falls off one edge comes in at the other: no border
wrapped = analysis.position_probe(peg, probe_train, probe_test)
wrapped_accuracy = evaluate(peg, test)
wrapped_shift = shift_change(peg)
peg.pos.conv.padding_mode = "zeros"
for padding, probe, task, change in (("zero", probes["peg"], accuracy["peg"], zero_shift),
                                     ("circular", wrapped, wrapped_accuracy, wrapped_shift)):
    stages = " -> ".join(f"{a:.2f}" for a in probe["accuracy"].mean(1).tolist())
    print(f"peg, {padding:>8} padding: probe {stages} (R² after block 1: {probe['r2'][2].mean():.2f}); "
          f"task accuracy {task:.2f}; answers change by {change:.1e} when shifted one patch")
lesson.claim("a probe reads no position out of peg before the convolution acts", (probes["peg"]["accuracy"][:2] - base).abs().max(), "<", 0.03, about="absence")
lesson.claim("a probe reads row and column out of peg after its convolution", probes["peg"]["accuracy"][2].min(), ">", 0.5, about="untrained")
lesson.claim("a probe reads coordinates out of peg after its convolution", probes["peg"]["r2"][2].min(), ">", 0.4, about="untrained")
assert wrapped_shift < 1e-4  # circular: shifting changes nothing, exactly
lesson.claim("with zero padding, shifting the image changes the answers", zero_shift, ">", 0.75)
lesson.claim("with circular padding a probe reads no position out of peg", (wrapped["accuracy"] - base).abs().max(), "<", 0.06, about="absence")
lesson.claim("with circular padding peg is at chance on the task", wrapped_accuracy, "<", chance + 0.04, about="absence")

# %% [markdown]
# Before the convolution the probe reads nothing. After it, it reads the row and the column most
# of the time, close to 3/4: ¼ + ¼ + ½·½ if the 9 kinds of patch were all it had (they leave rows 1
# and 2, and columns 1 and 2, hard to tell apart). With circular padding the same trained weights
# give answers that do not change when the image is shifted around the wrap (to float rounding).
# The probe reads nothing out of the tokens, and the task is at chance: every patch then has
# neighbours on all sides, and the model treats every cell alike. PEG's absolute position *is* the
# zero padding.

# %% [markdown]
# ### Position that leaks in at the border
#
# The relative-bias and RoPE models add nothing to the tokens (the probe reads nothing at the input
# of block 0), and their scores are offset-only. Yet the RoPE models solve `where`, a task about
# absolute position (and the relative-bias model, when it leaves its plateau). For these models one position differs from another only in which offsets its keys lie
# at, and that is set by the edge of the grid. A query in a corner has keys on one side only; a
# central query has them on all sides. Were the grid to wrap around, every patch would see the same
# offsets. Each block would then commute with shifting the image, and mean pooling would give every
# cell the same answer, as the circular PEG just did (shown here for PEG only). When contents differ
# (the shape, the black patches), a softmax over a different set of offsets gives a different
# mixture. So a token's output can depend on where it is. The probe on the block outputs:

# %% tags=["nbval-ignore-output"]
for name in ("relative", "rope-axial", "rope-mixed", "alibi2d"):
    print(f"{name:>10}: row and column read right", " -> ".join(f"{a:.2f}" for a in read[name].tolist()))
lesson.claim("the offset-only models carry no position into block 0", {name: (probes[name]["accuracy"][0] - base).abs().max() for name in OFFSET_ONLY}, "<", 0.03, about="absence")  # nothing added
lesson.claim("the RoPE models carry position after a block", {name: read[name][1:].max() for name in ("rope-axial", "rope-mixed")}, ">", base + 0.15, about="training")

# %% [markdown]
# After a block or two the probe reads row and column well above chance out of both RoPE
# models: absolute position has leaked into their tokens. It leaks after training on shuffled
# labels too (`lessons/CLAIMS.md`): the leak needs weights that make attention uneven, not the task.
# That it came by the edge of the grid is the argument above, not a measurement. It is the only route these models have, and the circular
# PEG shows what closing it does to one model. The probe itself measures only that the position is
# there (and the blank image above shows that it needs differing content). The relative-bias and
# `alibi2d` models have the same route. How much the probe reads out of them varies with the seed
# (compare the printout under another `MINIVIT_SEED`), so we make no claim about them.

# %% [markdown]
# ### How far each head looks
#
# The mean attention distance of a head (Dosovitskiy et al. 2021, arXiv 2010.11929, Fig. 7) is the
# attention-weighted distance from a query patch to the keys, averaged over queries and images. On
# this 4×4 grid uniform attention gives 2.008 patches: the mean distance between two patches drawn
# independently (a patch with itself included). `analysis.mean_attention_distances` gives it per
# block and head. Two exact anchors first, on the blank image, where attention sees position only.
# `none` attends uniformly. ALiBi's head with slope $m$ attends with $\mathrm{softmax}_j(-m\,d_{ij})$,
# so its distance is $\operatorname{mean}_i \sum_j \mathrm{softmax}_j(-m\,d_{ij})\,d_{ij}$ whatever
# the weights.

# %% tags=["nbval-ignore-output"]
d = analysis.grid_distances(grid)  # (N, N) in patches
uniform = d.mean().item()
slopes = torch.tensor(alibi_slopes(config.heads))
prior = ((-slopes[:, None, None] * d).softmax(-1) * d).sum(-1).mean(-1)  # (H,)
none_blank = analysis.mean_attention_distances(models["none"], blank)  # (L, H)
alibi_blank = analysis.mean_attention_distances(models["alibi2d"], blank)
print(f"uniform: {uniform:.3f}; ALiBi on a blank image, head by head:", [round(v, 2) for v in prior.tolist()])
torch.testing.assert_close(none_blank, torch.full_like(none_blank, uniform))
torch.testing.assert_close(alibi_blank, prior.expand_as(alibi_blank))
assert (prior.diff() > 0).all() and prior.max() < uniform  # steeper slope, nearer; never farther than uniform

# %% [markdown]
# On the held-out images, content and training decide:

# %% tags=["nbval-ignore-output"]
distances = {name: analysis.mean_attention_distances(models[name], images) for name in ENCODINGS}
for name in ENCODINGS:
    print(f"{name:>10}:", "  ".join(f"block {b} {v.min():.2f}-{v.max():.2f}" for b, v in enumerate(distances[name])))
lesson.claim("a trained RoPE model has heads that look farther than uniform", max(distances[name][0].max() for name in ("rope-axial", "rope-mixed")), ">", uniform + 0.5, about="training")
viz.attention_distances(distances, uniform=uniform)

# %% [markdown]
# With content the same everywhere, ALiBi's bias alone can only pull attention nearer than
# uniform. With real content, any model's learned q·k can push it farther, an ALiBi model's too. In
# the RoPE models some block-0 heads look farther than uniform attention would, preferring far
# patches to near ones: by half a patch or more in at least one of the two (asserted for the farther
# of the two). Which heads look near or far, and how much, changes from model to model and seed to
# seed (run the lesson with `MINIVIT_SEED=1` and `2`). Training on shuffled labels gives such heads
# too (`lessons/CLAIMS.md`), so at 16 patches and 500 steps we do not read more into it.

# %% [markdown]
# ## What we covered
#
# Points marked *(Going deeper)* come from the optional section; the others, from the main path.
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - For an additive encoding a score is four terms. In these models the terms with position carry
#   most of the spread of block-0 scores over keys, the mixed ones a sizeable part; so they did
#   before training.
# - With one content vector at every patch, RoPE, ALiBi and relative bias score by the offset alone
#   (to float rounding). Learned and sinusoidal tables (and PEG) score by absolute position too.
# - ALiBi-2D scores an offset and its opposite alike; RoPE, relative bias, and the learned and
#   sinusoidal models do not (for the last two, on average over the pairs at an offset, since their
#   scores are not offset-only; trained on shuffled labels they do too). PE·PE is symmetric like any
#   table's dot products; what is the sinusoid's own is that it depends on the offset alone.
# - A linear probe reads no position out of `none`. Out of `peg` it reads position only after the
#   convolution, and with circular padding not at all: PEG's absolute position comes from zero
#   padding. The RoPE models pick up absolute position after a block, with offset-only scores (by the
#   grid's edge, the only route they have) *(Going deeper)*.
# - Mean attention distance per head: uniform for `none` on a blank image, ALiBi's slopes as a prior,
#   and trained heads that look near or far *(Going deeper)*.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. (discussion) Train `rope-axial` with `pool="cls"`. The class token is never rotated and gets no
#    bias: is its score against a patch offset-only? (Look at row 0 of `analysis.attention_logits`
#    on a blank image.) Does the probe read position out of the patches earlier?
# 2. Give `peg` `at_layer=0` (the convolution before any attention). At which stage does the probe
#    first read position, and how many different tokens does a blank image give? For the second,
#    write `answer_11_2(grid, kernel_size)`: how many different tokens a zero-padded depthwise
#    convolution of that size makes out of identical tokens on a (gh, gw) grid (with weights in
#    general position).

# %% tags=["exercise"]
from minivit import exercises

answer_11_2 = ...  # your code

# %% tags=["exercise"]
exercises.check("11.2", answer_11_2)

# %% [markdown]
# 3. (discussion) Train on `which_shape` (content only) instead. What happens to the share of the
#    position terms in the `learned` model, and to the probe?
# 4. (discussion) Make the grid larger (48 px, a 6×6 layout). Does the relative-bias and RoPE
#    models' leak grow or shrink, now that fewer patches lie on the border?
# 5. ALiBi-2D with mean pooling answers alike for a scene and for its patches moved by a mirror or a
#    turn of the grid, so on the 4×4 `where` task it is right at best 3/16 of the time. Write
#    `answer_11_5(g)`: that best accuracy on a g×g layout, the shape in every cell equally often.

# %% tags=["exercise"]
answer_11_5 = ...  # your code

# %% tags=["exercise"]
exercises.check("11.5", answer_11_5)

# %% [markdown]
# 6. Write `answer_11_6(scores, grid)`: the fraction of the variance of scores [N, N] between
#    patches that is left within offsets, the formula of the offset-only test above, by hand (not
#    with `analysis.offset_dependence`: the check refuses it). What does it
#    give for random scores, and why not 1?

# %% tags=["exercise"]
answer_11_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("11.6", answer_11_6)

# %% [markdown]
# 7. Write the mean attention distance yourself, for a model with a class token:
#    `answer_11_7(weights, grid)`, from weights [B, H, 1 + N, 1 + N] whose token 0 is the class
#    token, a tensor [H] (not with `analysis.mean_attention_distance`: the check refuses it). Each
#    patch query's weights over the patches sum to 1 once the class token is left out. Why would a
#    head that looks at the class token seem short-sighted otherwise?

# %% tags=["exercise"]
answer_11_7 = ...  # your code

# %% tags=["exercise"]
exercises.check("11.7", answer_11_7)

# %% [markdown]
# 8. Split a score into its four terms by hand: `answer_11_8(c, e, wq, wk)` takes content and
#    position [N, D] and the query and key weights [Dh, D] ($q(x) = x W_q^\top$, $k(x) = x W_k^\top$)
#    and returns a tensor [4, N, N]: content·content, content·position, position·content and
#    position·position, each divided by $\sqrt{D_h}$, row i the query. Which two terms does TUPE
#    remove?

# %% tags=["exercise"]
answer_11_8 = ...  # your code

# %% tags=["exercise"]
exercises.check("11.8", answer_11_8)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | the models trained: `none` at chance, four of the others solve the task, the learned table far above chance (it solves the task on some seeds; the relative-bias model on some seeds only: no claim), `alibi2d` at most 3/16 | `lesson.claim("without position every cell looks alike", accuracy["none"], "<", chance + 0.04, about="absence")` `lesson.claim("four of the others solve the task", {name: accuracy[name] for name in four}, ">", 0.75)` `lesson.claim("the learned table is far above chance", accuracy["learned"], ">", 0.5)` `lesson.claim("alibi2d at most 3/16", accuracy["alibi2d"], "<", 3 / 16 + 0.03, about="absence")` | a model does not train (stays at 1/16), or `none`/`alibi2d` is given an encoding that tells mirrored cells apart |
# | the four terms add up to the block's logits; position terms carry most of the spread in the additive models, trained and untrained, mixed terms a part | `torch.testing.assert_close(total, analysis.attention_logits(measured[name], images)[0], atol=1e-4, rtol=1e-4)` `assert position_share["none"] == 0` `lesson.claim("position terms carry most of the spread in the additive models", {name: position_share[name] for name in ADDITIVE}, ">", 0.5, about="untrained")` `lesson.claim("mixed terms carry a part of the spread in the additive models", {name: cross_share[name] for name in ADDITIVE}, ">", 0.1, about="untrained")` | a term is left out of the sum, or a model has no position (`none` among the additive ones: share 0) |
# | RoPE, ALiBi and relative bias score the same content by offset only; learned and sincos2d (block 0) and peg (block 1) do not | `assert d["varies"].all() and d["fraction"].max() < 1e-9, (name, layer, d["fraction"].max())` `lesson.claim("learned and sincos2d (block 0) do not score by offset only", {name: offset_test[name, 0]["fraction"].mean() for name in ("learned", "sincos2d")}, ">", 0.3, about="untrained")` `lesson.claim("peg (block 1) does not score by offset only", offset_test["peg", 1]["fraction"].mean(), ">", 0.3, about="untrained")` `assert not offset_test["none", 0]["varies"].any() and not offset_test["none", 1]["varies"].any()` | an additive model is put among the offset-only ones (fraction 0.5-0.9), or an offset-only one among the additive (fraction 0) |
# | ALiBi is symmetric in the offset; RoPE, relative bias, learned and sincos2d models are not; PE·PE is symmetric and depends on the offset alone, a random table's does not | `assert analysis.direction_asymmetry(pe @ pe.T, grid) < 1e-12` `assert pe_by_offset < 1e-9` `lesson.claim("a random table's dot products do not depend on the offset alone", table_by_offset, ">", 0.1, about="untrained")` `assert max(asymmetry["alibi2d", layer].max() for layer in range(config.depth)) < 1e-12` `lesson.claim("RoPE, relative bias, learned and sincos2d models are not symmetric in the offset", {name: asymmetry[name, 0].mean() for name in ("rope-axial", "rope-mixed", "relative", "learned", "sincos2d")}, ">", 0.2, about="training")` | `alibi2d` is swapped for a RoPE model (asymmetry 0.3-0.7), a RoPE model for `alibi2d` (0), or the sinusoid for a random table (not by offset about 0.3); the first assert cannot fail for a table's dot products and is there as the contrast |
# | a probe reads no position out of `none`, and reads it out of learned and sincos2d from the start | `lesson.claim("a probe reads no row or column out of none", (probes["none"]["accuracy"] - base).abs().max(), "<", 0.03, about="absence")` `lesson.claim("a probe reads no coordinates out of none", probes["none"]["r2"].max(), "<", 0.03, about="absence")` `lesson.claim("a probe reads position out of learned and sincos2d from the start", {name: read[name][0] for name in ("learned", "sincos2d")}, ">", 0.8, about="untrained")` | `none` is swapped for a model with position (peg: 0.7 after block 1) |
# | on a blank image PEG's zero padding makes 9 kinds of token; attention-only encodings make 1 | `assert counts["peg"] == [1, 9]` `assert all(counts[name] == [1, 1] for name in ("none", "relative", "rope-axial", "rope-mixed", "alibi2d"))` `assert all(counts[name] == [16, 16] for name in ("learned", "sincos2d"))` | the padding is circular (peg gives [1, 1]) |
# | a probe reads absolute position out of `peg` only after its convolution; with circular padding the answers do not change under a shift around the wrap, the probe reads nothing and the task is at chance | `lesson.claim("a probe reads no position out of peg before the convolution acts", (probes["peg"]["accuracy"][:2] - base).abs().max(), "<", 0.03, about="absence")` `lesson.claim("a probe reads row and column out of peg after its convolution", probes["peg"]["accuracy"][2].min(), ">", 0.5, about="untrained")` `lesson.claim("a probe reads coordinates out of peg after its convolution", probes["peg"]["r2"][2].min(), ">", 0.4, about="untrained")` `assert wrapped_shift < 1e-4` `lesson.claim("with zero padding, shifting the image changes the answers", zero_shift, ">", 0.75)` `lesson.claim("with circular padding a probe reads no position out of peg", (wrapped["accuracy"] - base).abs().max(), "<", 0.06, about="absence")` `lesson.claim("with circular padding peg is at chance on the task", wrapped_accuracy, "<", chance + 0.04, about="absence")` | the convolution acts before block 0 (`at_layer=0`: the first fails), or the padding stays zeros in the control (shift change about 1.5, probe 0.7, task accuracy 1.0); the coordinates' R² is 0.52 at its lowest over 24 runs (median 0.74), so its bound is 0.4; the shifted answers change by 1.04 at least over 24 runs and by at most 0.50 after training on shuffled labels (8 null runs), so that bound is 0.75 |
# | the offset-only models carry no position into block 0; the RoPE models carry it after a block (by the grid's edge: argued, not measured) | `lesson.claim("the offset-only models carry no position into block 0", {name: (probes[name]["accuracy"][0] - base).abs().max() for name in OFFSET_ONLY}, "<", 0.03, about="absence")` `lesson.claim("the RoPE models carry position after a block", {name: read[name][1:].max() for name in ("rope-axial", "rope-mixed")}, ">", base + 0.15, about="training")` | an additive model is among the offset-only ones (0.97 at the input), or `none` or `alibi2d` takes a RoPE model's place (0.25-0.36) |
# | on a blank image `none` attends uniformly and ALiBi by its slopes; a trained RoPE model has heads that look farther than uniform | `torch.testing.assert_close(none_blank, torch.full_like(none_blank, uniform))` `torch.testing.assert_close(alibi_blank, prior.expand_as(alibi_blank))` `assert (prior.diff() > 0).all() and prior.max() < uniform` `lesson.claim("a trained RoPE model has heads that look farther than uniform", max(distances[name][0].max() for name in ("rope-axial", "rope-mixed")), ">", uniform + 0.5, about="training")` | models without RoPE (`none`, `alibi2d`) take the RoPE models' places (at most about 2.2 in block 0) |
