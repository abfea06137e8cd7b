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
# # 05 · RoPE: position as a rotation of queries and keys
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/05_rope.ipynb)
#
# Lesson 02 ended on a problem and sketched a fix; this lesson builds the fix in full. Two
# sinusoids' dot product depends only on their offset, but added to the tokens the encoding does not
# keep that property inside attention. So turn the question
# round: what would an encoding look like whose score depends only on the offset?
#
# Think of a query and a key as arrows. Their dot product depends on their lengths and on the angle
# between them. Turn both arrows by the same angle and the dot product stays the same. Rotary
# position embedding (RoPE; Su et al. 2021, arXiv 2104.09864) turns the query at position $m$ by
# the angle $m\theta$ and the key at position $n$ by $n\theta$. The angle between them changes by
# $(n-m)\theta$, so the score depends on the offset $n-m$ alone. Nothing is added to the tokens.
# For images, the rotation has two directions to turn in (Heo et al. 2024, arXiv 2403.13298).
#
# **What you will learn**
# - the rotation of channel pairs, by hand and checked against `minivit`;
# - why the rotated score depends only on the offset, and an added encoding's does not;
# - 2-D axial RoPE: a row part plus a column part, which cannot couple rows with columns;
# - mixed RoPE, whose frequency directions are learned, trained on a task about position.
#
# Runs top to bottom in about a minute on a laptop CPU.

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
from minivit import ViT, ViTConfig, analysis, lesson, viz, widgets
from minivit.data import relation
from minivit.evaluate import evaluate, predict
from minivit.posenc import build, relative_offsets, rotate_pairs, sincos_1d
from minivit.train import default_warmup, fit, lr_at

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## Rotating pairs of channels
#
# Split a query $q$ of width $d$ into $d/2$ pairs $(q_{2i}, q_{2i+1})$. At position $m$, pair $i$ is
# rotated by the angle $m\,\theta_i$, with frequencies $\theta_i = \mathrm{base}^{-2i/d}$ as in the
# sinusoidal encoding of lesson 02:
#
# $$\begin{pmatrix} q'_{2i} \\ q'_{2i+1}\end{pmatrix} = \begin{pmatrix}\cos m\theta_i & -\sin m\theta_i\\ \sin m\theta_i & \cos m\theta_i\end{pmatrix}\begin{pmatrix} q_{2i} \\ q_{2i+1}\end{pmatrix}.$$
#
# Keys are rotated the same way. Values are left alone.

# %%
d, base, N = 16, 10000.0, 12
theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
positions = torch.arange(N, dtype=torch.float64)
angles = positions[:, None] * theta  # (N, d/2)
q = torch.randn(N, d, dtype=torch.float64)
k = torch.randn(N, d, dtype=torch.float64)

q1, q2 = q[:, 0::2], q[:, 1::2]
q_rot = torch.stack([q1 * angles.cos() - q2 * angles.sin(), q1 * angles.sin() + q2 * angles.cos()], -1).flatten(1)
torch.testing.assert_close(q_rot, rotate_pairs(q, angles), atol=1e-6, rtol=0)

enc = build("rope1d", dim=d, heads=1, depth=1, grid=(1, N))
q_pkg, k_pkg = enc.rotate(q[None, None].float(), k[None, None].float(), (1, N), layer=0)
torch.testing.assert_close(q_pkg[0, 0].double(), q_rot, atol=1e-5, rtol=0)
torch.testing.assert_close(q_rot.norm(dim=-1), q.norm(dim=-1))
print("by hand == minivit's rope1d; every rotated query keeps its length")

# %% [markdown]
# ## The score depends only on the offset
#
# Write each pair $j$ as a complex number. Rotating by $m\theta_j$ multiplies it by
# $e^{\mathrm{i} m\theta_j}$. So the dot product of a rotated query at $m$ and a rotated key at $n$ is
#
# $$\mathrm{Re}\sum_j q_j\,\overline{k_j}\,e^{-\mathrm{i}(n-m)\theta_j},$$
#
# which depends on $m$ and $n$ only through the offset $n-m$. Put the *same* query at every
# position and the same key at every position. Then every diagonal of the score matrix is constant:
# one colour per diagonal in the picture.

# %%
same_q = torch.randn(d, dtype=torch.float64).expand(N, d)
same_k = torch.randn(d, dtype=torch.float64).expand(N, d)
scores = rotate_pairs(same_q, angles) @ rotate_pairs(same_k, angles).T  # (N, N)
for offset in range(-N + 1, N):
    diagonal = torch.diagonal(scores, offset)
    torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal), atol=1e-5, rtol=0)
print("score(m, n) depends only on n - m: every diagonal is constant")


def score_matrices(panels):
    """Score matrices {title: [N, N]} side by side, query m down, key n across, each with its colour bar."""
    fig = Figure(figsize=(3.8 * len(panels), 3.3), layout="constrained")
    for ax, (title, s) in zip(fig.subplots(1, len(panels), squeeze=False)[0], panels.items(), strict=True):
        lim = s.abs().max().item()
        im = ax.imshow(s.numpy(), cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
        ax.set(title=title, xlabel="key position n", ylabel="query position m")
        fig.colorbar(im, ax=ax, shrink=0.8, label="score")
    return fig


score_matrices({"rotated q and k: one colour per diagonal": scores})

# %% [markdown]
# ## Why rotate, and not add?
#
# Attention never computes $p_m\cdot p_n$ alone. With the encoding *added* to the tokens, the score
# of query $m$ and key $n$ has four terms, as in lesson 02 (row vectors, $M = W_q W_k^\top$):
#
# $$(x_m + p_m) M (x_n + p_n)^\top = \underbrace{x_m M x_n^\top}_{\text{content}} +
# \underbrace{x_m M p_n^\top + p_m M x_n^\top}_{\text{content}\times\text{position}} +
# \underbrace{p_m M p_n^\top}_{\text{position}} .$$
#
# The cross terms depend on where the key (or the query) *is*, not only on the offset. RoPE rotates
# *after* the projections. With $q = x_m W_q$ and $k = x_n W_k$, the score is
# $(R_m q)\cdot(R_n k) = q^\top R_{n-m}\,k$, for any $W_q, W_k$.
#
# We put the same content $x$ at every position and take random $W_q, W_k$. Then we measure how much
# of each score matrix is *not* a function of the offset: the share of its variance left within the
# diagonals (`analysis.offset_dependence`, lesson 02's measure). **0 means offset-only.**

# %% tags=["nbval-ignore-output"]
gen = torch.Generator().manual_seed(SEED)
w_q, w_k = (torch.randn(d, d, dtype=torch.float64, generator=gen) / d**0.5 for _ in range(2))
x = torch.randn(d, dtype=torch.float64, generator=gen).expand(N, d)  # the same content everywhere
p = sincos_1d(positions, d)  # (N, d), lesson 02's encoding


def by_offset(s):
    """The mean of each diagonal of a score matrix [N, N], offsets -(N-1) .. N-1."""
    return torch.stack([torch.diagonal(s, o).mean() for o in range(-N + 1, N)])


def within_offsets(s):
    """Share of the variance of a score matrix [N, N] left within offsets: 0 when it is a function of n - m."""
    return analysis.offset_dependence(s, (1, N))["fraction"].item()  # N positions in one row


added = {
    "position . position, M = I (lesson 02)": p @ p.T,
    "content x position": (x @ w_q) @ (p @ w_k).T + (p @ w_q) @ (x @ w_k).T,
    "position . position, random M": (p @ w_q) @ (p @ w_k).T,
    "added: all four terms": ((x + p) @ w_q) @ ((x + p) @ w_k).T,
}
rotated = rotate_pairs(x @ w_q, angles) @ rotate_pairs(x @ w_k, angles).T
for name, s_ in [*added.items(), ("rotated (RoPE)", rotated)]:
    print(f"{name:>40}: share within offsets {within_offsets(s_):.2f}")
rope_by_offset = by_offset(rotated)
direction = ((rope_by_offset - rope_by_offset.flip(0)).abs().max() / rope_by_offset.abs().max()).item()
print(f"RoPE: score(+k) and score(-k) differ by up to {direction:.0%} of the largest score")

# %% tags=["nbval-ignore-output"]
def shares(draws):
    """Share within offsets of the added and of the rotated score, for `draws` new random x, W_q, W_k."""
    added_, rotated_ = [], []
    for _ in range(draws):
        wq, wk = (torch.randn(d, d, dtype=torch.float64, generator=gen) / d**0.5 for _ in range(2))
        c = torch.randn(d, dtype=torch.float64, generator=gen).expand(N, d)
        added_.append(within_offsets(((c + p) @ wq) @ ((c + p) @ wk).T))
        rotated_.append(within_offsets(rotate_pairs(c @ wq, angles) @ rotate_pairs(c @ wk, angles).T))
    return torch.tensor(added_), torch.tensor(rotated_)


many_added, many_rotated = shares(200)
print(f"200 more draws: added {many_added.min():.2f} to {many_added.max():.2f} "
      f"(median {many_added.median():.2f}); rotated at most {many_rotated.max():.0e}")

# %%
assert within_offsets(added["position . position, M = I (lesson 02)"]) < 1e-9
lesson.claim("added sinusoids are absolute inside attention: median share within offsets over 200 draws above 0.7", many_added.median(), ">", 0.7, about="untrained")
assert within_offsets(rotated) < 1e-9 and many_rotated.max() < 1e-9, "RoPE: a function of the offset, for any W_q, W_k"
pe_by_offset = by_offset(added["position . position, M = I (lesson 02)"])
torch.testing.assert_close(pe_by_offset, pe_by_offset.flip(0))  # p_m . p_n is even in the offset
lesson.claim("RoPE's score tells +k from -k", direction, ">", 0.05, about="untrained")
score_matrices({"added sinusoid, random W": added["added: all four terms"], "rotated (RoPE), random W": rotated})

# %% [markdown]
# Added sinusoids are absolute inside attention. The cross terms alone leave much of the variance
# within offsets. How much depends on the random weights: over 200 more draws (the last line
# printed) the share runs from a few tenths, or less, to nearly 1, with a median near 0.8. RoPE's
# stays at 0 on every draw. A random $M$ breaks even the position term. That is the reason RoPE
# exists: its diagonals stay one colour.
#
# RoPE's score also tells left from right (the line "RoPE: score(+k) and score(-k) differ" above).
# The sinusoids' own $p_m\cdot p_n = \sum_i\cos((n-m)\,\omega_i)$ cannot: it is *even* in the offset.

# %% [markdown]
# ## Two dimensions: axial RoPE
#
# A patch has a row and a column. Axial RoPE (RoPE-ViT) rotates the first half of the pairs by the
# column and the second half by the row. Its frequencies are $\mathrm{base}^{-4i/d}$ with a base of
# 100, RoPE-ViT's choice. Each axis gets only $d/4$ frequencies, and a grid spans a few dozen
# patches. Lesson 02 showed that a narrow encoding on a small grid needs a small base.
#
# Each pair turns with the row *or* with the column, never both. So the score is a part that
# depends only on $\Delta r$ plus a part that depends only on $\Delta c$:
#
# $$s(\Delta r, \Delta c) = f(\Delta r) + g(\Delta c), \qquad\text{so}\qquad s(\Delta r, \Delta c) - s(\Delta r, 0) - s(0, \Delta c) + s(0, 0) = 0 .$$
#
# A head can still favour a diagonal neighbour. If $f$ peaks at $\Delta r = 1$ and $g$ at
# $\Delta c = 1$, the sum peaks at $(1, 1)$. What a sum cannot do is make the preference along one
# axis depend on the other. Take $\Delta r = 1$ and $\Delta r = 0$ in the identity:
#
# $$s(1, 1) - s(1, -1) = s(0, 1) - s(0, -1).$$
#
# One step right gains the same, whether or not it comes with a step down. So axial RoPE cannot
# draw an oriented stripe, high along the diagonal $\Delta r = \Delta c$ and low along the
# anti-diagonal. Heo et al. motivate mixed RoPE by axial RoPE's trouble with diagonal directions.
# This identity is that trouble, exactly. A plane wave of mixed RoPE (next section) pointing across
# the diagonal draws the stripe.
#
# Below, a fixed $q$ and $k$ sit at every patch. We draw their score as a function of the offset,
# key minus query. First random $q, k$ (the identity holds for any). Then $q$ = ones and a key turned
# back by one step down and one right: axial RoPE's score peaks at $(1, 1)$. Last, $q = k$ = ones
# with every mixed-RoPE frequency along $(1, -1)$: a stripe along the diagonal.

# %% tags=["nbval-ignore-output"]
grid, dh = (6, 6), 16


def score_by_offset(encoding, qv, kv, layer=0, head=0):
    """Score of query qv and key kv [Dh] placed at every patch, as a function of the 2-D offset
    (key - query): [2gh - 1, 2gw - 1]."""
    n = grid[0] * grid[1]
    qq, kk = qv.expand(1, encoding.heads, n, dh), kv.expand(1, encoding.heads, n, dh)
    qr, kr = encoding.rotate(qq, kk, grid, layer)
    s = (qr @ kr.transpose(-2, -1))[0, head]  # (N, N)
    off = -relative_offsets(grid)  # key minus query
    table = torch.zeros(2 * grid[0] - 1, 2 * grid[1] - 1)
    table[off[..., 0] + grid[0] - 1, off[..., 1] + grid[1] - 1] = s
    return table


def at(t, dr, dc):
    """The score at offset (dr, dc) of a table from score_by_offset."""
    return t[dr + grid[0] - 1, dc + grid[1] - 1].item()


def interaction(t):
    """[s(1, 1) - s(1, -1)] - [s(0, 1) - s(0, -1)]: zero when rows and columns do not interact."""
    return (at(t, 1, 1) - at(t, 1, -1)) - (at(t, 0, 1) - at(t, 0, -1))


def diagonal_part(t):
    """s(dr, dc) - s(dr, 0) - s(0, dc) + s(0, 0) at every offset: zero for a row part plus a column part."""
    cr, cc = grid[0] - 1, grid[1] - 1
    return t - t[:, cc : cc + 1] - t[cr : cr + 1, :] + t[cr, cc]


gen = torch.Generator().manual_seed(SEED + 1)
qv, kv = torch.randn(dh, generator=gen), torch.randn(dh, generator=gen)
axial = build("rope-axial", dim=dh, heads=1, depth=1, grid=grid)
axial_scores = score_by_offset(axial, qv, kv)
down_right = torch.cat([axial.freqs, axial.freqs])  # angles of offset (1, 1): column pairs, then row pairs
ones = torch.ones(dh)
peaked = score_by_offset(axial, ones, rotate_pairs(ones, -down_right))  # the key turned back by (1, 1)

with torch.no_grad():
    mag = 100.0 ** (-torch.arange(0, dh, 4).double() / dh)  # the axial magnitudes, base 100
    across = build("rope-mixed", dim=dh, heads=1, depth=1, grid=grid)
    across.freqs[0, 0, 0] = (mag.repeat(2) / math.sqrt(2)).float()  # f_x: every pair along (1, -1)
    across.freqs[0, 1, 0] = (-mag.repeat(2) / math.sqrt(2)).float()  # f_y
stripe = score_by_offset(across, ones, ones)

axial_diag = diagonal_part(axial_scores).abs().max().item()
peak = divmod(peaked.argmax().item(), peaked.shape[1])
peak = (peak[0] - grid[0] + 1, peak[1] - grid[1] + 1)
print(f"axial, random q, k: largest diagonal part {'< 1e-4' if axial_diag < 1e-4 else axial_diag}; "
      f"s(1,1) - s(1,-1) = {at(axial_scores, 1, 1) - at(axial_scores, 1, -1):.3f}, "
      f"s(0,1) - s(0,-1) = {at(axial_scores, 0, 1) - at(axial_scores, 0, -1):.3f}")
print(f"axial, key turned back by (1, 1): highest score at offset {peak}; "
      f"s(1,1) - s(1,-1) = {at(peaked, 1, 1) - at(peaked, 1, -1):.3f}, s(0,1) - s(0,-1) = {at(peaked, 0, 1) - at(peaked, 0, -1):.3f}")
print(f"mixed across the diagonal, q = k = ones: s(1,1) - s(1,-1) = {at(stripe, 1, 1) - at(stripe, 1, -1):.3f}, "
      f"s(0,1) - s(0,-1) = {at(stripe, 0, 1) - at(stripe, 0, -1):.3f}")

# %%
assert axial_diag < 1e-4, "axial: a row part plus a column part, for any q and k"
assert peak == (1, 1), "axial RoPE can single out the diagonal neighbour"
assert abs(interaction(peaked)) < 1e-4 and abs(interaction(axial_scores)) < 1e-4
lesson.claim("a mixed plane wave couples rows and columns", interaction(stripe) / stripe.max(), ">", 0.1, about="untrained")
viz.offset_tables({"axial, random q, k": axial_scores, "axial, key turned back by (1, 1)": peaked,
                   "mixed across the diagonal": stripe})

# %% [markdown]
# ## Mixed RoPE: frequencies that point anywhere
#
# Mixed RoPE (Heo et al. 2024) gives every pair a 2-D frequency $(f_x, f_y)$ and rotates it by
# $f_x\,c + f_y\,r$: a plane wave across the image in any direction. Half the pairs start along a
# random direction per head, half perpendicular to it. The frequencies are *learned*, one set per
# head and block.
#
# Their lengths start from axial RoPE's formula $\mathrm{base}^{-4i/d}$, but with base 10, not 100.
# That is RoPE-ViT's code: 100 for axial RoPE, 10 for mixed RoPE. So the learned frequencies start
# faster than the fixed axial ones (printed below). Mixed RoPE with every direction along a row or a
# column *and* base-100 lengths is axial RoPE exactly (checked below).

# %%
start = build("rope-mixed", dim=dh, heads=1, depth=1, grid=grid).freqs[0, :, 0].norm(dim=0)  # (Dh/2,) lengths
torch.testing.assert_close(start.double(), (10.0 ** (-torch.arange(0, dh, 4).double() / dh)).repeat(2), atol=1e-6, rtol=0)
print("lengths per patch, base 100 (axial):", " ".join(f"{v:.2f}" for v in mag.tolist()))
print("lengths per patch, base 10 (mixed): ", " ".join(f"{v:.2f}" for v in start[: dh // 4].tolist()))
with torch.no_grad():
    aligned = build("rope-mixed", dim=dh, heads=1, depth=1, grid=grid)
    aligned.freqs[0, 0, 0] = torch.cat([mag, torch.zeros(dh // 4)]).float()  # f_x: first half along columns
    aligned.freqs[0, 1, 0] = torch.cat([torch.zeros(dh // 4), mag]).float()  # f_y: second half along rows
torch.testing.assert_close(score_by_offset(aligned, qv, kv), axial_scores, atol=1e-5, rtol=0)
print("mixed RoPE with axis-aligned frequencies and base-100 lengths == axial RoPE")

# %% [markdown]
# ## Mixed RoPE, trained
#
# We train a ViT with mixed RoPE on the relation task: is the circle left of, right of, above or
# below the square? Then we evaluate the trained model three ways. As it is; with its frequencies
# put back to where they started; and with all frequencies set to zero. Zero means no rotation at
# all: the same weights without position.

# %% tags=["nbval-ignore-output"]
data, test = relation(4096, seed=SEED), relation(1000, seed=SEED + 1)
config = ViTConfig(image_size=24, patch_size=8, num_classes=4, heads=4, position="rope-mixed")
torch.manual_seed(SEED)
model = ViT(config)
before = model.pos.freqs.detach().clone()  # (blocks, xy, heads, pairs)
history = fit(model, data, steps=800, lr=3e-3, eval_data=test, desc="rope-mixed", seed=SEED)
after = model.pos.freqs.detach().clone()
accuracy = evaluate(model, test)
axis_accuracy = ((predict(model, test.images) // 2) == (test.labels // 2)).float().mean().item()
with torch.no_grad():
    model.pos.freqs.copy_(before)
    with_initial = evaluate(model, test)
    model.pos.freqs.zero_()
    no_rotation = evaluate(model, test)
    model.pos.freqs.copy_(after)
moved = ((after - before).norm() / before.norm()).item()  # the frequencies' change, relative to their size
reach = sum(lr_at(step, steps=800, lr=3e-3, warmup=default_warmup(800)) for step in range(800))  # lesson 04
turn = (torch.atan2(after[:, 1], after[:, 0]) - torch.atan2(before[:, 1], before[:, 0])).abs()
turn = torch.minimum(turn, 2 * math.pi - turn)
length = ((after.norm(dim=1) / before.norm(dim=1)) - 1).abs().mean()
axis = {name: (2 * torch.atan2(f[:, 1], f[:, 0])).sin().abs().mean().item() for name, f in (("before", before), ("after", after))}
print(f"accuracy {accuracy:.2f}; row pair or column pair right: {axis_accuracy:.2f}")
print(f"with the initial frequencies {with_initial:.2f}; with no rotation {no_rotation:.2f} (chance 0.25)")
print(f"the frequencies moved by {moved:.0%} of their size; the largest entry by {(after - before).abs().max():.2f} "
      f"(entries up to {before.abs().max():.2f}; Adam's reach in 800 steps: {reach:.2f})")
print(f"frequencies turned by {turn.mean() * 180 / math.pi:.0f} degrees on average, lengths changed by {length:.0%}; "
      f"mean |sin 2 angle| {axis['before']:.2f} -> {axis['after']:.2f} (0 along an axis, 1 at 45 degrees)")

# %% [markdown]
# The task has four answers, so chance is 0.25. With the frequencies set to zero the same weights
# are back at chance, as they must be. A model without position cannot do better (lesson 00). This
# is a sanity check that the rotations are the model's only source of position. It is not a finding
# about what the model learned.
#
# With its rotations, mixed RoPE learns at least the axis: every run tells a pair on a row from a
# pair on a column (asserted; chance 0.5 for that question). How far it gets with the rest in 800
# steps depends on the seed. A run can sit on a plateau near 0.5; the first line's second number
# says what that plateau is. A run on the plateau has not yet learned which way round the pair is.
#
# Put the frequencies back where they started and compare the second line with the first. In the
# committed run almost nothing is lost (0.89 with the trained frequencies, 0.88 with the starting
# ones): in this run the starting frequencies serve the model about as well. The model needs its
# rotations (without them it is at chance). Whether it needs the way training moved their
# frequencies changes from run to run. Going deeper looks at how far they moved.

# %%
lesson.claim("every run tells a row pair from a column pair (chance 0.5)", axis_accuracy, ">", 0.9)
lesson.claim("without its rotations the same model is at chance", no_rotation - 0.25, "<", 0.05, about="absence")

# %% [markdown]
# ## Try it: base, frequency, direction
#
# Left: the score of one pair as a function of the 2-D offset, a plane wave whose spacing is set by
# the base and frequency index and whose direction you choose. Right: all pairs together, half along
# the direction and half perpendicular, as mixed RoPE starts (at 0° this is axial RoPE).

# %% tags=["nbval-ignore-output"]
widgets.rope_explorer(head_dim=32)

# %% [markdown]
# ## Going deeper
#
# ### Two layouts of the pairs
#
# RoFormer, RoPE-ViT and `minivit` pair neighbouring channels $(2i, 2i+1)$. GPT-NeoX and Hugging
# Face's LLaMA pair channel $i$ with channel $i + d/2$ instead (`rotate_half`). The two are the same
# rotation with the channels listed in another order. So a checkpoint moves from one to the other
# by permuting the output channels of $W_q$ and $W_k$.

# %%
half = d // 2
cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)  # (N, d): the same angle in both halves
q_half = q * cos + torch.cat([-q[:, half:], q[:, :half]], dim=-1) * sin  # rotate_half: pairs (i, i + d/2)
order = torch.stack([torch.arange(half), torch.arange(half) + half], dim=-1).flatten()  # 0, d/2, 1, d/2+1, ...
torch.testing.assert_close(q_half[:, order], rotate_pairs(q[:, order], angles))
print("rotate_half == interleaved pairs, once the channels are reordered")

# %% [markdown]
# ### Where RoPE comes from, and why it keeps the sign
#
# Su et al. derive RoPE as the answer to a functional equation. Call $f(q, m)$ what an encoding does
# to a query $q$ at position $m$. They ask for $f(q, m)\cdot f(k, n) = g(q, k, n-m)$: a score that
# depends on the positions only through the offset. A rotation by $m\theta$ solves it. Ke et al.
# (2021, TUPE, arXiv 2006.15595) take apart the four terms of an added encoding in BERT.
#
# Among scores that depend on the offset alone, $p_m\cdot p_n$ is even: it cannot tell "3 to the
# left" from "3 to the right" (lesson 02's exercise 5 shows which $M$ can). RoPE's score keeps the
# sign. It contains a $\sin((n-m)\theta_j)$ term for every pair $j$ in which the 2-D pieces of
# $x W_q$ and $x W_k$ are not parallel.
#
# ### What training did to the frequencies
#
# The frequencies move by more than a tenth of their size (printed after training). Over the 48 runs
# of the margin sweep they moved by 0.14 to 0.39 of their size (`benchmarks/claims.jsonl`;
# `lessons/CLAIMS.md` shows the smallest); only "more than a tenth" is asserted. That is not all
# Adam could do: its reach, the sum of the learning rates (lesson 04), is larger than the
# frequencies themselves. Nor does the size of the move show that the task moved them. The same
# model trained on shuffled labels, where there is nothing to learn, moves its frequencies by 0.15
# to 0.26 of their size (the null runs, `benchmarks/nulls.jsonl`): how far they move is Adam's
# doing. Where they moved to is the question about the task.
#
# Does the move matter? Putting the initial frequencies back costs more on some runs than on others
# (compare the printed accuracies with another seed). The frequencies and the projections learn
# together, and one run cannot say which carries more. Nor can one short run settle whether the
# frequencies turn toward the rows and columns (the mean $|\sin 2\,\text{angle}|$ printed above).
# Exercise 1 asks for more seeds. The figure shows block 0's frequencies before (light) and after
# (dark) training, one panel per head.

# %%
lesson.claim("training moves the frequencies by more than a tenth of their size", moved, ">", 0.1, about="training")
viz.rope_frequencies(before, after)

# %% [markdown]
# ## What we covered
#
# Points marked *(Going deeper)* come from the optional section; the others, from the main path.
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - RoPE rotates each channel pair of $q$ and $k$ by (position × frequency); norms are kept.
#   Interleaved pairs and `rotate_half` are the same rotation in another channel order
#   *(Going deeper)*.
# - The rotated score depends only on the offset between query and key, exactly; an encoding added
#   to the tokens is absolute inside attention (its cross terms). The rotated score keeps its sign
#   *(Going deeper)*.
# - Axial RoPE turns each pair with the row or with the column, so its score is a row part plus a
#   column part: it can peak at a diagonal neighbour, but $s(1,1) - s(1,-1) = s(0,1) - s(0,-1)$, so
#   it cannot couple rows and columns (no oriented stripe); a mixed plane wave can.
# - Mixed RoPE with axis-aligned frequencies *is* axial RoPE. Trained for 800 steps on the relation
#   task, all of its sense of position comes through the rotations. Its frequencies move by more
#   than a tenth of their size. Over the margin sweep's 48 runs they move by 0.14 to 0.39, and as far
#   on shuffled labels: the size of the move is Adam's, not the task's. Whether the move matters
#   varies from run to run *(Going deeper)*.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. (discussion) Train `rope-axial` on the same task and compare the accuracy and speed of learning
#    with mixed. Run both with three seeds; for mixed, does the mean $|\sin 2\,\text{angle}|$ fall
#    every time?
# 2. (discussion) Axial RoPE can put a head's attention on the down-right neighbour (we built one).
#    Make a task whose answer is whether B lies on A's diagonal or on its anti-diagonal, at any
#    distance: no single axial head can score that stripe. Can a model of several heads and blocks
#    still learn it, and how does it compare with mixed RoPE?
# 3. `interpolate=True` scales positions at a new grid by the ratio of the grid sizes (position
#    interpolation, Chen et al. 2023, arXiv 2306.15595, made for longer contexts in language
#    models). Evaluate the trained model at 48 px with `model.pos.interpolate` off and on. Two
#    alternatives from language models change the frequencies instead of the positions: "NTK-aware"
#    scaling raises the base, and YaRN (Peng et al. 2023, arXiv 2309.00071) interpolates only the
#    slow frequencies and adds an attention temperature. Write the NTK-aware base:
#    `answer_05_3(base, s, d)` returns the base that keeps the fastest pair's frequency and makes
#    the slowest pair ($\theta = \mathrm{base}^{-(d-2)/d}$ for head width $d$) turn $s$ times
#    slower. Lesson 08 compares such choices across sizes.

# %% tags=["exercise"]
from minivit import exercises

answer_05_3 = ...  # your code

# %% tags=["exercise"]
exercises.check("05.3", answer_05_3)

# %% [markdown]
# 4. A class token is never rotated, which is the rotation of position (0, 0). Show that its score
#    for a patch key, $q_{cls}\cdot R(p)\,k$, changes with the patch's position $p$: write
#    `answer_05_4(encoding, q, k, grid)`, the score of an unrotated query `q` [Dh] against the key
#    `k` [Dh] placed at every patch of `grid` and rotated as `encoding.rotate` rotates keys, a
#    tensor [N]. Through an unrotated class token, a RoPE model sees absolute position.

# %% tags=["exercise"]
answer_05_4 = ...  # your code

# %% tags=["exercise"]
exercises.check("05.4", answer_05_4)

# %% [markdown]
# 5. RoFormer (§3.4.3, "long-term decay") shows that with base 10000 a bound on the score shrinks as
#    the offset grows. First the score in closed form: `answer_05_5(dr, dc, base)`, axial RoPE's
#    score for $q = k$ = ones ($D_h = 16$) at the offset $(\Delta r, \Delta c)$. Then draw
#    `score_by_offset` for $q = k$ = ones with axial RoPE at base 100 and at base 10 (`build(...,
#    base=10)`): does the score fall off with the offset on a 6×6 grid?

# %% tags=["exercise"]
answer_05_5 = ...  # your code

# %% tags=["exercise"]
exercises.check("05.5", answer_05_5)

# %% [markdown]
# 6. Compute RoPE's score from the formula above, without turning any vector:
#    `answer_05_6(q, k, offset, base)`, the score of `q` [d] turned at a position m against `k` [d]
#    turned at m + offset, as `rope1d` turns them ($\theta_j = \mathrm{base}^{-2j/d}$). Not with
#    `rotate_pairs` or `encoding.rotate`: the check refuses them. Which part of the sum changes sign
#    with the offset?

# %% tags=["exercise"]
answer_05_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("05.6", answer_05_6)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | the rotation by hand is `rotate_pairs` and `minivit`'s `rope1d` | `torch.testing.assert_close(q_rot, rotate_pairs(q, angles), atol=1e-6, rtol=0)` `torch.testing.assert_close(q_pkg[0, 0].double(), q_rot, atol=1e-5, rtol=0)` | the frequencies differ (another base) |
# | a rotation keeps every query's length | `torch.testing.assert_close(q_rot.norm(dim=-1), q.norm(dim=-1))` | the map is not a rotation (a pair scaled) |
# | `rotate_half` is the same rotation with the channels reordered | `torch.testing.assert_close(q_half[:, order], rotate_pairs(q[:, order], angles))` | the channels are not reordered |
# | the rotated score depends only on the offset: constant diagonals | `torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal), atol=1e-5, rtol=0)` | queries and keys are rotated by different positions |
# | $p_m\cdot p_n$ alone is a function of the offset (lesson 02) | `assert within_offsets(added["position . position, M = I (lesson 02)"]) < 1e-9` | a random $M$ is put in (share within offsets 0.97 with seed 0) |
# | an added encoding is absolute inside attention, whatever the random weights (one draw can be as low as 0.05; the median of 200 draws stays near 0.82, 0.76 at its lowest over 400 seeds) | `lesson.claim("added sinusoids are absolute inside attention: median share within offsets over 200 draws above 0.7", many_added.median(), ">", 0.7, about="untrained")` | there is no content and $M = I$ (share 0) |
# | RoPE's score is a function of the offset for any $W_q, W_k$ | `assert within_offsets(rotated) < 1e-9 and many_rotated.max() < 1e-9, "RoPE: a function of the offset, for any W_q, W_k"` | the encoding is added instead (share within offsets 0.81 with seed 0) |
# | $p_m\cdot p_n$ is even in the offset: blind to left and right | `torch.testing.assert_close(pe_by_offset, pe_by_offset.flip(0))` | a random $M$ mixes sines and cosines |
# | RoPE's score tells $+k$ from $-k$ | `lesson.claim("RoPE's score tells +k from -k", direction, ">", 0.05, about="untrained")` | $W_q x$ and $W_k x$ are parallel ($W_q = W_k$) |
# | axial RoPE's score is a row part plus a column part, for any $q, k$ | `assert axial_diag < 1e-4, "axial: a row part plus a column part, for any q and k"` | the frequencies point across the diagonal (mixed) |
# | axial RoPE can single out the diagonal neighbour (1, 1) | `assert peak == (1, 1), "axial RoPE can single out the diagonal neighbour"` | the key is not turned back by (1, 1) ($k = q$: the peak is at (0, 0)) |
# | axial RoPE: $s(1,1) - s(1,-1) = s(0,1) - s(0,-1)$, even where it peaks on the diagonal | `assert abs(interaction(peaked)) < 1e-4 and abs(interaction(axial_scores)) < 1e-4` | mixed RoPE with frequencies across the diagonal |
# | a mixed plane wave across the diagonal couples rows and columns (a stripe) | `lesson.claim("a mixed plane wave couples rows and columns", interaction(stripe) / stripe.max(), ">", 0.1, about="untrained")` | its frequencies lie along the axes (axial RoPE) |
# | mixed RoPE starts with base-10 lengths | `torch.testing.assert_close(start.double(), (10.0 ** (-torch.arange(0, dh, 4).double() / dh)).repeat(2), atol=1e-6, rtol=0)` | `rope-mixed` is built with base 100 |
# | mixed RoPE with axis-aligned frequencies (base-100 lengths) is axial RoPE | `torch.testing.assert_close(score_by_offset(aligned, qv, kv), axial_scores, atol=1e-5, rtol=0)` | the column and row halves are swapped |
# | mixed RoPE learns a relation: every run tells a row pair from a column pair | `lesson.claim("every run tells a row pair from a column pair (chance 0.5)", axis_accuracy, ">", 0.9)` | the model trains without rotations (frequencies zero and frozen) |
# | without its rotations the trained model is at chance: position comes only through them | `lesson.claim("without its rotations the same model is at chance", no_rotation - 0.25, "<", 0.05, about="absence")` | the rotations are kept |
# | training moves the learned frequencies by more than a tenth of their size (any training does: shuffled labels move them 0.15 to 0.26) | `lesson.claim("training moves the frequencies by more than a tenth of their size", moved, ">", 0.1, about="training")` | the frequencies are frozen (`model.pos.freqs.requires_grad_(False)`) |
