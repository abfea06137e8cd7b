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
# # 00 · Why position: without it, a Vision Transformer sees a bag of patches
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/00_why_position.ipynb)
#
# A Vision Transformer (ViT) cuts an image into patches, turns each patch into a vector (a *token*),
# and lets the tokens exchange information through attention. Nothing in that recipe says *where*
# a patch came from. This lesson shows what follows from that, with a real model.
#
# **What you will learn**
# - how a ViT turns an image into a sequence of patch tokens;
# - why a ViT with no positional encoding gives *exactly* the same answer when you shuffle the patches;
# - that such a model cannot learn a task whose answer is a place, while the same model with a
#   positional encoding learns it.
#
# Runs top to bottom in under two minutes on a laptop CPU (most of it training).

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
from minivit import ViT, ViTConfig, lesson, viz, widgets
from minivit.data import odd_one_out, shuffle_patches
from minivit.evaluate import evaluate
from minivit.train import fit

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## The task: which cell holds the odd shape?
#
# Each image is a 3×3 layout of shapes. Eight cells hold the same kind of shape; one holds another
# kind. The answer is the *cell* of the odd one: 9 classes, so guessing gives 1/9 ≈ 11%.
# The images are drawn procedurally from a seed, at any resolution; here 24×24 pixels.

# %%
train = odd_one_out(4096, image_size=24, seed=SEED)
test = odd_one_out(1000, image_size=24, seed=SEED + 1)
print(train)
print(test)
viz.show_images(train.images[:16], train.labels[:16], train.classes, ncols=8)

# %% [markdown]
# ## From image to tokens
#
# With a patch size of 8, the 24×24 image becomes a 3×3 grid of patches: exactly one patch per cell.
# `PatchEmbed` projects each patch to a vector of width `dim`. The tokens come out in raster order
# (row by row), and that order is the *only* trace of where they came from.

# %%
config = ViTConfig(image_size=24, patch_size=8, num_classes=9, dim=64, depth=2, heads=2, position="none")
model = ViT(config).eval()
tokens, grid = model.patch_embed(train.images[:1])
print("grid of patches (rows, cols):", grid)
print("tokens:", tuple(tokens.shape), "= (batch, patches, dim)")
assert grid == (3, 3) and tokens.shape == (1, 9, 64)
viz.show_images(train.images[:1], train.labels[:1], train.classes, ncols=1, patch_size=8)

# %% [markdown]
# ## Shuffle the patches: the model without position does not notice
#
# Take a permutation of the 9 patches and rearrange the image. Every part of the ViT treats each
# token the same way, wherever it sits:
#
# - the patch embedding, LayerNorm and the MLP act on each token alone;
# - attention mixes tokens by a weighted sum $\sum_j \mathrm{softmax}_j(q_i \cdot k_j/\sqrt{d})\, v_j$
#   over *all* tokens ($d$: the width of $q$ and $k$; lesson 01 writes it out), and a sum does not
#   care about order;
# - mean pooling averages the tokens.
#
# So permuting the patches permutes the tokens at every layer (*equivariance*), and the pooled
# vector, and with it the answer, does not change at all (*invariance*). We check both.

# %% tags=["nbval-ignore-output"]
images = test.images[:8]
perm = torch.randperm(9, generator=torch.Generator().manual_seed(SEED))
shuffled = shuffle_patches(images, 8, perm)
print("patch order after shuffling:", perm.tolist())

with torch.no_grad():
    tokens = model.tokens(images)[0]
    tokens_shuffled = model.tokens(shuffled)[0]
    pooled, pooled_shuffled = model.features(images), model.features(shuffled)

# equivariance: the tokens of the shuffled image are the original tokens, shuffled the same way
torch.testing.assert_close(tokens_shuffled, tokens[:, perm], atol=1e-5, rtol=0)
# invariance: the pooled output is unchanged
change_none = (pooled_shuffled - pooled).abs().max().item()
assert change_none < 1e-5
print("no encoding: largest change of the pooled output < 1e-5")

# %% [markdown]
# The cell prints only the bound. (The figure at the end of the lesson shows trained models'
# answers for an image and its shuffle: identical without position.)
#
# Now give the same architecture a positional encoding. `sincos2d` adds to each token a fixed vector
# of sines and cosines of the patch's row and column. The shuffled image now puts different content
# at each position, and the output changes.

# %%
model_pos = ViT(config.with_(position="sincos2d")).eval()
with torch.no_grad():
    change_pos = (model_pos.features(shuffled) - model_pos.features(images)).abs().max().item()
print(f"sincos2d: largest change of the pooled output = {change_pos:.1g}")
lesson.claim("with sincos2d the pooled output changes when the patches move", change_pos, ">", 1e-3, about="untrained")  # 100x the tolerance above

# %% [markdown]
# ## What it costs: a task about *where* cannot be learned without position
#
# If shuffling the patches cannot change the answer, the no-encoding model must give the same answer
# for the odd shape in any cell: it is stuck at chance. We train both models for 800 steps
# (15 to 45 seconds each on a laptop CPU, depending on the machine) and measure accuracy on images
# they never saw. The model with position can sit at chance for a few hundred steps before it finds
# the task. In every one of the margin sweep's 52 runs (the course's runs of each lesson with many
# seeds, `lessons/CLAIMS.md`) it had found it by step 800, and ended at least 0.5 above chance.
# Trained on shuffled labels, where there is nothing to learn, the same model stays at chance: what
# it learns here is the task.

# %% tags=["nbval-ignore-output"]
histories = {}
trained = {}
for position in ("none", "sincos2d"):
    torch.manual_seed(SEED)
    trained[position] = ViT(config.with_(position=position))
    histories[position] = fit(
        trained[position], train, steps=800, lr=3e-3, eval_data=test, desc=position, seed=SEED
    )
accuracy = {name: evaluate(m, test) for name, m in trained.items()}
print({name: round(a, 3) for name, a in accuracy.items()})

# %% tags=["nbval-ignore-output"]
chance = 1 / 9
lesson.claim("without position a task about where stays at chance", accuracy["none"] - chance, "<", 0.035, about="absence")  # 3.5 s.d. of 1,000 guesses
lesson.claim("with position the same model learns it", accuracy["sincos2d"] - chance, ">", 0.3)
print(f"none: {accuracy['none'] - chance:+.3f} from chance (1/9 = {chance:.2f});  sincos2d: {accuracy['sincos2d'] - chance:+.3f}")
viz.plot_history(histories, chance=chance)

# %% [markdown]
# ## Try it: shuffle and watch the answers
#
# Pick a test image and a shuffle. The bars are each trained model's probabilities for the 9 cells,
# for the image and for its shuffled version. Without position, the two sets of bars are identical,
# whatever the shuffle. With `sincos2d`, the answer can follow the odd shape to its new cell.

# %% tags=["nbval-ignore-output"]
widgets.shuffle_explorer(trained, test.images[:20], patch_size=8)

# %% [markdown]
# The explorer draws `widgets.shuffle_view`; here is one state of it, with the check it shows.

# %%
fig = widgets.shuffle_view(trained, test.images[3], seed=SEED + 5, patch_size=8)
with torch.no_grad():
    x = test.images[3:4]
    perm5 = torch.randperm(9, generator=torch.Generator().manual_seed(SEED + 5))
    p_none = trained["none"].eval()(torch.cat([x, shuffle_patches(x, 8, perm5)])).softmax(-1)
torch.testing.assert_close(p_none[0], p_none[1], atol=1e-5, rtol=0)
fig

# %% [markdown]
# ## Going deeper
#
# ### How much position matters elsewhere
#
# This task was built so that the answer *is* a place, and without position the model is helpless.
# On natural images the loss is much smaller, because most classes can be told from a bag of
# patches. In the ViT paper's ablation (Dosovitskiy et al. 2021, arXiv 2010.11929, Appendix D.4), a
# ViT-B/16 without position embedding scores about 3 points below the same model with a 1-D, 2-D or
# relative one (ImageNet, 5-shot linear probe). Those three are within a fraction of a point of each
# other. We do not reproduce that here; it is a reason not to over-generalise from this task.
#
# Why does a ViT need to be told at all? A convolutional network has locality built in: each filter
# sees a small neighbourhood, the same everywhere. The ViT paper (§3.1) notes that a ViT has much
# less of such image-specific *inductive bias*. Apart from the patch grid, which patches relate must
# be learned from data, and where they are must come from an encoding.
#
# An encoding is also not the only way position gets in. A convolution with zero padding sees how
# far a patch is from the border (Islam et al. 2020, arXiv 2001.08248). So a ViT whose patch
# embedding is a padded convolutional stem knows some position without any encoding. CPVT's position
# encoding generator (`peg` in `minivit`; Chu et al. 2021, arXiv 2102.10882) is built on that. In
# text, a causal mask lets a token count what comes before it (lesson 01, exercise 4).

# %% [markdown]
# ## What we covered
#
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - A ViT sees an image as a set of patch tokens; the order of the tokens is all that is left of
#   the layout.
# - Patch embedding, LayerNorm, the MLP, attention and mean pooling all treat tokens alike, so a
#   ViT without positional encoding is permutation-equivariant, and its pooled answer is exactly
#   invariant to shuffling the patches.
# - On a task whose answer is a place, that model is stuck at chance; adding a positional encoding
#   (here `sincos2d`) to the same model makes the task learnable.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. (discussion) Train the no-encoding model on a task that needs only *content* (for example: is
#    there a triangle anywhere?). Does it still fail? Why not?
# 2. Use `pool="cls"` in the config. Is the class token's output still invariant to shuffling? Write
#    `answer_00_2(model, images, perm)`: the largest absolute change of `model.features` when the
#    patches of `images` are shuffled by `perm` (with the model's own patch size,
#    `model.config.patch_size`), and use it on a `pool="cls"` model without position.

# %% tags=["exercise"]
from minivit import exercises

answer_00_2 = ...  # your code

# %% tags=["exercise"]
exercises.check("00.2", answer_00_2)

# %% [markdown]
# 3. Use `patch_size=4` (36 patches, 4 per cell). Shuffling patches now cuts shapes apart. First the
#    arithmetic: `answer_00_3 = ((rows, cols), patches_per_cell)` for this patch size. Is the
#    no-encoding model's output still invariant? Can it still learn the task?

# %% tags=["exercise"]
answer_00_3 = ...  # your code

# %% tags=["exercise"]
exercises.check("00.3", answer_00_3)

# %% [markdown]
# 4. (discussion) Replace `sincos2d` with `learned` (a trainable table, lesson 03). How many steps
#    does it need?
# 5. Use `position="peg"` (a zero-padded convolution after the first block). Is the output still
#    invariant to shuffling? Where does its position come from? Answer with the set of encodings in
#    `minivit.REGISTRY` whose untrained model gives the same pooled output for an image and for a
#    random shuffle of its patches: `answer_00_5 = {"...", ...}`.

# %% tags=["exercise"]
answer_00_5 = ...  # your code

# %% tags=["exercise"]
exercises.check("00.5", answer_00_5)

# %% [markdown]
# 6. Write the shuffle yourself: `answer_00_6(images, patch_size, perm)` rearranges the p×p patches
#    of images [B, C, H, W] so that patch `perm[i]` of the input lands at place i (raster order), as
#    `shuffle_patches` does (not with `shuffle_patches`: the check refuses it). The check also tries
#    images whose grid is not square. Then run the equivariance cell with your shuffle.

# %% tags=["exercise"]
answer_00_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("00.6", answer_00_6)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | patch size 8 cuts a 24×24 image into a 3×3 grid of 9 tokens | `assert grid == (3, 3) and tokens.shape == (1, 9, 64)` | another patch size, e.g. 4 (a 6×6 grid) |
# | without position, shuffled patches give the same tokens, shuffled | `torch.testing.assert_close(tokens_shuffled, tokens[:, perm], atol=1e-5, rtol=0)` | the model has a position encoding (`sincos2d`) |
# | without position, the pooled output ignores the order of the patches | `assert change_none < 1e-5` | the model has a position encoding (`sincos2d`: 0.04) |
# | with `sincos2d`, the pooled output changes when the patches move | `lesson.claim("with sincos2d the pooled output changes when the patches move", change_pos, ">", 1e-3, about="untrained")` | the model has no encoding (below 1e-5) |
# | without position, a task about where stays at chance | `lesson.claim("without position a task about where stays at chance", accuracy["none"] - chance, "<", 0.035, about="absence")` | the model has a position encoding (0.70 above chance in the committed run, at least 0.51 in the sweep) |
# | with position, the same model learns it | `lesson.claim("with position the same model learns it", accuracy["sincos2d"] - chance, ">", 0.3)` | the encoding is removed (about 0.00 above chance) |
# | the explorer's no-position model gives the same answers for an image and its shuffle | `torch.testing.assert_close(p_none[0], p_none[1], atol=1e-5, rtol=0)` | the `sincos2d` model is shown in its place |
