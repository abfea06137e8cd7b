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
# # 06 · ALiBi: attention that prefers what is near
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/06_alibi.ipynb)
#
# ALiBi (Press et al. 2021) learns nothing and adds nothing to the tokens: it subtracts from every
# attention score a penalty proportional to the distance between query and key, with a different
# slope per head. Some heads look far, some only next door. For images the distance is measured on
# the patch grid (Fuller et al. 2023). The bias is a formula of the grid, so any resolution works
# as it is. But distance is all it knows, and this lesson shows what that leaves out.
#
# **What you will learn**
# - the slopes of Press et al., including the rule for a head count that is not a power of two;
# - the symmetric 1-D bias an encoder needs, and the 2-D bias with Euclidean distance on the grid;
# - why a model with ALiBi-2D and mean pooling cannot tell a scene from its mirror image;
# - why nothing needs resampling at a new resolution.
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

import math

import torch

# %matplotlib inline
from minivit import ViT, ViTConfig, lesson, viz, widgets
from minivit.data import relation, shuffle_patches
from minivit.evaluate import evaluate
from minivit.posenc import alibi_slopes, build, grid_coords
from minivit.train import fit

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## The slopes
#
# With $H$ heads (a power of two), head $h = 1 \dots H$ gets the slope $m_h = 2^{-8h/H}$: a geometric
# sequence from $2^{-8/H}$ down to $2^{-8}$. For 8 heads: $\tfrac12, \tfrac14, \dots, \tfrac1{256}$.
# For other head counts Press et al. take the slopes of the nearest lower power of two and then
# every other slope of the next power of two.

# %%
def slopes_by_hand(heads):
    if math.log2(heads).is_integer():
        return [2 ** (-8 * h / heads) for h in range(1, heads + 1)]
    lower = 2 ** math.floor(math.log2(heads))
    return slopes_by_hand(lower) + slopes_by_hand(2 * lower)[0::2][: heads - lower]


for heads in (8, 12, 6):
    print(f"{heads:>2} heads:", ", ".join(f"{m:.4g}" for m in alibi_slopes(heads)))
    assert all(math.isclose(a, b) for a, b in zip(alibi_slopes(heads), slopes_by_hand(heads)))
assert alibi_slopes(8) == [1 / 2**k for k in range(1, 9)]
assert [round(m, 4) for m in alibi_slopes(12)[8:]] == [0.7071, 0.3536, 0.1768, 0.0884]
assert alibi_slopes(6) == [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]

# %% [markdown]
# ## 1-D and 2-D biases
#
# A language model's ALiBi only looks back. An encoder sees both ways, so the bias is symmetric:
# $-m_h|i-j|$ on the raster index (`alibi1d`). On an image, the raster index puts the end of one row
# next to the start of the following one, far apart on the picture. `alibi2d` uses the Euclidean
# distance between the patches' (row, column) positions instead:
#
# $$b_h(i, j) = -m_h\,\lVert p_i - p_j\rVert_2 .$$

# %%
grid = (6, 6)
enc1, enc2 = (build(name, dim=64, heads=4, depth=1, grid=grid) for name in ("alibi1d", "alibi2d"))
b1, b2 = enc1.attn_bias(grid, 0), enc2.attn_bias(grid, 0)  # (H, N, N)
m = torch.tensor(alibi_slopes(4))[:, None, None]
idx = torch.arange(36.0)
rc = grid_coords(grid)
torch.testing.assert_close(b1, -m * (idx[:, None] - idx[None, :]).abs())
torch.testing.assert_close(b2, -m * torch.cdist(rc, rc))
for b in (b1, b2):
    torch.testing.assert_close(b, b.transpose(1, 2))  # symmetric
    assert (torch.diagonal(b, dim1=1, dim2=2) == 0).all()  # no penalty for attending to yourself
print("patch (0, 5) and patch (1, 0):", f"1-D distance {idx[6] - idx[5]:.0f},", f"2-D distance {torch.dist(rc[5], rc[6]):.2f}")
viz.bias_maps(b2, grid, query=14, title="alibi2d: bias from patch (2, 2), 4 heads")

# %% [markdown]
# ## What distance cannot tell
#
# Mirror the grid: patch $(r, c)$ goes to $(r, 5-c)$. Every distance stays the same, so the bias
# does too. Patch embedding, the MLP and mean pooling do not care where a token is; attention sees
# position only through the bias. So a model with `alibi2d` and mean pooling gives *exactly* the same
# answer for an image and for the image with its patches mirrored (or rotated by 90°). With an
# encoding that knows directions (`rope-axial`), the answer changes.

# %% tags=["nbval-ignore-output"]
mirror = torch.arange(36).reshape(6, 6).flip(1).reshape(-1)  # patch (r, c) <- patch (r, 5 - c)
rotate = torch.arange(36).reshape(6, 6).rot90().reshape(-1)
torch.testing.assert_close(b2[:, mirror][:, :, mirror], b2)
torch.testing.assert_close(b2[:, rotate][:, :, rotate], b2)
images = relation(8, image_size=24, seed=SEED + 3).images
config = ViTConfig(image_size=24, patch_size=4, num_classes=4, heads=4, position="alibi2d")
for position in ("alibi2d", "rope-axial"):
    torch.manual_seed(SEED)
    model = ViT(config.with_(position=position)).eval()
    with torch.no_grad():
        for p in model.parameters():  # sizeable weights, as training leaves them
            p.normal_(std=0.3)
        change = max((model(shuffle_patches(images, 4, perm)) - model(images)).abs().max().item()
                     for perm in (mirror, rotate))
    print(f"{position:>10}: largest change of the output for mirrored or rotated patches {'< 1e-4' if change < 1e-4 else f'= {change:.2f}'}")
    assert (change < 1e-4) == (position == "alibi2d")

# %% [markdown]
# The relation task asks whether the circle is left of, right of, above or below the square. The
# mirror of a "left of" scene is a "right of" scene, and a 90° turn makes it an "above" scene. An
# `alibi2d` model sees them all alike, so it can only guess. We train both models for 800 steps.
# `rope-axial` knows directions and gets well above chance, though how far in 800 steps depends on
# the seed: some runs pass 0.9, others sit on a plateau near 0.5 (as in lesson 05).

# %% tags=["nbval-ignore-output"]
train, test = relation(4096, seed=SEED), relation(1000, seed=SEED + 1)
accuracy, trained = {}, {}
for position in ("alibi2d", "rope-axial"):
    torch.manual_seed(SEED)
    trained[position] = ViT(config.with_(patch_size=8, heads=2, position=position))
    fit(trained[position], train, steps=800, lr=3e-3, desc=position, seed=SEED)
    accuracy[position] = evaluate(trained[position], test)
print({name: round(a, 2) for name, a in accuracy.items()})

# %%
assert accuracy["alibi2d"] < 0.35, "distance alone cannot tell left from right: chance is 0.25"
assert accuracy["rope-axial"] > 0.4 and accuracy["rope-axial"] > accuracy["alibi2d"] + 0.15
print("alibi2d near chance (0.25); rope-axial well above it")

# %% [markdown]
# ## Any resolution, nothing to resample
#
# A learned table (lesson 03) has one entry per trained position and must be resampled for a new
# grid. ALiBi's bias is a formula of the grid: at 48 px (a 6×6 grid of 8 px patches instead of 3×3)
# it is recomputed from the new distances, with the same slopes, and the model runs with no change. The slopes were never trained, so they cannot have overfitted to a size.

# %%
model = trained["alibi2d"]
for size in (16, 24, 48):
    g = (size // 8, size // 8)
    rc = grid_coords(g)
    torch.testing.assert_close(model.pos.attn_bias(g, 0), -model.pos.slopes[:, None, None] * torch.cdist(rc, rc))
    out = model(relation(4, image_size=size, seed=SEED + 5).images)
    assert out.shape == (4, 4) and torch.isfinite(out).all()
print("at 16, 24 and 48 px: the bias is recomputed for the grid, and the model runs as it is")

# %% [markdown]
# ## Try it: heads, head, query
#
# Left: the slopes for the chosen number of heads (the chosen head in orange). Right: that head's
# bias from the query patch to every patch. Steep heads only look next door, shallow ones far away.

# %% tags=["nbval-ignore-output"]
widgets.alibi_explorer(grid=(8, 8))

# %% [markdown]
# ## What we covered
#
# - ALiBi subtracts slope × distance from every attention score; the slopes are a fixed geometric
#   sequence per head (with Press et al.'s rule for other head counts), so some heads look near and
#   some far.
# - An encoder needs the symmetric bias; on images, Euclidean distance on the grid (`alibi2d`)
#   respects the picture's geometry where the raster index does not.
# - Distance is blind to direction: with mean pooling, mirrored or rotated patch layouts give exactly
#   the same answer, and a task about left and right stays at chance.
# - The bias is recomputed for any grid; nothing is resampled.
#
# ## Exercises
#
# 1. Use `pool="cls"` with `alibi2d`. Is the model still invariant to mirroring? (The class token gets
#    zero bias.)
# 2. Combine `alibi2d` with a direction-aware encoding: which of the relation task's four answers does
#    each part provide?
# 3. Train `alibi2d` on `which_shape` (content only) at 24 px and evaluate at 16, 24 and 48 px. Compare
#    with `learned`.
# 4. Press et al. chose slopes so that the heads cover many scales. Make all heads use the steepest
#    slope. What happens to the mean attention distance?
