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
# # 01 · Attention from scratch, and what it cannot see
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/01_attention.ipynb)
#
# Attention is the one place where the tokens of a Vision Transformer talk to each other. We build
# it from three matrix products and a softmax, check every step against `minivit`, look at what a
# trained model attends to, and pin down why attention alone has no idea where a patch is.
#
# **What you will learn**
# - scaled dot-product attention, $\mathrm{softmax}(QK^\top/\sqrt{d})\,V$, written out and checked against the package;
# - multi-head attention: the same computation on slices of the width, side by side;
# - what a trained model attends to, and how the softmax temperature makes attention sharper or flatter;
# - why attention is a function of a *set*: reorder the keys and values and nothing changes.
#
# Runs top to bottom in under a minute on a laptop CPU.

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

import copy
import math

import torch
import torch.nn.functional as F

# %matplotlib inline
from minivit import ViT, ViTConfig, analysis, lesson, viz, widgets
from minivit.attention import explicit_attention
from minivit.data import relation
from minivit.train import fit

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## Patches become tokens
#
# We use the `relation` task: a circle and a square share a row or a column, and the answer is where
# the circle is relative to the square (left of, right of, above, below). A 24×24 image with patch
# size 8 gives a 3×3 grid: 9 tokens of width 64.

# %% tags=["nbval-ignore-output"]
data = relation(2048, seed=SEED)
test = relation(500, seed=SEED + 1)
config = ViTConfig(image_size=24, patch_size=8, num_classes=4, dim=64, depth=2, heads=2, position="none")
model = ViT(config).eval()
image = data.images[0]
with torch.no_grad():
    tokens, grid = model.patch_embed(image[None])  # (1, N, D)
    x = model.blocks[0].norm1(tokens)[0]  # (N, D): what the first block's attention reads
print("tokens:", tuple(x.shape), " grid:", grid, " label:", data.classes[data.labels[0]])
viz.show_images(data.images[:8], data.labels[:8], data.classes, ncols=8, patch_size=8)

# %% [markdown]
# ## One head, written out
#
# Each token $x_i$ is projected to a query $q_i = W_q x_i$, a key $k_i = W_k x_i$ and a value
# $v_i = W_v x_i$. Token $i$ scores every token $j$ by $q_i \cdot k_j / \sqrt{d}$, where $d$ is the
# width of one head's queries and keys (`Dh` below, 32 here; with $h$ heads, the model's width over
# $h$): the $\sqrt{d}$ keeps the scores' scale independent of $d$. The softmax turns the scores into
# weights, and the head takes the weighted average of the values. (Here $W_q$ multiplies a column
# vector. Writing vectors as rows instead only moves the transposes.)
#
# $$\mathrm{out}_i = \sum_j \mathrm{softmax}_j\!\left(\frac{q_i \cdot k_j}{\sqrt d}\right) v_j .$$
#
# We take $W_q, W_k, W_v$ from the model's first block (one `Linear` makes all three) and compute the
# first head by hand.

# %%
attn = model.blocks[0].attn
D, H = config.dim, config.heads
Dh = D // H
with torch.no_grad():
    q, k, v = (x @ attn.qkv.weight.T + attn.qkv.bias).split(D, dim=-1)  # 3 x (N, D)
    q0, k0, v0 = q[:, :Dh], k[:, :Dh], v[:, :Dh]  # head 0 reads the first Dh channels

    scores = q0 @ k0.T / math.sqrt(Dh)  # (N, N): row i scores every key j
    weights = scores.softmax(dim=-1)  # each row sums to 1
    out0 = weights @ v0  # (N, Dh)

torch.testing.assert_close(weights.sum(-1), torch.ones(9))
ref_out, ref_weights = explicit_attention(q0, k0, v0)
torch.testing.assert_close(out0, ref_out)
torch.testing.assert_close(weights, ref_weights)
torch.testing.assert_close(out0, F.scaled_dot_product_attention(q0[None], k0[None], v0[None])[0])
print("by hand == minivit.attention.explicit_attention == torch's fused scaled_dot_product_attention")

# %% [markdown]
# ## Many heads
#
# Multi-head attention runs the same computation on `H` slices of the width, each with its own
# scores, and concatenates the results before one output projection. Reshaping `(N, D)` to
# `(H, N, Dh)` does all heads at once. The result is exactly what the package's `Attention` returns.

# %%
with torch.no_grad():
    qh, kh, vh = (t.reshape(9, H, Dh).transpose(0, 1) for t in (q, k, v))  # 3 x (H, N, Dh)
    heads_out, heads_weights = explicit_attention(qh, kh, vh)  # (H, N, Dh), (H, N, N)
    by_hand = attn.proj(heads_out.transpose(0, 1).reshape(9, D))  # concatenate heads, project
    package, package_weights = attn(x[None], grid, model.pos, layer=0, need_weights=True)

torch.testing.assert_close(heads_out[0], out0)  # head 0 is the head we wrote out
torch.testing.assert_close(by_hand, package[0])
torch.testing.assert_close(heads_weights, package_weights[0])
print("heads:", H, " weights per head:", tuple(heads_weights.shape[1:]), " output:", tuple(by_hand.shape))

# %% [markdown]
# ## What a trained model attends to
#
# An untrained `minivit` model attends uniformly, to four digits: its scores are all close to zero.
# The queries and keys are `Linear` projections of LayerNorm-ed tokens, and every `Linear` weight
# starts small (a normal with σ = 0.02 cut at ±0.04, see `minivit.model`). That is a choice of
# initialisation, not a law: with PyTorch's default `Linear` init (uniform in ±1/√fan_in, several
# times wider here) the scores within a row spread wider (the spreads are printed below), and the
# attention, still close to uniform over 9 tokens, is measurably less so (its entropy is below
# 0.9999 of the uniform one's; asserted). The *entropy* of a row of weights, $-\sum_j w_j \log w_j$,
# measures how spread it is: $\log 9$ when a query attends to all 9 tokens alike, 0 when it attends
# to one; $e^{\text{entropy}}$ is how many tokens it spreads over. The *spread* of a row's scores is
# what the softmax sees: max − min of $\log w$ over the row.
#
# We then train the model *with* a positional encoding: `sincos2d` adds a fixed vector to each
# patch's token, a different one at every place (lesson 02 builds it). We train on the relation
# task for a few seconds and look at the attention of its first block.

# %% tags=["nbval-ignore-output"]
torch.manual_seed(SEED)
trained = ViT(config.with_(position="sincos2d"))
pytorch_init = copy.deepcopy(trained)
with torch.random.fork_rng():  # leave the seeded random state to the training below
    for layer in pytorch_init.modules():
        if isinstance(layer, torch.nn.Linear):
            layer.reset_parameters()  # PyTorch's default init


def spread(weights: torch.Tensor) -> float:
    """The largest max - min of the scores within a row (= of log weights)."""
    return (weights.log().amax(-1) - weights.log().amin(-1)).max().item()


maps_before = trained.eval().attention_maps(test.images[:200])[0]  # block 0: (B, H, N, N)
maps_pytorch = pytorch_init.eval().attention_maps(test.images[:200])[0]
before = analysis.entropy(maps_before).mean().item()
before_pytorch = analysis.entropy(maps_pytorch).mean().item()
print(f"untrained, minivit's init:  entropy {before:.5f} (log 9 = {math.log(9):.5f}), scores spread {spread(maps_before):.3f}")
print(f"untrained, PyTorch's init:  entropy {before_pytorch:.5f}, scores spread {spread(maps_pytorch):.3f}")
history = fit(trained, data, steps=1000, lr=3e-3, eval_data=test, desc="sincos2d", seed=SEED)
after = analysis.entropy(trained.eval().attention_maps(test.images[:200])[0]).mean().item()
print(f"accuracy {history.final_eval:.2f}; mean entropy of block 0: {before:.3f} before, {after:.3f} after")

# %% tags=["nbval-ignore-output"]
lesson.claim("minivit's small init: uniform attention, to four digits", before / math.log(9), ">", 0.9999, about="untrained")
lesson.claim("PyTorch's default init: less uniform", before_pytorch / math.log(9), "<", 0.9999, about="untrained")
lesson.claim("training sharpens block 0: the mean entropy falls below log 3", after / math.log(9), "<", 0.5, about="training")
lesson.claim("the task is learned", history.final_eval, ">", 0.8)
circle = int((test.layout[0] == 1).nonzero())  # the patch that holds the circle
print("test image 0:", test.classes[test.labels[0]], "- the circle is in patch", circle)
widgets.attention_view(trained, test.images[0], query=circle)

# %% [markdown]
# Training sharpens block 0. The mean entropy ends below half of $\log 9$ (asserted): a query's
# attention is, on a geometric average, on fewer than 3 of the 9 tokens, since $e^{(\log 9)/2} = 3$.
# How sharp it gets depends on the seed; in this run it is printed above (near 0 means nearly
# one-hot, on one token). Any training does this, not only training on this task: the same model
# trained on shuffled labels, where there is nothing to learn, sharpens too (the null runs of
# `lessons/CLAIMS.md`). Sharp attention says that the weights grew, not what the model learned.
#
# Sharp, but on what? A head can look at *what* a patch holds or at *where* it is. The layout of
# each test image says which patches hold the circle and the square: we measure how much of each
# head's attention lands on those two patches (2 of 9, so 22% if it were uniform). We also measure
# its favourite patch: the one place in the grid it gives the most attention, whatever the image
# (11% if uniform). And how far each head looks: the *mean attention distance*
# (`analysis.mean_attention_distance`, the measure of ViT's Fig. 7), in patches, against the
# 1.45 patches that uniform attention over the 3×3 grid reaches.

# %% tags=["nbval-ignore-output"]
maps = trained.eval().attention_maps(test.images[:200])[0]  # block 0: (B, H, N, N)
shapes = (test.layout[:200] >= 0).float()  # (B, N): 1 on the circle's and the square's patch
on_shapes = (maps * shapes[:, None, None, :]).sum(-1).mean((0, 2))  # (H,): share on the two shapes
favourite = maps.mean((0, 2)).max(-1).values  # (H,): share on the patch a head looks at most, over all images
distance = analysis.mean_attention_distance(maps, grid)  # (H,)
uniform = analysis.grid_distances(grid).mean().item()
for h in range(H):
    looks = "the shapes" if on_shapes[h] >= favourite[h] else "a fixed patch"
    looks = looks if max(on_shapes[h], favourite[h]) > 0.35 else "neither"
    print(f"head {h}: {on_shapes[h]:.0%} on the two shapes (uniform {2 / 9:.0%}), {favourite[h]:.0%} on its "
          f"favourite patch (uniform {1 / 9:.0%}): it looks at {looks}")
print("mean attention distance per head:", [round(d, 2) for d in distance.tolist()], f"(uniform: {uniform:.2f})")
lesson.claim("a head of block 0 looks at the shapes or at a fixed patch", max(on_shapes.max(), favourite.max()).item(), ">", 0.35, about="training")
lesson.claim("the heads are not local: none looks much nearer than uniform attention", uniform - distance.min(), "<", 0.2, about="absence")

# %% [markdown]
# A head can look at *what* a patch holds: most of its attention goes to the circle and the square,
# wherever they are in the image. Or it can look at *where* a patch is: most of its attention goes
# to one fixed patch, whatever the image. It can find a fixed place only through the position
# encoding added to its tokens. A head can also do neither, and spread its attention or look at the
# empty patches. The printout says what each head of this run does; that depends on the seed, and
# on the machine. The claim asks for at least one head with more than 0.35 of its attention on the
# shapes or on one fixed patch (uniform attention gives 0.22 and 0.11). Trained on shuffled labels,
# a head fixes on the shapes or on a patch as well (`lessons/CLAIMS.md`): where a head looks is what
# training does to attention, and by itself it does not show what the task needs.
#
# Where block 0 looks does not by itself reveal the relation: the answer is about *where* the
# circle is relative to the square. Attention alone cannot see that (the next section shows why);
# it can only come from the position encoding added to the two shapes' tokens. Lesson 02 looks at
# what an added encoding does inside attention.

# %% [markdown]
# ## Why attention cannot tell where a token is
#
# Look at the formula again: output $i$ is a sum over $j$. A sum does not care about the order of
# its terms, so shuffling the keys and values *together* changes nothing. The position of a key
# enters nowhere; neither does the position of the query. Two tokens with the same content, in
# different places, get the same query, the same scores and the same output.
#
# The cell below checks both. It reorders keys and values together. Then it copies the top-left
# patch of an image into the bottom-right one, so two patches hold the same pixels (whatever the
# top-left one holds: a shape or background; the test does not depend on it). Without a position
# encoding the two get the same output after both blocks; with the sinusoid added they do not.

# %%
perm = torch.randperm(9, generator=torch.Generator().manual_seed(SEED + 1))
with torch.no_grad():
    shuffled_out, _ = explicit_attention(qh, kh[:, perm], vh[:, perm])
torch.testing.assert_close(shuffled_out, heads_out)
print("keys and values reordered: every output unchanged")

twin = image.clone()
twin[:, 16:24, 16:24] = twin[:, 0:8, 0:8]  # copy patch 0 (top left) into patch 8 (bottom right)
for position in ("none", "sincos2d"):
    m = ViT(config.with_(position=position)).eval()
    with torch.no_grad():
        t = m.tokens(twin[None])[0][0]  # (N, D) after both blocks
    same = torch.allclose(t[0], t[8], atol=1e-5)
    print(f"{position:>8}: patch 0 and its copy in patch 8 get {'the same' if same else 'different'} outputs")
    assert same == (position == "none")

# %% [markdown]
# ## Try it: where does each head look?
#
# Pick an image, a query patch (outlined) and a temperature. The overlay shows each head's weights
# over the image. Low temperatures pick one key; high ones spread the weight over more of the nine
# (at T = 20 the entropy is more than half of log 9: checked under Going deeper).

# %% tags=["nbval-ignore-output"]
widgets.attention_explorer(trained, test.images[:20])

# %% [markdown]
# ## Going deeper
#
# ### Temperature
#
# Dividing the scores by a temperature $T$ before the softmax sharpens the weights ($T<1$) or
# flattens them ($T>1$). The entropy of a row measures how spread it is: $\log N$ for uniform
# attention, 0 for attention on a single token. Since $\mathrm{softmax}(s/T) \propto
# \mathrm{softmax}(s)^{1/T}$, we can change $T$ after the fact, from the weights alone, and see
# what the trained model's first block would do at other temperatures.

# %% tags=["nbval-ignore-output"]
torch.testing.assert_close(analysis.with_temperature(weights, 0.5), (scores / 0.5).softmax(-1))
trained_weights = trained.eval().attention_maps(test.images[:200])[0]  # (B, H, N, N)
temperatures = [0.5, 1.0, 2.0, 5.0, 20.0]
entropies = [analysis.entropy(analysis.with_temperature(trained_weights, t)).mean().item() for t in temperatures]
for t, e in zip(temperatures, entropies):
    print(f"T = {t:>4}: mean entropy {e:.2f} nats (uniform: {math.log(9):.2f})")
assert all(b >= a for a, b in zip(entropies, entropies[1:]))  # softmax(s / T) never sharpens as T rises
lesson.claim("at T = 20 more than half of log 9", entropies[-1] / math.log(9), ">", 0.5, about="untrained")
lesson.claim("at T = 1 less than half of log 9", entropies[1] / math.log(9), "<", 0.5, about="training")

# %% [markdown]
# ## What we covered
#
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - Attention scores every pair of tokens by $q_i\cdot k_j/\sqrt{d}$, normalises each row with a softmax,
#   and averages the values; our by-hand version matches `minivit` and torch's fused kernel exactly.
# - Multi-head attention is the same computation on slices of the width, concatenated and projected.
# - A new `minivit` model attends uniformly (to four digits) because its weights start small;
#   PyTorch's default init gives scores that spread wider. Training sharpens block 0: the mean
#   entropy falls below $\log 3$, fewer than 3 of the 9 tokens on a geometric average. A head may
#   look at the circle and the square (what a patch holds) or at one fixed patch (where it is); at
#   least one head does one or the other, and no head looks much nearer than uniform attention does.
#   Training on shuffled labels does both as well: they show what training does to attention, not
#   what the task needs. The temperature trades sharp for flat attention.
# - Attention treats its inputs as a set: reordering keys and values changes nothing, and equal
#   contents get equal outputs wherever they are. Position has to be put in from outside, and the
#   next lessons are about the ways to do it.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. Build an untrained model with `dim=256` and minivit's PyTorch-style init (`init="torch"`: the
#    init of `nn.MultiheadAttention`, whose q/k/v projection is xavier-uniform, not quite the
#    per-`Linear` default the cell above resets to; see `minivit.model`), and
#    compute its block-0 attention entropy as the init cell above does, with and without the
#    $1/\sqrt{d}$ scaling (multiply the scores by $\sqrt{d}$). What happens to the entropy? First,
#    as a number: with 2 heads as here, leaving out the $1/\sqrt{d}$ is the same as a softmax
#    temperature $T$. Which one? `answer_01_1 = T`.

# %% tags=["exercise"]
from minivit import exercises

answer_01_1 = ...  # your code

# %% tags=["exercise"]
exercises.check("01.1", answer_01_1)

# %% [markdown]
# 2. (discussion) In the "twin" cell, copy a patch into a *neighbouring* cell instead. Do the
#    `sincos2d` model's two outputs differ more or less than for a far-away copy?
# 3. (discussion) Use the explorer to find a head of the trained model that looks from the circle
#    towards the square. Is it the same head for every image?
# 4. Apply a *causal* mask (token $i$ sees only $j \le i$) in `explicit_attention` via `bias`: write
#    `answer_01_4(n)`, the bias [n, n] that is 0 where token $i$ may look and $-\infty$ where it may
#    not. Is the output still unchanged when you reorder the tokens? Why would a text model not need
#    a positional encoding as badly as a ViT? (Haviv et al. 2022, arXiv 2203.16634, train causal
#    language models without one: they come close to those with one, and probes find absolute
#    position in their tokens.)

# %% tags=["exercise"]
answer_01_4 = ...  # your code

# %% tags=["exercise"]
exercises.check("01.4", answer_01_4)

# %% [markdown]
# 5. The temperature cell changes $T$ after the fact, from the weights alone. Do it yourself: write
#    `answer_01_5(weights, T)`, the weights [..., N] that the same scores give at temperature $T$,
#    computed from `weights` only (no logits, and not with `analysis.with_temperature`).

# %% tags=["exercise"]
answer_01_5 = ...  # your code

# %% tags=["exercise"]
exercises.check("01.5", answer_01_5)

# %% [markdown]
# 6. The init and temperature cells measure spread with `analysis.entropy`. Write it yourself:
#    `answer_01_6(weights)`, the entropy in nats of each row of weights [..., N], a tensor [...] (not
#    with `analysis.entropy`: the check refuses it). The check tries rows with zero weights, as a
#    causal mask (exercise 4) makes them. What does a row give that puts half its weight on each of
#    two keys?

# %% tags=["exercise"]
answer_01_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("01.6", answer_01_6)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | the by-hand head is `explicit_attention` and torch's fused kernel | `torch.testing.assert_close(out0, ref_out)` `torch.testing.assert_close(weights, ref_weights)` `torch.testing.assert_close(out0, F.scaled_dot_product_attention(q0[None], k0[None], v0[None])[0])` | the by-hand scores lose the 1/√d |
# | each row of weights sums to 1 | `torch.testing.assert_close(weights.sum(-1), torch.ones(9))` | the scores are used without the softmax |
# | multi-head attention is the one head on slices of the width, concatenated and projected | `torch.testing.assert_close(heads_out[0], out0)` `torch.testing.assert_close(by_hand, package[0])` `torch.testing.assert_close(heads_weights, package_weights[0])` | the heads are cut from the width the other way (`reshape(9, Dh, H)`) |
# | an untrained `minivit` model attends uniformly, to four digits | `lesson.claim("minivit's small init: uniform attention, to four digits", before / math.log(9), ">", 0.9999, about="untrained")` | the model has PyTorch's default `Linear` init |
# | PyTorch's default init is less uniform | `lesson.claim("PyTorch's default init: less uniform", before_pytorch / math.log(9), "<", 0.9999, about="untrained")` | the copy keeps `minivit`'s init |
# | training sharpens block 0 (the mean entropy below $\log 3$: on a geometric average a query onto fewer than 3 of the 9 tokens; any training does, on shuffled labels too), and the task is learned | `lesson.claim("training sharpens block 0: the mean entropy falls below log 3", after / math.log(9), "<", 0.5, about="training")` `lesson.claim("the task is learned", history.final_eval, ">", 0.8)` | training stops after 5 steps |
# | a head of block 0 looks at the two shapes or at one fixed patch (more than 0.35 of its attention on either; on shuffled labels too) | `lesson.claim("a head of block 0 looks at the shapes or at a fixed patch", max(on_shapes.max(), favourite.max()).item(), ">", 0.35, about="training")` | the untrained model's attention (22% and 11%) |
# | the heads are not local: none looks much nearer than uniform attention | `lesson.claim("the heads are not local: none looks much nearer than uniform attention", uniform - distance.min(), "<", 0.2, about="absence")` | each patch attends to itself (distance 0) |
# | the temperature can be changed from the weights alone | `torch.testing.assert_close(analysis.with_temperature(weights, 0.5), (scores / 0.5).softmax(-1))` | the weights are raised to T instead of 1/T |
# | a higher temperature flattens attention (the entropy of softmax(s/T) never falls as T rises, for any scores: a check of this run's arithmetic, not of the model); at T = 20 the entropy is above half of log 9, at T = 1 below it | `assert all(b >= a for a, b in zip(entropies, entropies[1:]))` `lesson.claim("at T = 20 more than half of log 9", entropies[-1] / math.log(9), ">", 0.5, about="untrained")` `lesson.claim("at T = 1 less than half of log 9", entropies[1] / math.log(9), "<", 0.5, about="training")` | the weights are raised to T instead of 1/T |
# | reordering keys and values together changes nothing | `torch.testing.assert_close(shuffled_out, heads_out)` | only the keys are reordered |
# | equal contents get equal outputs without position, different ones with it | `assert same == (position == "none")` | patch 0 is compared with a patch whose pixels differ from its own (not its copy in patch 8) |
