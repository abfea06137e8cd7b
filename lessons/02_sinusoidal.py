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
# # 02 · Sinusoidal encodings: position as a set of clocks
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/02_sinusoidal.ipynb)
#
# The original Transformer (Vaswani et al. 2017) gives each position a fixed vector of sines and
# cosines at many frequencies, like a set of clock hands turning at different speeds. Nothing is
# learned, it works for any number of positions, and it has a property that makes it easy for
# attention to use: the similarity of two positions depends only on how far apart they are.
#
# **What you will learn**
# - the 1-D sinusoidal encoding, written from its formula and checked against `minivit`;
# - why $PE(p)\cdot PE(q)$ depends only on the offset $q-p$, and why a shift is a rotation;
# - the 2-D form used by ViTs (MAE): half the channels for the row, half for the column;
# - how the width and the *base* decide how much of the 2-D layout the encoding shows.
#
# Runs top to bottom in a few seconds.

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
from minivit import analysis, lesson, viz, widgets
from minivit.posenc import grid_coords, relative_offsets, sincos_1d, sincos_2d

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## The formula
#
# For position $p$ and channel pair $i = 0 \dots D/2-1$:
#
# $$PE(p, 2i) = \sin(p\,\omega_i), \qquad PE(p, 2i+1) = \cos(p\,\omega_i), \qquad \omega_i = \mathrm{base}^{-2i/D}.$$
#
# The first pair turns by one radian per position (a wavelength of $2\pi \approx 6.3$ positions);
# each following pair turns more slowly, down to a wavelength of about $2\pi\cdot\mathrm{base}$.

# %%
D, base, N = 32, 10000.0, 64
p = torch.arange(N, dtype=torch.float64)
omega = base ** (-2 * torch.arange(D // 2, dtype=torch.float64) / D)  # (D/2,)
pe = torch.empty(N, D, dtype=torch.float64)
pe[:, 0::2] = torch.sin(p[:, None] * omega)  # (N, D/2)
pe[:, 1::2] = torch.cos(p[:, None] * omega)

torch.testing.assert_close(pe.float(), sincos_1d(p.float(), D, base))
wavelengths = 2 * math.pi / omega
print(f"wavelengths: {wavelengths[0]:.1f} positions (fastest pair) ... {wavelengths[-1]:,.0f} (slowest pair)")
viz.encoding_heatmap(pe, title=f"1-D sinusoidal encoding, D = {D}")

# %% [markdown]
# ## Similarity depends only on the offset
#
# Multiply out the dot product of two positions, one pair at a time:
# $\sin(p\omega)\sin(q\omega) + \cos(p\omega)\cos(q\omega) = \cos((q-p)\,\omega)$. So
#
# $$PE(p)\cdot PE(q) = \sum_i \cos\big((q-p)\,\omega_i\big),$$
#
# a function of $q - p$ alone. In the matrix of all dot products, every diagonal is constant.

# %%
dots = pe @ pe.T  # (N, N)
for offset in range(-N + 1, N):
    diagonal = torch.diagonal(dots, offset)
    torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal))
k = torch.arange(-N + 1, N, dtype=torch.float64)
closed_form = torch.cos(k[:, None] * omega).sum(-1)  # sum_i cos(k w_i)
torch.testing.assert_close(dots[0], closed_form[N - 1 :])
print("every diagonal of PE PE^T is constant, and equals sum_i cos(k w_i)")
viz.dot_product_profiles(pe, [8, 24, 40])

# %% [markdown]
# ## A shift is a rotation
#
# Moving from $p$ to $p+k$ rotates each channel pair by the angle $k\,\omega_i$, whatever $p$ is:
# $PE(p+k) = R_k\,PE(p)$ with $R_k$ a block-diagonal matrix of 2×2 rotations. A fixed linear map
# turns "here" into "k steps further", so attention can learn to look at a given offset with one
# set of weights for every position. (RoPE, lesson 05, builds attention on exactly this rotation.)

# %%
def shift(k: int) -> torch.Tensor:
    """R_k: rotate every (sin, cos) pair by k * w_i."""
    R = torch.zeros(D, D, dtype=torch.float64)
    c, s = torch.cos(k * omega), torch.sin(k * omega)
    R[0::2, 0::2] = torch.diag(c)  # sin(a + b) = sin a cos b + cos a sin b
    R[0::2, 1::2] = torch.diag(s)
    R[1::2, 0::2] = torch.diag(-s)  # cos(a + b) = cos a cos b - sin a sin b
    R[1::2, 1::2] = torch.diag(c)
    return R


for k_ in (1, 5, 17):
    torch.testing.assert_close(pe[k_:], pe[:-k_] @ shift(k_).T)
print("PE(p + k) = R_k PE(p) for every p, with R_k independent of p")

# %% [markdown]
# ## Two dimensions
#
# An image has rows and columns. The 2-D encoding of MAE and many ViTs gives the first half of the
# channels the 1-D encoding of the row and the second half that of the column. Each half has the
# offset property, so the dot product of two patches depends only on $(\Delta r, \Delta c)$.

# %%
grid, D2 = (8, 8), 64
table = sincos_2d(grid, D2).double()
rc = grid_coords(grid)
torch.testing.assert_close(table[:, : D2 // 2].float(), sincos_1d(rc[:, 0], D2 // 2))  # rows
torch.testing.assert_close(table[:, D2 // 2 :].float(), sincos_1d(rc[:, 1], D2 // 2))  # columns

dots2 = (table @ table.T).reshape(-1)
offsets = relative_offsets(grid).reshape(-1, 2)
by_offset = {}
for value, (dr, dc) in zip(dots2.tolist(), offsets.tolist()):
    by_offset.setdefault((dr, dc), []).append(value)
assert all(max(v) - min(v) < 1e-5 for v in by_offset.values())  # float32 table
print(f"{len(by_offset)} different offsets; for each, every pair of patches has the same dot product")

# %% [markdown]
# The cosine similarity of one patch's vector to every other patch, drawn on the grid, is highest
# next to it and falls off with distance. Every patch's most similar other patch is a direct
# neighbour. The structure score (the correlation between similarity and closeness over all pairs,
# `minivit.analysis.structure_score`) sums this up in one number.

# %%
sim = analysis.cosine_similarity(table)
dist = analysis.grid_distances(grid)
centre = 3 * 8 + 3
near = sim[centre][(dist[centre] > 0) & (dist[centre] <= 1)].mean().item()
far = sim[centre][dist[centre] >= 4].mean().item()
others = sim - 2 * torch.eye(64)  # leave each position out of its own ranking
nearest = dist[torch.arange(64), others.argmax(1)]
print(f"patch (3, 3): similarity {near:.2f} to its neighbours, {far:.2f} to patches 4 or more away")
print(f"structure score: {analysis.structure_score(table, grid):.2f}")
assert near > far
assert (nearest == 1).all(), "every patch is most similar to a direct neighbour"
viz.similarity_grid(table, grid, title="sincos2d, D = 64: each patch's similarity to all others")

# %% [markdown]
# ## Width and base
#
# The base sets the slowest clock. With a large base and a small width, most channel pairs turn so
# slowly across a 16×16 grid that they are nearly constant, and every patch looks like every other.
# With a wide encoding there are enough pairs at every speed and the base matters little. This is
# why RoPE for images (lesson 05) uses a base of 100 rather than 10000.

# %%
big = (16, 16)
print("structure score on a 16x16 grid\n  base:  " + "  ".join(f"{b:>7g}" for b in (10, 100, 10000)))
scores = {}
for width in (16, 256):
    scores[width] = {b: analysis.structure_score(sincos_2d(big, width, b), big) for b in (10, 100, 10000)}
    print(f"D = {width:>3}: " + "  ".join(f"{s:7.2f}" for s in scores[width].values()))
assert scores[16][100] > scores[16][10000] + 0.3, "narrow: a large base leaves little structure"
assert max(scores[256].values()) - min(scores[256].values()) < 0.1, "wide: the base matters little"

# %% [markdown]
# ## Try it: width, base and position
#
# Move the sliders: the left panel is the table (one row per patch of an 8×8 grid, one column per
# channel; the first half encodes the row, the second the column), the right panel one patch's
# similarity to all the others.

# %% tags=["nbval-ignore-output"]
widgets.sincos_explorer(grid=(8, 8))

# %% [markdown]
# ## What we covered
#
# - The sinusoidal encoding gives position $p$ the pairs $(\sin p\omega_i, \cos p\omega_i)$ at
#   geometrically spaced frequencies; our formula matches `minivit.posenc.sincos_1d` exactly.
# - $PE(p)\cdot PE(q) = \sum_i \cos((q-p)\omega_i)$ depends only on the offset, and a shift by $k$
#   is the same rotation $R_k$ for every position.
# - The 2-D form concatenates a row encoding and a column encoding; its dot product depends only on
#   the 2-D offset, and every patch is most similar to its neighbours.
# - Width and base together decide how much of the layout shows: a narrow encoding needs a base
#   suited to the grid.
#
# ## Exercises
#
# 1. The dot product depends only on the offset, but is it *monotone* in the distance? Plot
#    `closed_form` for `D = 8` and find the first offset where it rises again.
# 2. Build a 2-D encoding that uses the 1-D encoding of the raster index $r \cdot g_w + c$ instead
#    (`minivit`'s `sincos1d`). Which patches look most similar to each other now?
# 3. `sincos2d` must be recomputed for a new grid. Compare the table of an 8×8 grid with the top-left
#    8×8 corner of a 12×12 grid's table. Why does a model trained at 8×8 see the same vectors there?
# 4. Concatenating rows and columns makes the similarity a sum of a row part and a column part.
#    What does that imply for the similarity of patches on a diagonal?
