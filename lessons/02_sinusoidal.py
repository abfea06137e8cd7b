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
# cosines at many frequencies. Think of a binary counter. Its lowest bit flips at every number, the
# next at every second number, the next at every fourth. The sinusoidal encoding does the same with
# smooth clock hands: its first pair of channels turns fastest, and each following pair more slowly.
# Nothing is learned, and it works for any number of positions. The similarity of two positions'
# vectors depends only on how far apart they are. Attention, though, does not compare the two
# vectors alone. This lesson also shows what is left of that property inside attention.
#
# **What you will learn**
# - the 1-D sinusoidal encoding, written from its formula and checked against `minivit`;
# - why $PE(p)\cdot PE(q)$ depends only on the offset $q-p$, why it cannot tell left from right,
#   and why a shift is a rotation;
# - why, added to the tokens, the encoding is *absolute* again inside attention, and what a rotation
#   of queries and keys (RoPE's idea) does instead;
# - the 2-D form used by ViTs (MAE): half the channels for one axis, half for the other;
# - how the width and the *base* decide how much of the 2-D layout the encoding shows.
#
# Runs top to bottom in about 15 seconds.

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
from matplotlib.figure import Figure

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
# The first pair turns by one radian per position: a wavelength of $2\pi \approx 6.3$ positions.
# Each following pair turns more slowly. The *base* sets how slowly the last one turns. Its
# wavelength is $2\pi\cdot\mathrm{base}^{1-2/D}$: 35,333 positions for $D = 32$ and base $10^4$.

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
torch.testing.assert_close(wavelengths[-1].item(), 2 * math.pi * base ** (1 - 2 / D))
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
# $PE(p+k) = R_k\,PE(p)$ with $R_k$ a block-diagonal matrix of 2×2 rotations. This is one reason
# Vaswani et al. (§3.5) give for choosing sinusoids. For any fixed offset $k$, $PE_{pos+k}$ is a
# linear function of $PE_{pos}$, so they hoped attention could learn to attend by relative
# position. (Their other reason: sinusoids may let a model handle sequences longer than any seen in
# training.) The next two sections test how far the hope goes.

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
# ## Left and right look the same
#
# The cosine is even. So $\sum_i \cos(k\,\omega_i)$ takes the same value at offset $k$ and $-k$: the
# similarity of two positions depends only on how far apart they are, not on which one comes first. A score
# $PE(p)^\top M\,PE(q)$ can tell them apart when $M$ mixes a pair's sine with its cosine. $M = R_1$
# does: $PE(p)^\top R_1 PE(q) = PE(p)\cdot PE(q+1)$, which peaks at the key one step *before* the
# query. Exercise 5 asks which $M$ keep the score a function of the offset and still tell $+k$
# from $-k$.

# %%
torch.testing.assert_close(closed_form, closed_form.flip(0))  # s(k) = s(-k)
query = N // 2
directed = pe[query] @ shift(1) @ pe.T  # PE(p)^T R_1 PE(q) for every key q
best = (directed.argmax() - query).item()
print(f"PE.PE at offsets -1 and +1: {closed_form[N - 2]:.3f} and {closed_form[N]:.3f}")
print(f"PE^T R_1 PE at offsets -1 and +1: {directed[query - 1]:.3f} and {directed[query + 1]:.3f}; largest at {best:+d}")
assert best == -1, "R_1 makes the score prefer the key one step to the left"

# %% [markdown]
# ## Inside attention, the added encoding is absolute again
#
# Attention does not score $PE(p)\cdot PE(q)$. The encoding is *added* to the content $x$ of each
# token. From here on the vectors are rows, $q_i = x_i W_q$ (lesson 01 wrote columns; only the
# transposes move). With $M = W_q W_k^\top/\sqrt{d}$, the score of query $i$ and key $j$ is
#
# $$(x_i + p_i)^\top M (x_j + p_j) = x_i^\top M x_j + x_i^\top M p_j + p_i^\top M x_j + p_i^\top M p_j .$$
#
# The two middle terms pair content with position: $x_i^\top M p_j$ changes as the key moves,
# whatever the offset. The last term depends on the offset alone only if $M$ commutes with every
# $R_k$, as $M = I$ does. (Since $p_i = R_i\,PE(0)$, the term is $PE(0)^\top R_i^\top M R_j\,PE(0)$, and
# then $R_i^\top M R_j = M R_{j-i}$, a function of $j - i$.) A learned
# $W_q W_k^\top$ in general does not commute.
#
# We check it with random weights and the *same* content at every position. Then any difference
# between two pairs at the same offset comes from where they are. Each diagonal of the score matrix
# holds the pairs at one offset. Our measure is the share of the score's variance left *within* the
# diagonals (`analysis.offset_dependence`). **It is 0 when the score depends on the offset alone**,
# and near 1 when the offset explains little. The course uses this measure wherever it asks "offset
# only?".
#
# Rotating instead of adding is what makes a score relative. Rotate the query by $R_i$ and the key by
# $R_j$: $(R_i q)^\top (R_j k) = q^\top R_{j-i}\, k$ depends on the offset alone, for *any*
# $W_q, W_k$. That is the idea of rotary position embedding (RoPE; Su et al. 2021, arXiv 2104.09864).

# %% tags=["nbval-ignore-output"]
g = torch.Generator().manual_seed(SEED)
W_q, W_k = (torch.randn(D, D, generator=g, dtype=torch.float64) / math.sqrt(D) for _ in range(2))
x = torch.randn(D, generator=g, dtype=torch.float64)  # one content vector, at every position


def within_offsets(S: torch.Tensor) -> float:
    """Share of the variance of S [N, N] left within offsets (its diagonals): 0 when S is a function of the offset."""
    return analysis.offset_dependence(S, (1, N))["fraction"].item()  # N positions in one row


tokens = x + pe  # (N, D): content plus position
added = (tokens @ W_q) @ (tokens @ W_k).T / math.sqrt(D)  # (N, N) scores with the encoding added
q, k = x @ W_q, x @ W_k
rotated = torch.stack([shift(i) @ q for i in range(N)]) @ torch.stack([shift(j) @ k for j in range(N)]).T / math.sqrt(D)
for name, S in (("added", added), ("rotated", rotated)):
    print(f"{name:>8}: share of the variance within offsets {within_offsets(S):.2g}")
lesson.claim("added to the content, the score depends on where the pair is", within_offsets(added), ">", 0.3, about="untrained")
assert within_offsets(rotated) < 1e-9, "rotated: only on the offset"

# %% [markdown]
# ## Two dimensions
#
# An image has rows and columns. The 2-D encoding of MAE (He et al. 2021, arXiv 2111.06377) and
# many ViTs gives half of the channels the 1-D encoding of the row and the other half that of the
# column. Each half has the offset property, so the dot product of two patches depends only on
# $(\Delta r, \Delta c)$. MAE and MoCo v3 keep this table fixed (`requires_grad=False`), as
# `minivit` does.

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
# next to it. It falls off more slowly along the patch's own row and column: a plus shape, because
# the 2-D encoding is a row part beside a column part. Every patch's most similar other patch is a
# direct neighbour. The structure score sums this up in one number: the correlation between
# similarity and closeness over all pairs (`analysis.structure_score`).

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
assert near > far + 0.1, "patches are more like their neighbours than like far patches"
assert (nearest == 1).all(), "every patch is most similar to a direct neighbour"
fig = Figure(figsize=(7.2, 3.2), layout="constrained")
for ax, patch in zip(fig.subplots(1, 2), (centre, 0), strict=True):
    viz.similarity_map(table, grid, patch, ax=ax)  # one colour scale: the table's lowest similarity to 1
fig

# %% [markdown]
# ## Width and base
#
# The width sets how many clocks there are; the base sets how slowly the last one turns. The table
# gives the structure score on a 16×16 grid, for a narrow and a wide encoding at three bases. A wide
# encoding has pairs at every speed, and the base matters little. A narrow one depends on it: at
# $D = 16$, base 100 keeps much more of the layout than base $10^4$. Going deeper shows why.

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
# Move the sliders. The left panel is the table: one row per patch of an 8×8 grid, one column per
# channel. Its first half encodes the row, the second the column. The right panel is one patch's
# similarity to all the others.

# %% tags=["nbval-ignore-output"]
widgets.sincos_explorer(grid=(8, 8))

# %% [markdown]
# ## Going deeper
#
# ### Why the narrow encoding loses the layout at base $10^4$
#
# At $D = 16$ each axis gets four pairs. At base $10^4$ they turn by 1, 0.1, 0.01 and 0.001 radians
# per patch. The two slow pairs hardly change across 16 patches. That alone cannot lower the score.
# Every row of the table has the same length, so the cosine similarity moves with the dot product,
# and a nearly constant pair only adds a constant: a correlation ignores it. The culprit is the
# fastest pair. Its wavelength, 6.3 patches, is shorter than the 16-patch grid. So its similarity
# rises again six patches away: far patches look near. The second pair (0.1 radians a patch) does
# carry the layout: it turns by 1.5 radians across the grid. But its similarity varies less across
# the grid than the fastest pair's, so it does not outweigh it. We drop pairs and score again.

# %%
narrow = sincos_2d(big, 16, 10000.0)  # (256, 16): the row's 4 pairs, then the column's


def pairs(*keep: int) -> torch.Tensor:
    """The narrow table with only the given channel pairs of each axis (0 = the fastest)."""
    return narrow[:, [axis + 2 * i + j for axis in (0, 8) for i in keep for j in (0, 1)]]


without_slow = analysis.structure_score(pairs(0, 1), big)
without_fastest = analysis.structure_score(pairs(1, 2, 3), big)
fastest_alone = analysis.structure_score(pairs(0), big)
print(f"D = 16, base 1e4: all pairs {scores[16][10000]:.3f}; without the two slowest {without_slow:.3f}; "
      f"without the fastest {without_fastest:.3f}; the fastest alone {fastest_alone:.3f}")
assert abs(without_slow - scores[16][10000]) < 0.02, "the slow pairs do not lower the score"
assert without_fastest > 0.9 and fastest_alone < 0.1, "the fastest pair (wavelength 6.3 < 16 patches) causes the drop"
head64 = {b: analysis.structure_score(sincos_2d(big, 64, b), big) for b in (100, 10000)}
print(f"D = 64: base 100 {head64[100]:.2f}, base 1e4 {head64[10000]:.2f}")
assert 0 < head64[100] - head64[10000] < 0.1, "at D = 64 the base matters much less than at D = 16"

# %% [markdown]
# RoPE for images works with narrow widths too: half of one head's channels per axis. RoPE-ViT's code
# uses a base of 100 for it rather than 10000. A head of 64 channels gives each axis 16 frequencies,
# like `sincos2d` with $D = 64$, where base 100 gains little (printed above). A head of 16 channels,
# as in lesson 05's RoPE model, gives each axis 4 frequencies, like $D = 16$. There base 100 keeps
# the layout and base $10^4$ loses it.
#
# ### MAE's channel order
#
# `minivit` puts the row first and interleaves sine and cosine, as in its 1-D form. MAE's code puts
# the *column* first (`np.meshgrid(grid_w, grid_h)`, "here w goes first"). It also writes all the
# sines of a half before all its cosines. The two tables hold the same numbers in another channel
# order, so every dot product is the same. We build MAE's layout and check. How much the 2-D form
# buys at scale is another matter. In ViT's ablation (Appendix D.4, lesson 00), learned 1-D and 2-D
# embeddings scored within a fraction of a point of each other.

# %%
half = D2 // 2


def mae_1d(positions: torch.Tensor) -> torch.Tensor:
    """MAE's get_1d_sincos_pos_embed_from_grid: [sin | cos] with omega = base^(-2i/half)."""
    angles = positions.double()[:, None] * base ** (-torch.arange(half // 2, dtype=torch.float64) / (half / 2))
    return torch.cat([angles.sin(), angles.cos()], dim=-1)  # (N, half)


mae = torch.cat([mae_1d(rc[:, 1]), mae_1d(rc[:, 0])], dim=-1)  # column first, as MAE's meshgrid gives
i = torch.arange(half // 2)
perm = torch.cat([half + 2 * i, half + 2 * i + 1, 2 * i, 2 * i + 1])  # minivit's channel for each of MAE's
torch.testing.assert_close(mae, table[:, perm], atol=1e-6, rtol=0)  # the same numbers, reordered
torch.testing.assert_close(mae @ mae.T, table @ table.T, atol=1e-5, rtol=0)  # so the same dot products
print("MAE's table == minivit's sincos2d, channels reordered")

# %% [markdown]
# ### Left, right and the other encodings
#
# A general $M$ can tell $+k$ from $-k$ too. Its part that commutes with every $R_k$ scores by the
# offset alone and can be odd in it, as $M = R_1$ is (exercise 5). The rest of $M$ adds terms that
# depend on where the pair is. The symmetric distance bias ALiBi uses for images (lesson 06) is
# blind to direction in the same way as $PE\cdot PE$. Causal ALiBi in a language model gets
# direction from its mask instead. Ke et al. (2021, TUPE, arXiv 2006.15595) analyse the cross terms
# of an added encoding in BERT.

# %% [markdown]
# ## What we covered
#
# Points marked *(Going deeper)* come from the optional section; the others, from the main path.
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - The sinusoidal encoding gives position $p$ the pairs $(\sin p\omega_i, \cos p\omega_i)$ at
#   geometrically spaced frequencies; our formula matches `minivit.posenc.sincos_1d` exactly.
#   The slowest wavelength is $2\pi\cdot\mathrm{base}^{1-2/D}$.
# - $PE(p)\cdot PE(q) = \sum_i \cos((q-p)\omega_i)$ depends only on the offset, is even in it (left
#   and right look alike), and a shift by $k$ is the same rotation $R_k$ for every position.
# - Inside attention the added encoding meets the content: the cross terms $x_i^\top M p_j$ and
#   $p_i^\top M x_j$, and a general $M$, make the score depend on where a pair is, not only on its
#   offset (share of the variance within offsets well above 0). Rotating queries and keys instead
#   gives a score of the offset alone (share 0): RoPE's idea.
# - The 2-D form concatenates a row encoding and a column encoding; its dot product depends only on
#   the 2-D offset, and every patch is most similar to its neighbours. MAE's code puts the column
#   first, sines then cosines: the same table up to a channel order *(Going deeper)*.
# - Width and base together decide how much of the layout shows: a narrow encoding needs a base
#   suited to the grid. At $D = 16$ and base $10^4$ the fastest pair, whose wavelength (6.3) is
#   shorter than the grid, costs the layout; the slow pairs do not *(Going deeper)*.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. The dot product depends only on the offset, but is it *monotone* in the distance? Plot
#    `closed_form` for `D = 8` and find the first offset where it rises again: `answer_02_1 = k`,
#    the first $k > 0$ with $s(k) > s(k-1)$.

# %% tags=["exercise"]
from minivit import exercises

answer_02_1 = ...  # your code

# %% tags=["exercise"]
exercises.check("02.1", answer_02_1)

# %% [markdown]
# 2. Build a 2-D encoding that uses the 1-D encoding of the raster index $r \cdot g_w + c$ instead
#    (`minivit`'s `sincos1d`), on the 8×8 grid with $D = 64$. Which patches look most similar to
#    each other now? Answer with the patch most similar to (0, 7) other than its left neighbour (0,
#    6): `answer_02_2 = (row, col)`.

# %% tags=["exercise"]
answer_02_2 = ...  # your code

# %% tags=["exercise"]
exercises.check("02.2", answer_02_2)

# %% [markdown]
# 3. `sincos2d` must be recomputed for a new grid. Write `answer_02_3(table, grid, size)`: the rows
#    of a table [gh·gw, D] (raster order) that belong to the top-left size×size corner of the grid,
#    in raster order. Compare the table of an 8×8 grid with the top-left 8×8 corner of a 12×12
#    grid's table. Why does a model trained at 8×8 see the same vectors there?

# %% tags=["exercise"]
answer_02_3 = ...  # your code

# %% tags=["exercise"]
exercises.check("02.3", answer_02_3)

# %% [markdown]
# 4. Concatenating rows and columns makes the similarity a sum of a row part and a column part.
#    Write `answer_02_4(s_row, s_col, s_same)`: the dot product $PE(p)\cdot PE(q)$ of two patches at
#    offset $(\Delta r, \Delta c)$, from $s_{row} = PE(p)\cdot PE(p + (\Delta r, 0))$, $s_{col} =
#    PE(p)\cdot PE(p + (0, \Delta c))$ and $s_{same} = PE(p)\cdot PE(p)$. What does that imply for
#    the similarity of patches on a diagonal?

# %% tags=["exercise"]
answer_02_4 = ...  # your code

# %% tags=["exercise"]
exercises.check("02.4", answer_02_4)

# %% [markdown]
# 5. Which matrices $M$ make $p_i^\top M p_j$ depend on the offset alone? Build one that commutes
#    with every $R_k$ (a 2×2 block $\begin{pmatrix} a & b \\ -b & a \end{pmatrix}$ per channel
#    pair), with random $a, b$, and check the diagonals of `pe @ M @ pe.T`. `answer_02_5 = M` ($32
#    \times 32$, for the lesson's `pe`) must score by the offset alone and tell $+k$ from $-k$. Then
#    add the content $x$ back.

# %% tags=["exercise"]
answer_02_5 = ...  # your code

# %% tags=["exercise"]
exercises.check("02.5", answer_02_5)

# %% [markdown]
# 6. Going deeper blames the fastest pair: its wavelength is shorter than the grid. Write
#    `answer_02_6(dim, base, size)`: how many channel pairs of *one axis* of `sincos2d` (width `dim`)
#    have a wavelength shorter than `size` patches. How many are there at D = 16, base $10^4$ on the
#    16×16 grid, and at D = 64, base 100?

# %% tags=["exercise"]
answer_02_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("02.6", answer_02_6)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | the formula by hand is `minivit`'s `sincos_1d` | `torch.testing.assert_close(pe.float(), sincos_1d(p.float(), D, base))` | sine and cosine swap places, or another base |
# | the 2-D table gives half the channels the row's 1-D encoding and the other half the column's | `torch.testing.assert_close(table[:, : D2 // 2].float(), sincos_1d(rc[:, 0], D2 // 2))` `torch.testing.assert_close(table[:, D2 // 2 :].float(), sincos_1d(rc[:, 1], D2 // 2))` | the halves are swapped (the column first) |
# | the slowest wavelength is 2π·base^(1−2/D) | `torch.testing.assert_close(wavelengths[-1].item(), 2 * math.pi * base ** (1 - 2 / D))` | it is taken as 2π·base (62,832 against 35,333) |
# | PE·PE depends only on the offset, as Σ cos(kω) | `torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal))` `torch.testing.assert_close(dots[0], closed_form[N - 1 :])` | a table that is no function of the offset, e.g. its rows shuffled |
# | a shift by k is one rotation R_k for every position | `torch.testing.assert_close(pe[k_:], pe[:-k_] @ shift(k_).T)` | R_k rotates the other way (signs of the sines swapped) |
# | PE·PE is even in the offset: left and right look alike | `torch.testing.assert_close(closed_form, closed_form.flip(0))` | the score has a sine part, e.g. PE(p)ᵀ R_1 PE(q) |
# | an M that mixes sine and cosine tells left from right | `assert best == -1` | M = I: the best key is the query itself (0) |
# | added to the content, the encoding makes attention scores absolute | `lesson.claim("added to the content, the score depends on where the pair is", within_offsets(added), ">", 0.3, about="untrained")` | queries and keys are rotated instead (share within offsets about 1e-30) |
# | rotating queries and keys makes them relative, for any weights | `assert within_offsets(rotated) < 1e-9, "rotated: only on the offset"` | only the query is rotated (the key stays put) |
# | MAE's 2-D table is minivit's with the channels reordered | `torch.testing.assert_close(mae, table[:, perm], atol=1e-6, rtol=0)` `torch.testing.assert_close(mae @ mae.T, table @ table.T, atol=1e-5, rtol=0)` | MAE's table is built with the row first (the first assert), or with other frequencies, e.g. base^(−i/half) (both) |
# | the 2-D dot product depends only on (Δr, Δc) | `assert all(max(v) - min(v) < 1e-5 for v in by_offset.values())` | the table's rows are shuffled (the 1-D encoding of the raster index still passes: its offset r·g_w + c is a function of (Δr, Δc)) |
# | every patch is most like its direct neighbours | `assert near > far + 0.1, "patches are more like their neighbours than like far patches"` `assert (nearest == 1).all(), "every patch is most similar to a direct neighbour"` | the table's rows are shuffled (no layout) |
# | a narrow encoding needs a base suited to the grid; a wide one hardly cares | `assert scores[16][100] > scores[16][10000] + 0.3, "narrow: a large base leaves little structure"` `assert max(scores[256].values()) - min(scores[256].values()) < 0.1, "wide: the base matters little"` | base 100 is used where 10000 is asked (the narrow scores then tie: 0.71 and 0.71) |
# | the fastest pair, not the slow ones, costs the narrow table its layout at base 10⁴ (Going deeper) | `assert abs(without_slow - scores[16][10000]) < 0.02, "the slow pairs do not lower the score"` `assert without_fastest > 0.9 and fastest_alone < 0.1, "the fastest pair (wavelength 6.3 < 16 patches) causes the drop"` | the two fast pairs are dropped instead of the two slow ones (0.97 against 0.27) |
# | at $D = 64$ the base matters much less (Going deeper) | `assert 0 < head64[100] - head64[10000] < 0.1, "at D = 64 the base matters much less than at D = 16"` | $D = 16$ is used (a gap of 0.44) |
