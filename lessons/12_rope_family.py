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
# # 12 · RoPE as a family: rotations made from generators
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/12_rope_family.ipynb)
#
# Lesson 05 turned each channel pair of a query and a key by an angle proportional to the patch's
# position, so the score depends only on the offset between them. LieRE, STRING and Spiral RoPE make
# that turn in new ways. Do they keep lesson 05's result? One question decides it: **do the two
# generators commute?** (A generator is the matrix that makes the turn, one per axis of the grid.) If
# they commute, the score is a function of the offset alone. If not, it also depends on where the
# pair sits. PoPE keeps the offset-only score another way: it takes the angle away from the content.
#
# **What you will learn**
# - A turn is the exponential of a skew-symmetric matrix. Commuting generators keep the score a
#   function of the offset, and the commutator is the term by which it fails.
# - LieRE's dense generators do not commute. STRING's do, and its learned basis folds into $W_q$, $W_k$.
# - Spiral RoPE with $K = 4$ directions draws the diagonal stripe that axial RoPE cannot.
# - PoPE: content sets how much each channel counts, and position alone sets where a head looks.
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

import matplotlib.pyplot as plt
import torch

# %matplotlib inline
from minivit import ViT, ViTConfig, analysis, lesson, viz, widgets
from minivit.data import relation, shuffle_patches
from minivit.evaluate import evaluate, predict
from minivit.posenc import build, grid_coords, rotate_pairs, skew_symmetric
from minivit.train import fit

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)
expm = torch.linalg.matrix_exp

# %% [markdown]
# ## The result in one picture
#
# Every RoPE here turns a query or key at position $x = (x_r, x_c)$ by
# $R(x) = \exp(x_r A_{row} + x_c A_{col})$, with generators $A_{row}$ and $A_{col}$. The explorer
# starts from axial RoPE's generators (lesson 05) and changes them by the strength on the slider, in
# one of two ways. *Add* puts a random
# part into $A_{col}$ that does not commute with $A_{row}$, as LieRE's learned generators do.
# *Change the basis* turns both generators by one rotation $P$, as STRING does. They still commute.
#
# Left: one $q$ and $k$ scored at two offsets, for queries along the grid's diagonal. A flat line
# means the score does not depend on where the pair sits. Right: the share of the scores' variance
# left within offsets, against the strength. **0 means offset-only**, as in lessons 02, 05 and 11.
# Only the added part lifts it above 0. The rest of the lesson shows why.

# %% tags=["nbval-ignore-output"]
widgets.family_explorer()

# %% [markdown]
# ## A rotation is the exponential of a skew-symmetric matrix
#
# Take $J = \begin{pmatrix} 0 & -1 \\ 1 & 0 \end{pmatrix}$. It is skew-symmetric ($J^\top = -J$)
# and $J^2 = -I$. So the series of the exponential splits into its even and odd terms:
#
# $$e^{\varphi J} = I\left(1 - \tfrac{\varphi^2}{2!} + \dots\right) + J\left(\varphi - \tfrac{\varphi^3}{3!} + \dots\right) = \cos\varphi\, I + \sin\varphi\, J = \begin{pmatrix}\cos\varphi & -\sin\varphi \\ \sin\varphi & \cos\varphi\end{pmatrix}.$$
#
# This is the rotation by $\varphi$ that `rotate_pairs` applies to a channel pair (lesson 05). For any
# skew-symmetric $A$, $(e^{A})^\top e^{A} = e^{-A}e^{A} = I$. So the exponential of a
# skew-symmetric matrix keeps lengths: it is a rotation, and $A$ is its generator.

# %%
J = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=torch.float64)
phis = torch.linspace(-3, 3, 7, dtype=torch.float64)
for phi in phis:
    turn = torch.stack([torch.stack([phi.cos(), -phi.sin()]), torch.stack([phi.sin(), phi.cos()])])
    torch.testing.assert_close(expm(phi * J), turn)
pairs = torch.randn(7, 2)  # one channel pair per angle
by_exp = torch.einsum("nij,nj->ni", expm(phis[:, None, None] * J), pairs.double())
torch.testing.assert_close(by_exp.float(), rotate_pairs(pairs, phis[:, None].float()), atol=1e-6, rtol=1e-6)

gen = torch.Generator().manual_seed(SEED)
dh = 16
a = skew_symmetric(torch.randn(dh * (dh - 1) // 2, generator=gen, dtype=torch.float64), dh)  # a random generator
torch.testing.assert_close(a.T, -a)
torch.testing.assert_close(expm(a).T @ expm(a), torch.eye(dh, dtype=torch.float64))
print("exp(phi J) is the rotation by phi, as rotate_pairs turns a pair; exp(A) of a skew-symmetric A is orthogonal")

# %% [markdown]
# ## RoPE's two generators
#
# Axial RoPE with head width $D_h = 16$ has 8 channel pairs. Pairs 0-3 turn with the column at the
# frequencies $\theta_i = 100^{-4i/16}$, and pairs 4-7 turn with the row at the same frequencies. Put
# $\theta_i J$ on the diagonal of a $16\times16$ matrix where a pair turns with the column, and zero
# elsewhere: that is $A_{col}$. $A_{row}$ holds the other pairs. Then
# $R(r, c) = \exp(r A_{row} + c A_{col})$ is block-diagonal, and block $i$ is
# $e^{(\text{angle}_i) J}$, exactly the turn of lesson 05. Mixed RoPE gives every pair a frequency
# along both axes, $(f_{x,i}, f_{y,i})$. Its generators are $A_{col} = \mathrm{diag}(f_{x,i} J)$ and
# $A_{row} = \mathrm{diag}(f_{y,i} J)$. We build both sets by hand and check them against
# `minivit`'s `rope-axial` and `rope-mixed`.

# %%
grid = (6, 6)
rc = grid_coords(grid, dtype=torch.float64)  # (N, 2) = (row, col) of every patch
n = grid[0] * grid[1]


def generators(row_rates, col_rates):
    """Block-diagonal generators [2, Dh, Dh] (A_row, A_col) from each pair's turn per row and per column."""
    return torch.stack([torch.block_diag(*(f * J for f in rates)) for rates in (row_rates, col_rates)])


def rotations(gens, positions):
    """R(x) = exp(x_r A_row + x_c A_col) at every position [N, 2]: [N, Dh, Dh]."""
    return expm(torch.einsum("na,aij->nij", positions.to(gens), gens))


def by_encoding(encoding, x, layer=0):
    """x [Dh] placed at every patch of the grid and turned as `encoding` turns queries: [N, Dh]."""
    q = x.float().expand(1, encoding.heads, n, dh)
    return encoding.rotate(q, q, grid, layer)[0][0, 0].double()


x = torch.randn(dh, generator=gen, dtype=torch.float64)
axial = build("rope-axial", dim=dh, heads=1, depth=1, grid=grid)
f, zero = axial.freqs.double(), torch.zeros(dh // 4, dtype=torch.float64)
axial_gens = generators(torch.cat([zero, f]), torch.cat([f, zero]))  # rows turn pairs 4-7, columns pairs 0-3
torch.testing.assert_close(rotations(axial_gens, rc) @ x, by_encoding(axial, x), atol=1e-5, rtol=1e-5)

mixed = build("rope-mixed", dim=dh, heads=1, depth=1, grid=grid)
fx, fy = mixed.freqs[0, :, 0].detach().double()  # (Dh/2,) each: turn per column and per row
mixed_gens = generators(fy, fx)
torch.testing.assert_close(rotations(mixed_gens, rc) @ x, by_encoding(mixed, x), atol=1e-5, rtol=1e-5)
for name, (a_row, a_col) in {"axial": axial_gens, "mixed": mixed_gens}.items():
    torch.testing.assert_close(a_row @ a_col, a_col @ a_row)  # they commute
    print(f"{name}: exp(r A_row + c A_col) == minivit's rotation at every patch; A_row A_col == A_col A_row")

# %% [markdown]
# Both pairs of generators commute. Block by block they are multiples of the same $J$, and
# $(aJ)(bJ) = (bJ)(aJ)$. That is no accident, as the next section shows.

# %% [markdown]
# ## Why commuting keeps the score a function of the offset
#
# The score of a query at $x$ and a key at $y$ is $(R(x)q)\cdot(R(y)k) = q^\top R(x)^\top R(y)\,k$.
# Write $G(x) = x_r A_{row} + x_c A_{col}$. It is linear in $x$, and $R(x)^\top = e^{-G(x)}$. When
# the generators commute, every $G(x)$ commutes with every $G(y)$. For commuting matrices the
# exponential turns sums into products, as for numbers:
#
# $$e^{A}e^{B} = e^{A+B}\ \text{ if } AB = BA, \qquad\text{so}\qquad R(x)^\top R(y) = e^{-G(x)}e^{G(y)} = e^{G(y) - G(x)} = e^{G(y - x)} = R(y - x).$$
#
# The score is then $q^\top R(y - x)\,k$: a function of the offset alone, for any $q$ and $k$. When
# $A$ and $B$ do not commute, the product and the exponential of the sum part ways. Multiply the
# series out for small $t$:
#
# $$e^{tA}e^{tB} - e^{t(A+B)} = \tfrac{t^2}{2}\,(AB - BA) + O(t^3).$$
#
# The first term by which the two differ is half the *commutator* $[A, B] = AB - BA$. The cell below
# checks both. With RoPE's generators the product is the exponential of the sum, to float rounding.
# With two random generators of norm 1 the gap shrinks like $t^2$, and its leading term is
# $\tfrac{t^2}{2}[A, B]$.

# %% tags=["nbval-ignore-output"]
for gens in (axial_gens, mixed_gens):
    torch.testing.assert_close(expm(3 * gens[0]) @ expm(-2 * gens[1]), expm(3 * gens[0] - 2 * gens[1]))
    torch.testing.assert_close(rotations(gens, rc[7:8]).mT @ rotations(gens, rc), rotations(gens, rc - rc[7]))
a, b = (skew_symmetric(torch.randn(dh * (dh - 1) // 2, generator=gen, dtype=torch.float64), dh) for _ in range(2))
a, b = a / a.norm(), b / b.norm()
commutator = a @ b - b @ a
leading = {}
for t in (1e-1, 1e-2, 1e-3):
    gap = expm(t * a) @ expm(t * b) - expm(t * (a + b))
    leading[t] = ((gap / t**2 - commutator / 2).norm() / (commutator / 2).norm()).item()
    print(f"t = {t:g}: |gap| = {gap.norm():.3g}; gap / t^2 differs from [A, B] / 2 by {leading[t]:.2%} of its size")
print(f"|[A, B]| = {commutator.norm():.3f} for |A| = |B| = 1")
assert leading[1e-3] < 0.2 * leading[1e-2], "the error of the leading term shrinks like t"
lesson.claim("the leading term is t^2 / 2 [A, B]: within 1% at t = 0.01", leading[1e-2], "<", 0.01, about="untrained")
lesson.claim("two random generators do not commute", commutator.norm(), ">", 0.2, about="untrained")

# %% [markdown]
# For axial and mixed RoPE the cell also checks $R(x_0)^\top R(x) = R(x - x_0)$ at every patch $x$.
# For the random pair, the error of the leading term shrinks like $t$, as an $O(t^3)$ remainder
# divided by $t^2$ should.

# %% [markdown]
# ## LieRE: learned generators that do not commute
#
# LieRE (Ostmeier et al. 2024, arXiv 2406.10322; `liere`) learns $A_{row}$ and $A_{col}$ whole. They
# are dense skew-symmetric matrices whose upper triangles start uniform in $[0, 2\pi)$, as in the
# paper's code. Positions are scaled so that the trained grid spans $[0, 1)$. Dense generators drawn
# at random do not commute. We check LieRE's rotation by hand, then put one $q$ and one $k$ at every
# patch of a 6×6 grid and score every pair, for 8 random pairs $(q, k)$.
# `analysis.offset_dependence` measures the share of the scores' variance left *within* the offsets.
# **Here 0 means offset-only**: the larger the share, the more the score depends on where the pair
# sits. (The explorer above plots the same share.)
#
# One subtlety. On a line through the origin the positions are multiples of one vector, and
# $G(tu) = t\,G(u)$. Multiples of one matrix commute, so there any generators act like 1-D RoPE:
# queries at $(i, i)$ with keys at $(i+1, i+1)$ all score alike, for LieRE too.

# %% tags=["nbval-ignore-output"]
torch.manual_seed(SEED)
liere = build("liere", dim=dh, heads=1, depth=1, grid=grid).double()
a1, a2 = liere.generator(0)[:, 0, 0]  # (Dh, Dh) each: rows, columns
liere_rot = rotations(torch.stack([a1, a2]), liere.positions(grid))  # positions in [0, 1)
torch.testing.assert_close(liere_rot, liere.rotations(grid, 0, torch.float64)[0, :, 0])
contents = torch.randn(2, 8, dh, generator=gen, dtype=torch.float64)  # 8 pairs (q, k)


def same_content(rot, q, k):
    """Scores [..., N, N] of q [..., Dh] at every patch against k [..., Dh] at every patch, turned by rot [N, Dh, Dh]."""
    qr, kr = (torch.einsum("nij,...j->...ni", rot, v) for v in (q, k))
    return qr @ kr.transpose(-1, -2)


def at_one_one(s):
    """Scores [..., N, N] -> the score at offset (1, 1) of every query (r, c) that has such a key: [..., gh - 1, gw - 1]."""
    gh, gw = grid
    return torch.stack([torch.stack([s[..., r * gw + c, (r + 1) * gw + c + 1] for c in range(gw - 1)], -1) for r in range(gh - 1)], -2)


s_liere = same_content(liere_rot, *contents)  # (8, N, N)
liere_within = analysis.offset_dependence(s_liere, grid)["fraction"].mean().item()
liere_commutator = ((a1 @ a2 - a2 @ a1).norm() / (a1.norm() * a2.norm())).item()
ones_ones = at_one_one(s_liere)  # (8, 5, 5)
on_line = torch.diagonal(ones_ones, dim1=-2, dim2=-1)  # queries (i, i): on the line through the origin
spread = lambda t: t.amax(dim=(-2, -1)) - t.amin(dim=(-2, -1))  # noqa: E731
liere_spread = (spread(ones_ones) / spread(s_liere)).mean().item()
print(f"LieRE: |[A_1, A_2]| = {liere_commutator:.2f} of |A_1| |A_2|; share of the variance within offsets {liere_within:.2f} (mean of 8 pairs q, k)")
print("first q, k: score at offset (1, 1) by the query's row (down) and column (across):")
for row in ones_ones[0]:
    print("   ", " ".join(f"{v:6.2f}" for v in row.tolist()))
print(f"the spread of the scores at offset (1, 1) is {liere_spread:.0%} of the spread of all scores (mean of 8)")

torch.manual_seed(SEED)
commuting = build("liere", dim=dh, heads=1, depth=1, grid=grid, commuting=True).double()
c1, c2 = commuting.generator(0)[:, 0]  # (Dh/2, 2, 2) each: one 2x2 block per pair
c1, c2 = torch.block_diag(*c1), torch.block_diag(*c2)
s_commuting = same_content(rotations(torch.stack([c1, c2]), commuting.positions(grid)), *contents)
commuting_within = analysis.offset_dependence(s_commuting, grid)["fraction"].max().item()
print(f"LieRE, commuting=True: share within offsets at most {commuting_within:.1e}")

# %%
torch.testing.assert_close(on_line, on_line[..., :1].expand_as(on_line))  # on the line through the origin: alike
lesson.claim("LieRE: a sizeable share of the score is not a function of the offset", liere_within, ">", 0.15, about="untrained")
lesson.claim("LieRE: pairs at one offset score differently", liere_spread, ">", 0.08, about="untrained")
torch.testing.assert_close(c1 @ c2, c2 @ c1)
assert commuting_within < 1e-20, "commuting=True: the score is a function of the offset (float64 rounding)"

fig, axes = plt.subplots(1, 3, figsize=(12, 3.4), layout="constrained")
maps = {"LieRE": ones_ones[0].detach(), "commuting=True": at_one_one(s_commuting)[0].detach()}  # (5, 5): first q, k
low, high = min(m.min().item() for m in maps.values()), max(m.max().item() for m in maps.values())
for ax, (name, m) in zip(axes, maps.items()):
    im = ax.imshow(m, cmap="viridis", vmin=low, vmax=high)
    ax.set(title=f"{name}: score at offset (1, 1)", xlabel="query's column", ylabel="query's row")
    fig.colorbar(im, ax=ax, shrink=0.8, label="score")
by_offset = analysis.offset_dependence(s_liere[0], grid)["by_offset"].detach()  # (11, 11): variance within each offset
im = axes[2].imshow(by_offset, cmap="magma", vmin=0, extent=(-5.5, 5.5, 5.5, -5.5))
axes[2].set(title="LieRE: variance within each offset", xlabel="column offset", ylabel="row offset")
fig.colorbar(im, ax=axes[2], shrink=0.8, label="variance (0: offset-only)")
plt.show()

# %% [markdown]
# With LieRE a sizeable share of the scores' variance is not explained by the offset (printed). The
# left map is the score at offset $(1, 1)$ for every query: equal along its diagonal, the line
# through the origin, and different off it. `commuting=True` restricts each generator to 2×2
# blocks, which all commute. Then the same map is flat (middle, on the same colour scale), and the
# share within offsets drops to float64 rounding. That is mixed RoPE with its frequencies learned as
# LieRE's generators.
# The right map is LieRE's variance within each offset. It is zero at offset $(0, 0)$, where every
# patch meets itself and scores $q^\top k$, and at the four corners, which hold one pair each.

# %% [markdown]
# ## STRING: RoPE in a learned basis
#
# STRING (Schenck et al. 2025, arXiv 2502.02562; `string`) learns generators that commute. Why must
# such generators look like RoPE's? Two commuting rotation generators turn in the same planes. Take
# those planes as the basis and both become 2×2 blocks. So every commuting pair is
# $L_k = P^\top A_k P$, for some rotation $P$ and block-diagonal $A_k$: mixed RoPE's generators in
# another basis. `minivit`'s `string` computes it that way, per head and block:
#
# $$q \mapsto \mathrm{RoPE}(x)\,P q,\quad k \mapsto \mathrm{RoPE}(x)\,P k,\qquad P = \exp(S),\ S \text{ skew-symmetric, learned, } S = 0 \text{ at the start.}$$
#
# The score is $q^\top P^\top\,\mathrm{RoPE}(y - x)\,P k$, a function of the offset for any $P$. Three
# checks follow. At the start ($P = I$) STRING is the mixed RoPE it wraps, bit for bit. With a random
# $P$, $\mathrm{RoPE}(x)\,P = P\,\exp(x_r L_{row} + x_c L_{col})$ with $L = P^\top A P$, and these
# $L$ commute. (The leading $P$ turns $q$ and $k$ alike and cancels in the score.) And for four
# random $P$ the score is a function of the offset.

# %% tags=["nbval-ignore-output"]
torch.manual_seed(SEED)
string = build("string", dim=dh, heads=1, depth=1, grid=grid)
torch.manual_seed(SEED)
wrapped = build("rope-mixed", dim=dh, heads=1, depth=1, grid=grid)  # the same draw of frequencies
qk = torch.randn(2, 1, 1, n, dh, generator=gen)
q, k = contents[:, 0]  # one pair (q, k) [Dh], as above
assert all(torch.equal(u, v) for u, v in zip(string.rotate(*qk, grid, 0), wrapped.rotate(*qk, grid, 0)))

fractions = []
for _ in range(4):
    with torch.no_grad():
        string.basis.normal_(generator=gen)  # a random S, so P far from I
    p = string.change_of_basis(0, torch.float64)[0].detach()  # (Dh, Dh)
    torch.testing.assert_close(p.T @ p, torch.eye(dh, dtype=torch.float64))
    s_string = by_encoding(string, q) @ by_encoding(string, k).T  # (N, N)
    fractions.append(analysis.offset_dependence(s_string, grid)["fraction"].item())
fx, fy = string.rope.freqs[0, :, 0].detach().double()
l_row, l_col = p.T @ generators(fy, fx) @ p  # STRING's generators, last draw
torch.testing.assert_close(same_content(rotations(torch.stack([l_row, l_col]), rc), q, k), s_string, atol=1e-4, rtol=1e-4)
torch.testing.assert_close(l_row @ l_col, l_col @ l_row)
off_blocks = 1 - sum(l_row[i:i + 2, i:i + 2].norm() ** 2 for i in range(0, dh, 2)) / l_row.norm() ** 2
print(f"last P: |P - I| = {(p - torch.eye(dh)).abs().max():.2f} (largest entry); L_row has {off_blocks:.0%} of its weight outside the 2x2 blocks")
print("share of the variance within offsets, four random P:", " ".join(f"{v:.1e}" for v in fractions))

# %%
assert max(fractions) < 1e-9, "STRING: the score is a function of the offset for any P (float32 rounding)"
print("STRING at P = I is mixed RoPE bit for bit; with any P its generators P^T A P commute; the score depends on the offset only")

# %% [markdown]
# What does $P$ add? Inside attention $q = W_q t + b_q$ for a token $t$. So
# $P q = (P W_q)\,t + P b_q$: another linear map of the same shape. A ViT with `string` computes the
# same function as a ViT with `rope-mixed` whose query and key projections are $P W_q$ and $P W_k$,
# head by head and block by block. We fold a random $P$ into the projections and compare the two
# models' outputs.

# %% tags=["nbval-ignore-output"]
config = ViTConfig(image_size=24, patch_size=8, num_classes=4, heads=4, position="string")
torch.manual_seed(SEED)
with_p = ViT(config).eval()
with torch.no_grad():
    with_p.pos.basis.normal_(std=0.5, generator=gen)
state = {name: w.clone() for name, w in with_p.state_dict().items() if not name.startswith("pos.")}
state["pos.freqs"] = with_p.pos.rope.freqs.detach().clone()
width, heads, hd = config.dim, config.heads, config.head_dim
with torch.no_grad():
    for layer in range(config.depth):
        p_heads = with_p.pos.change_of_basis(layer)  # (H, Dh, Dh)
        w, bias = state[f"blocks.{layer}.attn.qkv.weight"], state[f"blocks.{layer}.attn.qkv.bias"]
        for part in (0, 1):  # the query rows, then the key rows of the qkv projection
            rows = slice(part * width, (part + 1) * width)
            w[rows] = (p_heads @ w[rows].view(heads, hd, width)).reshape(width, width)  # P W per head
            bias[rows] = (p_heads @ bias[rows].view(heads, hd, 1)).reshape(width)  # P b per head
folded = ViT(config.with_(position="rope-mixed")).eval()
folded.load_state_dict(state)
images = relation(16, seed=SEED + 2).images
with torch.no_grad():
    out_string, out_folded = with_p(images), folded(images)
print(f"largest difference of the outputs: {(out_string - out_folded).abs().max():.1e} (outputs up to {out_string.abs().max():.2f})")

# %%
torch.testing.assert_close(out_folded, out_string, atol=1e-5, rtol=1e-4)
print("a string ViT == a rope-mixed ViT with P folded into W_q, W_k")

# %% [markdown]
# So STRING's $P$ adds no function that a mixed-RoPE ViT cannot compute. What it changes is the
# parametrisation, and so what gradient descent does. $P$ has its own $D_h(D_h-1)/2$ learned numbers
# per head and block, trained without weight decay. Whether that helps training, a short run cannot
# settle (exercise 4).

# %% [markdown]
# ## Spiral RoPE: more than two directions
#
# Axial RoPE turns pairs in two directions, the column and the row. Spiral RoPE (Liu et al. 2026,
# arXiv 2602.03227; `rope-spiral`) splits the pairs into $K$ groups. As `minivit` lays them out,
# group $k$ turns with the position projected on the direction at angle $k\pi/K$,
# $p_k = c\cos(k\pi/K) + r\sin(k\pi/K)$. Its generators are
# $A_{row} = \mathrm{diag}(\sin(k\pi/K) f_i J)$ and $A_{col} = \mathrm{diag}(\cos(k\pi/K) f_i J)$.
# Both are block-diagonal, so they commute. With $K = 2$ the groups are the column (0°) and the row
# (90°): axial RoPE, channel for channel.
#
# Lesson 05 asked about the diagonal. Axial RoPE's score is a row part plus a column part,
# $s(\Delta r, \Delta c) = f(\Delta r) + g(\Delta c)$, so $s(1,1) - s(1,-1) = s(0,1) - s(0,-1)$ for
# any $q$ and $k$: rows and columns do not interact. It also gives
# $s(d,d) + s(-d,-d) = s(d,-d) + s(-d,d)$. So no head can score high along the whole diagonal
# $\Delta r = \Delta c$ and low along the whole anti-diagonal. With $K = 4$, the group at 135°
# turns with $(r - c)/\sqrt2$, which does not change along the diagonal. Below: the scores along the
# diagonal $(d, d)$ and the anti-diagonal $(d, -d)$ (key minus query) of axial RoPE with $q = k$ =
# ones, and of Spiral RoPE with $q = k$ = ones on the 135° group only.

# %%
wide = (11, 11)  # a query at the centre sees every offset up to 5
centre = (wide[0] // 2) * wide[1] + wide[1] // 2


def from_centre(encoding, qv, kv):
    """Score of qv at the centre of the 11x11 grid against kv at every patch: [11, 11] by offset (key - query)."""
    size, heads = wide[0] * wide[1], encoding.heads
    qr, kr = encoding.rotate(qv.float().expand(1, heads, size, len(qv)), kv.float().expand(1, heads, size, len(kv)), wide, 0)
    return (kr[0, 0] @ qr[0, 0, centre]).double().reshape(wide)


def at(table, dr, dc):
    return table[5 + dr, 5 + dc].item()


def interaction(table):
    """[s(1, 1) - s(1, -1)] - [s(0, 1) - s(0, -1)]: zero when rows and columns do not interact."""
    return (at(table, 1, 1) - at(table, 1, -1)) - (at(table, 0, 1) - at(table, 0, -1))


spiral2 = build("rope-spiral", dim=dh, heads=1, depth=1, grid=wide, directions=2)
axial_wide = build("rope-axial", dim=dh, heads=1, depth=1, grid=wide)
assert torch.equal(spiral2.angles(wide, 0), axial_wide.angles(wide, 0))
qk_wide = torch.randn(2, 1, 1, wide[0] * wide[1], dh)
assert all(torch.equal(u, v) for u, v in zip(spiral2.rotate(*qk_wide, wide, 0), axial_wide.rotate(*qk_wide, wide, 0)))

spiral4 = build("rope-spiral", dim=dh, heads=1, depth=1, grid=wide, directions=4)  # 2 pairs per direction
stripe_qk = torch.zeros(dh, dtype=torch.float64)
stripe_qk[12:] = 1.0  # the pairs of the 135-degree group (the last 2 of 8)
stripe = from_centre(spiral4, stripe_qk, stripe_qk)
axial_ones = from_centre(axial_wide, torch.ones(dh), torch.ones(dh))
axial_random = [from_centre(axial_wide, *torch.randn(2, dh, generator=gen)) for _ in range(4)]
ds = range(-5, 6)
print("d:                              ", " ".join(f"{d:5d}" for d in ds))
for name, table in (("axial, ones: diagonal (d, d)", axial_ones), ("axial, ones: anti-diagonal (d, -d)", axial_ones),
                    ("spiral K=4, 135 deg: (d, d)", stripe), ("spiral K=4, 135 deg: (d, -d)", stripe)):
    sign = -1 if "-d" in name else 1
    print(f"{name:>34}", " ".join(f"{at(table, d, sign * d):5.2f}" for d in ds))
axial_interaction = max(abs(interaction(t)) / t.abs().max().item() for t in axial_random)
print(f"[s(1,1) - s(1,-1)] - [s(0,1) - s(0,-1)]: axial, four random q, k: {'< 1e-5' if axial_interaction < 1e-5 else axial_interaction} "
      f"of the largest score; spiral K=4, 135 deg: {interaction(stripe):.2f}")

# %%
assert axial_interaction < 1e-5, "axial: no row-column interaction, for any q and k"
assert all(abs(at(stripe, d, d) - 4.0) < 1e-5 for d in ds), "the 135-degree pairs: constant along the diagonal"
assert at(stripe, 1, -1) < 0.6 * at(stripe, 1, 1) and interaction(stripe) > 1.0, "and lower along the anti-diagonal"
viz.offset_tables({"axial, q = k = ones": axial_ones, "spiral K = 4, q = k = ones on the 135° pairs": stripe})

# %% [markdown]
# Axial RoPE's score for $q = k$ = ones is the same along the diagonal and the anti-diagonal. With
# $q = k$ its row part and its column part are each even in their offset. Its row-column interaction
# is zero for any $q$ and $k$, to float32 rounding. The 135° pairs of Spiral RoPE score 4 at every
# diagonal offset $(d, d)$ and less along the anti-diagonal: the oriented stripe.

# %% [markdown]
# ## PoPE: content sets how much, position alone sets where
#
# In RoPE each channel pair of a query is a complex number with an angle set by its content. The
# position's turn adds to that angle. So the score of a key at offset $\Delta$ is
# $\sum_i |q_i||k_i|\cos(\theta_i \cdot \Delta + \varphi_i)$, where the phases $\varphi_i$ come from
# the content. Content decides which offset a head prefers. PoPE (Gopalakrishnan et al. 2025,
# arXiv 2509.10534; `pope`) gives content no angle. Each of the head's $D_h$ channels becomes a
# length $\mathrm{softplus}(q_c) \ge 0$, and position alone sets its angle:
#
# $$s = \sum_c \mathrm{softplus}(q_c)\,\mathrm{softplus}(k_c)\,\cos(\theta_c \cdot (x_q - x_k) - \delta_c).$$
#
# Here $\delta_c$ is a learned phase of the keys per head, channel and block, started at 0. The score
# is still a function of the offset. But PoPE is not a rotation of $q$: the lengths change, and $q$
# and $k$ come out twice as wide, a real and an imaginary part per channel. So it stands beside the
# family rather than in it. `minivit`'s `pope` gives half the channels to the column and half to the
# row, as axial RoPE does.
#
# Below: one query at the centre of a 5×5 grid and the same key content at every patch, for 200
# random draws of the content. Where does each draw score highest?

# %% tags=["nbval-ignore-output"]
from minivit.posenc import pope_frequencies

grid5, centre5 = (5, 5), 12  # the centre patch of a 5x5 grid, in raster order
pope = build("pope", dim=64, heads=4, depth=1, grid=grid5)  # 16 channels a head
axial5 = build("rope-axial", dim=64, heads=4, depth=1, grid=grid5)
shifted = build("pope", dim=64, heads=4, depth=1, grid=grid5)
with torch.no_grad():  # the column channels' phase set to -theta: each peaks one patch to the right
    shifted.delta[..., :8] = -pope_frequencies(16, 100.0)


def centre_scores(encoding, q, k):
    """Head 0's scores [5, 5] of query content q at the centre against key content k at every patch."""
    with torch.no_grad():
        qr, kr = encoding.rotate(q.expand(1, 4, 25, 16), k.expand(1, 4, 25, 16), grid5, 0)
    return (qr[0, 0, centre5] * kr[0, 0]).sum(-1).reshape(grid5)


def best_offset(encoding, q, k):
    """The offset (rows, columns) from the query to its highest-scoring key."""
    r, c = divmod(int(centre_scores(encoding, q, k).argmax()), 5)
    return (r - 2, c - 2)


draws = torch.randn(200, 2, 16, generator=torch.Generator().manual_seed(SEED), dtype=torch.float64)
best = {name: [best_offset(enc, q, k) for q, k in draws]
        for name, enc in (("rope-axial", axial5), ("pope", pope), ("pope, phase set", shifted))}
for name, offsets in best.items():
    most = max(set(offsets), key=offsets.count)
    print(f"{name:>16}: best key on top of the query for {offsets.count((0, 0)):3d} of 200 draws; "
          f"most common best offset {most} ({offsets.count(most)} draws)")

# %% tags=["nbval-ignore-output"]
fig, axes = plt.subplots(1, 5, figsize=(15, 3.1), layout="constrained")
panels = [("rope-axial", axial5, 0), ("rope-axial", axial5, 1), ("pope", pope, 0), ("pope", pope, 1),
          ("pope, phase set", shifted, 0)]
for ax, (name, enc, i) in zip(axes, panels):
    im = ax.imshow(centre_scores(enc, *draws[i]), cmap="viridis")
    fig.colorbar(im, ax=ax, shrink=0.8)  # each panel on its own scale
    ax.plot(2, 2, "w+", markersize=12)  # the query
    ax.set_title(f"{name}, draw {i}", fontsize=9)
    ax.set_xticks([]), ax.set_yticks([])
fig.suptitle("scores of a query at the centre (+) against the same key content at every patch (bright: high)")
plt.show()

# %%
assert all(b == (0, 0) for b in best["pope"]), "PoPE, phase 0: every content scores the key on top of the query highest"
assert all(b == (0, 1) for b in best["pope, phase set"]), "PoPE, phase set: every content prefers the patch to the right"
lesson.claim("RoPE: content moves the best key off the query on most draws",
             1 - best["rope-axial"].count((0, 0)) / len(draws), ">", 0.8, about="untrained")

# %% [markdown]
# With RoPE the content decides where the head looks: on nearly every draw the best key is somewhere
# else. With PoPE at
# $\delta = 0$ the best key is on top of the query for every draw. That is a theorem, not a sample:
# every term $\mathrm{softplus}(q_c)\,\mathrm{softplus}(k_c)\cos(\theta_c \cdot \Delta)$ is largest
# at $\Delta = 0$, whatever the lengths. Content sets only how much each channel counts.
#
# To look elsewhere a PoPE head needs its phases. With $\delta_c = -\theta_c$ on the column channels,
# every term peaks one patch to the right, so every draw prefers that patch. Where to look is then a
# parameter of the head. This is what Gopalakrishnan et al. mean by separating *what* from *where*.
# All of this holds for one key content at every patch. With keys of different content, content
# decides too.
#
# **What to remember.** A rotary score depends on the offset alone when the generators commute, as
# RoPE's, STRING's and Spiral RoPE's do. LieRE's do not. PoPE keeps the offset-only score by taking
# the angle away from the content.

# %% [markdown]
# ## Going deeper
#
# Optional on a first reading. The parts below show more directions at work, train six members
# side by side, and read two recorded sweeps at new image sizes. Everything here is checked like the
# main path.
#
# ### The converse
#
# When two generators do not commute, can $e^{A}e^{B}$ still equal $e^{A+B}$? For some special
# matrices it can. But an offset-only score at *every* position needs commuting generators: ComRoPE
# (Yu et al. 2025, arXiv 2506.03737) proves it.
#
# ### More directions: keys at one distance
#
# What do more directions give a head whose $q$ and $k$ are the same on every pair? We take
# $D_h = 48$: 24 pairs, which $K$ = 2, 4 and 8 each split evenly. First, keys at the same distance
# from the query in two directions: straight right, $(0, 5)$, and $(3, 4)$, both at distance 5. Then,
# for each distance at which the grid has keys in several directions up to 8 patches away (5,
# $\sqrt{50}$ and $\sqrt{65}$), the spread of their scores, (max − min) / $s(0, 0)$.

# %%
ring = {}
for K in (2, 4, 8):
    e = build("rope-spiral", dim=48, heads=1, depth=1, grid=wide, directions=K)
    t = from_centre(e, torch.ones(48), torch.ones(48))
    ring[K] = (at(t, 0, 5), at(t, 3, 4), at(t, 0, 0))
    print(f"K = {K}: s(0, 0) = {ring[K][2]:.1f}, s(0, 5) = {ring[K][0]:.2f}, s(3, 4) = {ring[K][1]:.2f}")
    torch.testing.assert_close(t, widgets.spiral_scores(K, head_dim=48).sum(dim=(0, 1)), atol=1e-3, rtol=1e-4)


def direction_spread(K, radius=8):
    """(max - min) / s(0, 0) of the scores of the keys at one distance, {squared distance: spread},
    for the distances 5, √50 and √65, at which keys lie in several directions within `radius`."""
    t = widgets.spiral_scores(K, head_dim=48, radius=radius).sum(dim=(0, 1))
    d = torch.arange(-radius, radius + 1)
    d2 = d[:, None] ** 2 + d[None, :] ** 2
    return {n: ((t[d2 == n].max() - t[d2 == n].min()) / t[radius, radius]).item() for n in (25, 50, 65)}


spread = {K: direction_spread(K) for K in (2, 4, 8)}
for K, by_distance in spread.items():
    print(f"K = {K}: spread over directions at distance " + ", ".join(f"√{n}: {v:.3f}" for n, v in by_distance.items()))

# %%
assert min(spread[2].values()) > 0.15, "axial: at every distance, the score depends on the direction"
assert spread[4][25] < 0.01 and spread[4][65] > 0.05, "four directions: nearly alike at distance 5, not at √65"
assert max(spread[8].values()) < 0.01, "eight directions: nearly alike at every distance measured"

# %% [markdown]
# With two directions a key 5 patches straight to the right scores 35.2, and one at $(3, 4)$ only
# 25.5. For a head with the same $q$ and $k$ on every pair, axial RoPE's score falls off faster
# towards the diagonals than along the axes. It does so at every distance measured, a spread of 0.19
# to 0.22 of $s(0, 0)$. With four directions the keys at distance 5 score within 1% of $s(0, 0)$ of
# each other, but at $\sqrt{65} \approx 8.1$ they differ by more than 5%. With eight, they are within
# 1% at every distance measured.
#
# Why? Each direction adds a cosine of the key's projection on it. Summed over $K$ evenly turned
# directions, these cosines vary with the key's angle only through harmonics of order $2K$: terms
# like $\cos(2K\alpha)$ in the angle $\alpha$. Those terms are small near the query and grow with the
# distance, later for larger $K$. So more directions keep the score blind to the direction out to
# larger distances. The groups also get fewer frequencies each, $D_h/(2K)$, so this compares the
# layouts as `minivit` builds them, not directions alone. The slider below draws the whole table for
# each $K$, and the stripe of the group nearest 135°.

# %% tags=["nbval-ignore-output"]
widgets.spiral_explorer()

# %% [markdown]
# ### PoPE's phases in `minivit`
#
# With phases that do not agree, each channel prefers its own offset, and content, which weighs the
# channels, still moves the best key among them. `minivit` keeps $\delta$ in $[-2\pi, 0)$ by wrapping
# it, where the paper clamps it. Both ranges hold every angle. But a clamp passes no gradient at its
# bound, and $\delta$ starts on it.

# %% [markdown]
# ### Six members on the relation task, for a short run
#
# Is the circle left of, right of, above or below the square? (Lessons 05, 06 and 08 used this task.)
# We train six members from the same seed, data and batch order: `rope-axial`, `rope-mixed`,
# `string` (around mixed RoPE), `rope-spiral` ($K = 4$), `liere` (dense generators over each head of
# 16 channels) and `pope` (its phases learned, from 0). Each trains for 150 steps, a few seconds on a
# laptop CPU. The members that draw their frequencies or generators at random draw them first, so
# their other weights start differently too. Besides the accuracy (chance 0.25) we score the easier
# half of the question: is the pair on a row or on a column (chance 0.5)?

# %% tags=["nbval-ignore-output"]
train, test = relation(4096, seed=SEED), relation(1000, seed=SEED + 1)
family = ("rope-axial", "rope-mixed", "string", "rope-spiral", "liere", "pope")
config = ViTConfig(image_size=24, patch_size=8, num_classes=4, heads=4, position="rope-axial")
trained, accuracy, axis_accuracy = {}, {}, {}
for name in family:
    torch.manual_seed(SEED)
    trained[name] = ViT(config.with_(position=name))
    fit(trained[name], train, steps=150, batch_size=64, lr=3e-3, desc=name, seed=SEED)
    accuracy[name] = evaluate(trained[name], test)
    axis_accuracy[name] = ((predict(trained[name], test.images) // 2) == (test.labels // 2)).float().mean().item()
for name in family:
    print(f"{name:>12}: accuracy {accuracy[name]:.2f}, row pair or column pair right {axis_accuracy[name]:.2f}")

# %% [markdown]
# After training, what is left of each member's defining property? We put the same random content at
# every patch of each trained model (`analysis.same_content_scores`) and measure the share of the
# scores' variance within offsets (0: offset-only). We also measure how far training moved STRING's
# $P$ from $I$.

# %% tags=["nbval-ignore-output"]
content = torch.randn(4, config.dim, generator=torch.Generator().manual_seed(SEED))  # 4 token vectors
within = {}
with torch.no_grad():
    for name in family:
        within[name] = torch.stack([  # (blocks, contents, heads)
            analysis.offset_dependence(analysis.same_content_scores(trained[name], content, layer), config.grid)["fraction"]
            for layer in range(config.depth)])
    p_moved = max((trained["string"].pos.change_of_basis(layer) - torch.eye(config.head_dim)).abs().max().item()
                  for layer in range(config.depth))
for name in family:
    print(f"{name:>12}: share of the variance within offsets: largest {within[name].max():.2g}, mean {within[name].mean():.2g}")
print(f"string: the largest entry of P - I after training {p_moved:.2f} (0 at the start)")

# %%
with_axis = [name for name in family if axis_accuracy[name] > 0.9]  # which ones depends on the seed
lesson.claim("some member tells a row pair from a column pair in 150 steps", max(axis_accuracy.values()), ">", 0.9)
lesson.claim("no member yet tells which way round", accuracy, "<", 0.6, about="absence")
lesson.claim("those with the axis are near its 0.5: the axis right, the side at chance",
             {name: accuracy[name] for name in with_axis}, ">", 0.35)
assert max(within[name].max() for name in family if name != "liere") < 1e-9, "trained, every member but LieRE stays offset-only"
lesson.claim("trained LieRE: a sizeable share of the score is not a function of the offset", within["liere"].mean(), ">", 0.15, about="untrained")
lesson.claim("training moves STRING's P off the identity", p_moved, ">", 0.05, about="training")

# %% [markdown]
# In 150 steps some members tell a row pair from a column pair, and no member yet tells which way
# round the pair is. Those with the axis score near 0.5: the axis right, the side at chance. Lesson 05
# met the same plateau, and in 800 steps some of its runs left it. Which members have the axis by
# step 150 depends on the seed. Compare the printout under another `MINIVIT_SEED`: any member may miss
# it on some seed, so we make no claim about any one of them. This task does not need diagonal
# directions, so it is no test of what Spiral RoPE adds, and a short run cannot rank the family. What
# holds on every run is structural. Training changes STRING's $P$. The score of every commuting
# member, and of PoPE, is still a function of the offset (to float32 rounding), and LieRE's is not.

# %% [markdown]
# ### PoPE at phase 0 cannot tell left from right
#
# At $\delta = 0$ every PoPE term is
# $\mathrm{softplus}(q_c)\,\mathrm{softplus}(k_c)\cos(\theta_c \cdot \Delta)$, and the cosine is even:
# an offset and its mirror image score alike. Mirror the 3×3 grid of patches left to right, as
# lesson 08 did for ALiBi-2D. Every column offset changes sign and every score stays. A model whose
# only position signal is PoPE's angles, and that averages its tokens, then gives *exactly* the same
# output for the mirrored scenes, whatever its other weights. But a mirrored "circle left of square"
# scene is a "right of" scene. Only the phases can break the symmetry, and they start at 0. We check
# it on the model trained above with its phases set back to 0, and print how far its 150 steps moved
# them.

# %% tags=["nbval-ignore-output"]
scenes = test.images[:256]
mirror = torch.arange(9).view(3, 3).flip(1).flatten()  # patch (r, c) <- patch (r, 2 - c)
zeroed = ViT(config.with_(position="pope"))
zeroed.load_state_dict(trained["pope"].state_dict())
with torch.no_grad():
    zeroed.pos.delta.zero_()
    mirror_gap = (zeroed(shuffle_patches(scenes, 8, mirror)) - zeroed(scenes)).abs().max().item()
    trained_gap = (trained["pope"](shuffle_patches(scenes, 8, mirror)) - trained["pope"](scenes)).abs().max().item()
phase_moved = trained["pope"].pos.delta.abs().max().item()
print(f"trained PoPE, phases set to 0: mirrored scenes change its outputs by at most {mirror_gap:.1e}")
print(f"with its trained phases: by at most {trained_gap:.3f}")
print(f"after 150 steps the largest phase is {phase_moved:.3f} rad ({math.degrees(phase_moved):.1f} degrees)")

# %%
assert mirror_gap < 1e-5, "PoPE at phase 0: blind to the mirror, whatever its other weights"
lesson.claim("150 steps move no phase by more than 0.2 rad", phase_moved, "<", 0.2, about="absence")

# %% [markdown]
# With its phases at 0 the trained model answers a mirrored scene exactly as the scene itself. With
# the phases it learned, its outputs differ (printed). In 150 steps the phases move by less than
# 0.2 rad (11 degrees). The mirror leaves the axis alone: a pair on a row stays on a row. So at phase 0
# PoPE can still learn the axis, but the side needs the phases to move away from 0. With
# `phase_bias=False` they never do, and the side is out of reach for good, as for ALiBi-2D. Why they
# move so little this lesson does not measure. The recorded sweep below shows what 1,000 steps make
# of it, and exercise 6 tries phases started elsewhere.

# %% [markdown]
# ### The family at a new size: a recorded sweep
#
# This is lesson 08's protocol. Each member trains at 24 px on the relation task (1,000 steps, 4,000
# scenes), then is tested on the same scenes zoomed to 16-48 px with no further training, on three
# seeds. The runs are recorded (`python -m minivit.experiments.resolution --settings relation-family
# distance-family --seeds 3 --threads 1 --out minivit/experiments/recorded/rope_family.json`). The
# relation runs take about 40 minutes on one busy CPU core, and the command carries on from the runs
# already in the file. This is the course's own small set-up, not any paper's, so no published number
# applies.

# %%
from minivit.experiments import recorded

family_sweep, zoom_sweep = recorded("rope_family.json"), recorded("resolution.json")
sizes = family_sweep["settings"]["relation-family"]["test_sizes"]
runs = {(r["variant"], r["seed"]): r["accuracy"] for r in family_sweep["runs"] if r["setting"] == "relation-family"}
print("accuracy at " + ", ".join(f"{s} px" for s in sizes) + " (chance 0.25)")
for (name, seed), acc in runs.items():
    print(f"{name:>12}, seed {seed}: " + "  ".join(f"{acc[str(s)]:.2f}" for s in sizes))
learned_runs = {key: acc for key, acc in runs.items() if acc["24"] > 0.9}
plateau = {name: sum(acc["24"] < 0.6 for (n, _), acc in runs.items() if n == name) for name in family}
kept = {f"{name}, seed {seed}": max(acc[str(s)] - 0.25 for s in sizes if s != 24) / (acc["24"] - 0.25)
        for (name, seed), acc in learned_runs.items()}


zoom_runs = {(r["variant"], r["seed"]): r["accuracy"] for r in zoom_sweep["runs"] if r["setting"] == "relation"}
on_plateau = {sweep: sorted((n, s) for (n, s), acc in rs.items() if n in ("rope-axial", "rope-mixed") and acc["24"] < 0.6)
              for sweep, rs in (("lesson 08's sweep", zoom_runs), ("this sweep", runs))}
print("still on the plateau at step 1,000 (seeds of 3):", plateau)
print("rope-axial and rope-mixed runs on the plateau at step 1,000, seeds 0-2:", on_plateau)

# %%
lesson.claim("recorded: every run that learned keeps less than half of what it had above chance at every other size", kept, "<", 0.5)
rotation_members = [name for name in family if name != "pope"]
lesson.claim("recorded: no rotation member is on the plateau on more than one seed of three", {n: plateau[n] for n in rotation_members}, "<=", 1)
assert plateau["pope"] == 3, "recorded: PoPE is on the plateau on all three seeds"
assert len(learned_runs) + sum(plateau.values()) == len(runs), "every run either learned the task or sits on its plateau"
assert on_plateau["lesson 08's sweep"] != on_plateau["this sweep"], "two recordings of one setting differ in which runs learned"
same_setting = {k: v for k, v in family_sweep["settings"]["relation-family"].items() if k != "variants"}
assert same_setting == {k: v for k, v in zoom_sweep["settings"]["relation"].items() if k != "variants"}, "one setting in both"
assert family_sweep["provenance"]["torch"] == zoom_sweep["provenance"]["torch"], "one torch version in both recordings"
print("recorded on:", family_sweep["provenance"]["hardware"], "(this sweep);", zoom_sweep["provenance"]["hardware"], "(lesson 08's)")

# %% [markdown]
# Every run that learned the task keeps less than half of what it had above chance at every other
# size. On a zoom, no member carries what it learned at 24 px to the new scale, as lesson 08 found
# for the other encodings. At step 1,000 some runs are still on the task's plateau: accuracy about
# 0.5. In the live runs above that meant the axis right and the side at chance (the recordings keep
# accuracy only). Every run is either on it or has learned the task. For the rotation members, which
# runs are on it depends on the seed, and none is on it on more than one seed of three. PoPE is on
# it on all three seeds (its runs were recorded a day after the others', on the same kind of
# machine). By step 1,000 it has not learned the side, which needs its phases away from 0. Whether
# phases started elsewhere would learn it, this sweep does not measure (exercise 6).
#
# Among the rotation members the sweep cannot rank. Lesson 08's sweep has the same setting, seeds
# and torch version (asserted). There every RoPE-axial and RoPE-mixed run learned by step 1,000. Here
# RoPE-mixed seed 0 and RoPE-axial seed 2 are still on the plateau (the last line printed above). The
# two recordings ran different code: lesson 08's trained each seed alone with `fit`, on two threads;
# this one trained each member's seeds together with `fit_ensemble` (batched, its attention written
# out, equal to single runs only to float32 rounding), on one thread. Both change the order in which
# floating-point sums are added, and at this scale that can decide whether a run leaves the plateau.
# A run on the plateau has little above chance to lose, so which member "keeps more" off its training
# size turns on which of its runs learned. At this scale the order of two members is as much the
# run's as the encoding's. Telling them apart needs more seeds, longer runs, or a task built for the
# difference (diagonal directions for Spiral RoPE).

# %% [markdown]
# ### The family on larger canvases: a recorded sweep
#
# Lesson 08's other protocol keeps the content and adds tokens. The distance task asks how many cells
# lie between the circle and the square: 0, 1 or 2 (chance 1/3). Each member trains on a 4×4 canvas
# of 8 px cells (32 px, 3,000 steps) and is tested on canvases of 3×3 to 8×8 such cells, where an
# offset of one patch still means one cell. The mirror changes no answer here, so PoPE at phase 0 is
# not blind to the task. Same command and file as above; three seeds per member.

# %%
canvas_sizes = family_sweep["settings"]["distance-family"]["test_sizes"]
canvas = {(r["variant"], r["seed"]): r["accuracy"] for r in family_sweep["runs"] if r["setting"] == "distance-family"}
print("accuracy on canvases of " + ", ".join(f"{s} px" for s in canvas_sizes) + " (chance 0.33; trained at 32 px)")
for (name, seed), acc in canvas.items():
    print(f"{name:>12}, seed {seed}: " + "  ".join(f"{acc[str(s)]:.2f}" for s in canvas_sizes))
at_40 = {name: [canvas[name, seed]["40"] for seed in range(3)] for name in family}
print("at 40 px (5x5 cells), mean over seeds:", {name: round(sum(a) / 3, 3) for name, a in at_40.items()})
spread_seeds = max(max(at_40[n]) - min(at_40[n]) for n in rotation_members)  # one member's seeds
spread_members = max(sum(at_40[n]) / 3 for n in rotation_members) - min(sum(at_40[n]) / 3 for n in rotation_members)
print(f"at 40 px: largest spread over one rotation member's seeds {spread_seeds:.2f}, over the members' means {spread_members:.2f}")

# %%
assert len(canvas) == 3 * len(family), "every member, three seeds"
lesson.claim("recorded, canvas: every run learns the 4×4 canvas", {f"{n}, seed {s}": acc["32"] for (n, s), acc in canvas.items()}, ">", 0.99)
lesson.claim("recorded, canvas: every rotation member keeps more than 0.7 at 40 px, on average over its seeds",
             {n: sum(at_40[n]) / 3 for n in rotation_members}, ">", 0.7)
lesson.claim("recorded, canvas: PoPE is no better than chance on every larger canvas, on every seed",
             {f"{s} px, seed {seed}": canvas["pope", seed][str(s)] for seed in range(3) for s in canvas_sizes if s > 32}, "<", 0.378)  # chance, 1/3, + 3 s.d. of 1,000 guesses
lesson.claim("recorded, canvas: at 40 px one member's seeds spread more than the members' means",
             spread_seeds - spread_members, ">", 0.1)
far_down = [acc["64"] < 0.7 for (n, _), acc in canvas.items() if n in rotation_members]
lesson.claim("recorded, canvas: at 64 px most rotation runs keep less than 0.7", sum(far_down) / len(far_down), ">", 0.5)
assert canvas["pope", 0]["40"] < 1 / 3 - 3 * math.sqrt(2 / 9 / 1000), "recorded, canvas: PoPE seed 0 at 40 px, below chance"

# %% [markdown]
# On a larger canvas, where offsets keep their meaning, the rotation members carry what they learned
# one cell further. On a 5×5 canvas each keeps more than 0.7 on average over its seeds, and some runs
# keep nearly all of it (the rows above). By 8×8 cells (64 px, four times the tokens) most rotation
# runs keep less than 0.7. PoPE learns the 4×4 canvas on every seed and is no better than chance on
# every larger one (0.19-0.36). It drops to 0.51-0.60 on the smaller 3×3 canvas: what it learned
# carries to no other canvas size. On seed 0 at 40 px it scores 0.19, well below chance: with 1,000
# test scenes, guessing would land within about 0.03 of 1/3. So that run is not guessing but
# systematically wrong. Why, this sweep does not measure. PoPE's scores are sums of cosines of
# offsets weighted by softplus lengths, and which part of that fails on another canvas is a question
# for exercise 7.
#
# Three seeds do not rank the rotation members as a whole either. Some pairs separate: STRING's three
# seeds all lie above LieRE's at 40 px. But RoPE-axial's seeds alone span 0.49-1.00 there, wider than
# the spread of the members' means (printed).

# %% [markdown]
# ## What we covered
#
# Points marked *(Going deeper)* come from the optional section; the others, from the main path.
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - A turn of a channel pair is $e^{\varphi J}$, and the exponential of any skew-symmetric matrix is
#   orthogonal. Axial and mixed RoPE are $\exp(r A_{row} + c A_{col})$ with block-diagonal generators,
#   which commute.
# - Commuting generators keep the score a function of the offset: $R(x)^\top R(y) = R(y - x)$.
#   Otherwise $e^{tA}e^{tB}$ and $e^{t(A+B)}$ differ first by $\tfrac{t^2}{2}[A, B]$.
# - LieRE's dense generators do not commute: pairs at one offset score differently, except on a line
#   through the origin. `commuting=True` restores the offset-only score.
# - STRING is RoPE after a learned rotation $P$. It is offset-only for any $P$ and equals the mixed
#   RoPE it wraps at $P = I$. In a ViT, $P$ folds into $W_q$ and $W_k$: it changes the
#   parametrisation, not the functions the model can compute.
# - Spiral RoPE with $K = 2$ is axial RoPE exactly. With $K = 4$ a head can draw a diagonal stripe.
#   With more directions, keys at one distance score nearly alike in every direction out to a larger
#   distance: 5 patches for $K = 4$, past 8 for $K = 8$ *(Going deeper)*.
# - PoPE makes each channel a length from content and an angle from position. At phase 0, with one
#   key content at every patch, every content scores the key on top of the query highest. Phases that
#   agree on one offset make every content look there.
# - Trained for 150 steps, the six members cannot be ranked, and only LieRE leaves the offset-only
#   score. At phase 0 PoPE is blind to the mirror, and 150 steps move its phases little
#   *(Going deeper)*.
# - Recorded at new sizes over three seeds: on a zoom every run that learned loses most of what it had,
#   and two recordings of one setting differ in which RoPE runs learned. On larger canvases the
#   rotation members keep more than 0.7 one cell further on average, PoPE is no better than chance,
#   and one member's seeds spread more than the members' means *(Going deeper)*.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. Every 2-D RoPE in `minivit` (`rope-axial`, `rope-mixed`, `rope-spiral`) turns pair $i$ by an
#    angle linear in the position. Write `answer_12_1(encoding, grid)`: its generators for head 0
#    of block 0, a tensor [2, Dh, Dh] ($A_{row}$, $A_{col}$), such that
#    $\exp(r A_{row} + c A_{col})$ turns a vector as `encoding.rotate` does at every patch
#    $(r, c)$ of `grid`. (`encoding.angles(grid, 0)` gives every patch's angles.)

# %% tags=["exercise"]
from minivit import exercises

answer_12_1 = ...  # your code

# %% tags=["exercise"]
exercises.check("12.1", answer_12_1)

# %% [markdown]
# 2. Multiply the series of $e^{tA}e^{tB}$ and $e^{t(A+B)}$ out to the terms in $t^2$. Write
#    `answer_12_2(a, b, t)`: the leading term of $e^{tA}e^{tB} - e^{t(A+B)}$, a matrix. The check
#    compares it with the difference itself for small $t$.

# %% tags=["exercise"]
answer_12_2 = ...  # your code

# %% tags=["exercise"]
exercises.check("12.2", answer_12_2)

# %% [markdown]
# 3. Spiral RoPE with $K$ directions: which group's pairs do not turn at all along the diagonal
#    offset $(d, d)$, so that $q = k$ on them draws lesson 05's stripe? Write `answer_12_3(K)`: that
#    group's index, or None where no group does (then this $K$ cannot draw the stripe with one
#    group). Which $K$ have one?
# 4. (discussion) Train `string` next to `rope-mixed` for the same 150 steps over several seeds.
#    Both start as the same model, and $P$ folds into the projections; does learning $P$ change how
#    fast the model finds the axis? Try `string` with `frequencies="axial"` against `rope-axial` too.
# 5. (discussion) Build a task whose answer needs diagonal directions (lesson 05, exercise 2) and
#    compare `rope-axial` with `rope-spiral`. How many steps and seeds does it take to tell them apart?
# 6. (discussion) Start PoPE's phases away from 0 (`with torch.no_grad():
#    model.pos.delta.uniform_(-2 * math.pi, 0)`) and train it on the relation task for 1,000 steps
#    (`fit(model, train, steps=1000, lr=3e-3)`) over three seeds. Is a fresh model still blind to the
#    mirror? Does it leave the plateau, on every seed? (The sweep's runs trained on other draws of
#    the scenes, so compare the pattern, not the numbers.)
# 7. (discussion) Train `pope` on the distance task's 4×4 canvas (`load_task("distance", image_size=32,
#    train_size=4000)`, `ViTConfig(image_size=32, patch_size=8, num_classes=3, position="pope")`,
#    3,000 steps) and look at its block-0 attention on a 4×4 and on a 6×6 canvas
#    (`task.on_canvas(48)`, lesson 11's tools). What changes with more tokens?

# %% tags=["exercise"]
answer_12_3 = ...  # your code

# %% tags=["exercise"]
exercises.check("12.3", answer_12_3)

# %% [markdown]
# 8. Compute PoPE's score from its formula: `answer_12_8(q, k, offset, theta, delta)` for q, k
#    [Dh], `offset` $= x_q - x_k$ as (Δr, Δc), `theta` [Dh, 2] each channel's turn per row and per
#    column, and `delta` [Dh] the keys' phases. With δ = 0, at which offset is every channel's term
#    largest, whatever q and k?

# %% tags=["exercise"]
answer_12_8 = ...  # your code

# %% tags=["exercise"]
exercises.check("12.8", answer_12_8)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | $e^{\varphi J}$ is the rotation by $\varphi$ | `torch.testing.assert_close(expm(phi * J), turn)` | $J$ is transposed (the rotation by $-\varphi$) |
# | `rotate_pairs` turns a pair by $e^{\varphi J}$ | `torch.testing.assert_close(by_exp.float(), rotate_pairs(pairs, phis[:, None].float()), atol=1e-6, rtol=1e-6)` | the pairs are turned by $-\varphi$ |
# | the exponential of a skew-symmetric matrix is orthogonal | `torch.testing.assert_close(a.T, -a)`, `torch.testing.assert_close(expm(a).T @ expm(a), torch.eye(dh, dtype=torch.float64))` | $A$ is not skew-symmetric ($A + A^\top$ in its place) |
# | axial RoPE is $\exp(r A_{row} + c A_{col})$ with block-diagonal generators | `torch.testing.assert_close(rotations(axial_gens, rc) @ x, by_encoding(axial, x), atol=1e-5, rtol=1e-5)` | the row and column generators are swapped |
# | mixed RoPE is the same with $\mathrm{diag}(f_{y,i}J)$, $\mathrm{diag}(f_{x,i}J)$ | `torch.testing.assert_close(rotations(mixed_gens, rc) @ x, by_encoding(mixed, x), atol=1e-5, rtol=1e-5)` | $f_x$ and $f_y$ are swapped |
# | RoPE's generators commute | `torch.testing.assert_close(a_row @ a_col, a_col @ a_row)` | a generator has a dense part (LieRE) |
# | with commuting generators $e^{A}e^{B} = e^{A+B}$ and $R(x_0)^\top R(x) = R(x - x_0)$ | `torch.testing.assert_close(expm(3 * gens[0]) @ expm(-2 * gens[1]), expm(3 * gens[0] - 2 * gens[1]))`, `torch.testing.assert_close(rotations(gens, rc[7:8]).mT @ rotations(gens, rc), rotations(gens, rc - rc[7]))` | the generators do not commute (LieRE's) |
# | the leading term of $e^{tA}e^{tB} - e^{t(A+B)}$ is $\tfrac{t^2}{2}[A, B]$, and what is left shrinks like $t$ | `lesson.claim("the leading term is t^2 / 2 [A, B]: within 1% at t = 0.01", leading[1e-2], "<", 0.01, about="untrained")`, `assert leading[1e-3] < 0.2 * leading[1e-2], "the error of the leading term shrinks like t"` | the term is taken as $t^2[A, B]$ (error 50% at every $t$) |
# | two random generators do not commute | `lesson.claim("two random generators do not commute", commutator.norm(), ">", 0.2, about="untrained")` | $B$ is a multiple of $A$ (commutator 0) |
# | `minivit`'s LieRE is $\exp(x_r A_1 + x_c A_2)$ at its positions | `torch.testing.assert_close(liere_rot, liere.rotations(grid, 0, torch.float64)[0, :, 0])` | the package's rotation is not the exponential of the generators' sum (e.g. a product of two exponentials, which differs when they do not commute) |
# | on a line through the origin LieRE scores one offset alike | `torch.testing.assert_close(on_line, on_line[..., :1].expand_as(on_line))` | the queries are taken off the line (the table's second diagonal) |
# | LieRE: a sizeable share of the score is not a function of the offset | `lesson.claim("LieRE: a sizeable share of the score is not a function of the offset", liere_within, ">", 0.15, about="untrained")` | `commuting=True` (share within offsets 0) |
# | LieRE: pairs at one offset score differently | `lesson.claim("LieRE: pairs at one offset score differently", liere_spread, ">", 0.08, about="untrained")` | `commuting=True` (spread 0) |
# | `commuting=True`: the generators commute and the score is a function of the offset | `torch.testing.assert_close(c1 @ c2, c2 @ c1)`, `assert commuting_within < 1e-20, "commuting=True: the score is a function of the offset (float64 rounding)"` | the blocks are larger than 2×2 (`block=4` in place of `commuting=True`) |
# | STRING at $P = I$ is the mixed RoPE it wraps, bit for bit | `assert all(torch.equal(u, v) for u, v in zip(string.rotate(*qk, grid, 0), wrapped.rotate(*qk, grid, 0)))` | the two are drawn with different seeds (other frequencies) |
# | STRING's $P$ is orthogonal | `torch.testing.assert_close(p.T @ p, torch.eye(dh, dtype=torch.float64))` | $P = I + S$ instead of $\exp(S)$ |
# | STRING's rotation is $\exp(x_r L_{row} + x_c L_{col})$ with $L = P^\top A P$, and these commute | `torch.testing.assert_close(same_content(rotations(torch.stack([l_row, l_col]), rc), q, k), s_string, atol=1e-4, rtol=1e-4)`, `torch.testing.assert_close(l_row @ l_col, l_col @ l_row)` | the row and the column get different $P$ |
# | STRING's score is a function of the offset for any $P$ | `assert max(fractions) < 1e-9, "STRING: the score is a function of the offset for any P (float32 rounding)"` | the row generator alone is turned into $P^\top A_{row} P$ (generators that no longer commute) |
# | a `string` ViT is a `rope-mixed` ViT with $P$ folded into $W_q$, $W_k$ | `torch.testing.assert_close(out_folded, out_string, atol=1e-5, rtol=1e-4)` | $P$ is folded into the query rows only |
# | the explorer's `spiral_scores` are the model's own scores | `torch.testing.assert_close(t, widgets.spiral_scores(K, head_dim=48).sum(dim=(0, 1)), atol=1e-3, rtol=1e-4)` | the explorer turns the groups by $-\theta_k$ |
# | Spiral RoPE with $K = 2$ is axial RoPE exactly | `assert torch.equal(spiral2.angles(wide, 0), axial_wide.angles(wide, 0))`, `assert all(torch.equal(u, v) for u, v in zip(spiral2.rotate(*qk_wide, wide, 0), axial_wide.rotate(*qk_wide, wide, 0)))` | $K = 4$ |
# | axial RoPE: no row-column interaction, for any $q$, $k$ | `assert axial_interaction < 1e-5, "axial: no row-column interaction, for any q and k"` | Spiral RoPE with $K = 4$ |
# | Spiral RoPE's 135° pairs are constant along the diagonal and lower along the anti-diagonal: the stripe | `assert all(abs(at(stripe, d, d) - 4.0) < 1e-5 for d in ds), "the 135-degree pairs: constant along the diagonal"`, `assert at(stripe, 1, -1) < 0.6 * at(stripe, 1, 1) and interaction(stripe) > 1.0, "and lower along the anti-diagonal"` | $q = k$ on the 45° pairs (constant along the anti-diagonal) |
# | at one distance, axial RoPE's score for $q = k$ = ones depends on the direction | `assert min(spread[2].values()) > 0.15, "axial: at every distance, the score depends on the direction"` | Spiral RoPE with $K = 8$ in its place |
# | with 4 directions it nearly does not at distance 5, but does at √65; with 8 it nearly does not at any distance measured | `assert spread[4][25] < 0.01 and spread[4][65] > 0.05, "four directions: nearly alike at distance 5, not at √65"` `assert max(spread[8].values()) < 0.01, "eight directions: nearly alike at every distance measured"` | $K = 2$ in their place |
# | PoPE at phase 0: every content scores the key on top of the query highest | `assert all(b == (0, 0) for b in best["pope"]), "PoPE, phase 0: every content scores the key on top of the query highest"` | the content keeps an angle (RoPE in its place: the best key moves) |
# | PoPE with $\delta_c = -\theta_c$ on the column channels: every content prefers the patch to the right | `assert all(b == (0, 1) for b in best["pope, phase set"]), "PoPE, phase set: every content prefers the patch to the right"` | the phase is added to the queries instead of the keys (the patch to the left) |
# | RoPE: content moves the best key off the query on most draws | `lesson.claim("RoPE: content moves the best key off the query on most draws", 1 - best["rope-axial"].count((0, 0)) / len(draws), ">", 0.8, about="untrained")` | $q = k$ on every draw (then the best key is on top of the query) |
# | in 150 steps some member tells a row pair from a column pair | `lesson.claim("some member tells a row pair from a column pair in 150 steps", max(axis_accuracy.values()), ">", 0.9)` | the models train without position (`none`: 0.5) |
# | no member yet tells which way round; those with the axis score near its 0.5 | `lesson.claim("no member yet tells which way round", accuracy, "<", 0.6, about="absence")` `lesson.claim("those with the axis are near its 0.5: the axis right, the side at chance", {name: accuracy[name] for name in with_axis}, ">", 0.35)` | the models train for 800 steps or more (lesson 05: some runs pass 0.9), or a member that misses the axis is counted among those with it (chance, 0.25) |
# | trained, the commuting members and PoPE stay offset-only | `assert max(within[name].max() for name in family if name != "liere") < 1e-9, "trained, every member but LieRE stays offset-only"` | `learned` in the family (an added table) |
# | trained, a sizeable share of LieRE's score is not a function of the offset | `lesson.claim("trained LieRE: a sizeable share of the score is not a function of the offset", within["liere"].mean(), ">", 0.15, about="untrained")` | `liere` with `commuting=True` |
# | training moves STRING's $P$ off the identity | `lesson.claim("training moves STRING's P off the identity", p_moved, ">", 0.05, about="training")` | $P$ is frozen (`basis.requires_grad_(False)`) |
# | recorded: every run that learned the relation task at 24 px keeps less than half of what it had above chance at every other size | `lesson.claim("recorded: every run that learned keeps less than half of what it had above chance at every other size", kept, "<", 0.5)` | a member carries its accuracy to the zoom (e.g. tested on a larger canvas instead, where offsets keep their meaning) |
# | recorded: at step 1,000 each run has learned the task or sits on its plateau, and no rotation member sits there on more than one seed of three | `lesson.claim("recorded: no rotation member is on the plateau on more than one seed of three", {n: plateau[n] for n in rotation_members}, "<=", 1)` `assert len(learned_runs) + sum(plateau.values()) == len(runs), "every run either learned the task or sits on its plateau"` | a shorter run (at 150 steps most runs are on the plateau), or a run between the two |
# | recorded: PoPE is on the plateau on all three seeds | `assert plateau["pope"] == 3, "recorded: PoPE is on the plateau on all three seeds"` | a PoPE run above 0.6 at 24 px |
# | PoPE at phase 0 is blind to the mirror, whatever its other weights; 150 steps move no phase by more than 0.2 rad | `assert mirror_gap < 1e-5, "PoPE at phase 0: blind to the mirror, whatever its other weights"` `lesson.claim("150 steps move no phase by more than 0.2 rad", phase_moved, "<", 0.2, about="absence")` | the phases kept as trained in the first check (the outputs then differ); a larger learning rate on the phases (the second) |
# | recorded: two recordings of one setting differ in which RoPE-axial and RoPE-mixed runs learned | `assert on_plateau["lesson 08's sweep"] != on_plateau["this sweep"], "two recordings of one setting differ in which runs learned"` | the same runs learn in both recordings (then a ranking would be worth testing with more seeds) |
# | recorded, canvas: every run of every member learns the 4×4 canvas | `assert len(canvas) == 3 * len(family), "every member, three seeds"` `lesson.claim("recorded, canvas: every run learns the 4×4 canvas", {f"{n}, seed {s}": acc["32"] for (n, s), acc in canvas.items()}, ">", 0.99)` | a run that does not learn the task in 3,000 steps |
# | recorded, canvas: every rotation member keeps more than 0.7 at 40 px on average over its seeds | `lesson.claim("recorded, canvas: every rotation member keeps more than 0.7 at 40 px, on average over its seeds", {n: sum(at_40[n]) / 3 for n in rotation_members}, ">", 0.7)` | a member whose offsets change meaning on a larger canvas (RoPE-mixed with interpolation in lesson 08: 0.36) |
# | recorded, canvas: PoPE is no better than chance on every larger canvas, on every seed | `lesson.claim("recorded, canvas: PoPE is no better than chance on every larger canvas, on every seed", {f"{s} px, seed {seed}": canvas["pope", seed][str(s)] for seed in range(3) for s in canvas_sizes if s > 32}, "<", 0.378)` | a PoPE run that carries the task to 5×5 cells, as the rotation members do |
# | recorded, canvas: at 64 px most rotation runs keep less than 0.7 | `lesson.claim("recorded, canvas: at 64 px most rotation runs keep less than 0.7", sum(far_down) / len(far_down), ">", 0.5)` | the rotation members carry the task to 8×8 cells |
# | recorded, canvas: at 40 px one member's seeds spread more than the members' means, so the sweep does not rank them as a whole | `lesson.claim("recorded, canvas: at 40 px one member's seeds spread more than the members' means", spread_seeds - spread_members, ">", 0.1)` | every member's seeds agree within less than the gaps between members (then the means would rank them) |
# | recorded: lesson 08's sweep and this one share the setting (all but the list of encodings) and the torch version | `assert same_setting == {k: v for k, v in zoom_sweep["settings"]["relation"].items() if k != "variants"}, "one setting in both"` `assert family_sweep["provenance"]["torch"] == zoom_sweep["provenance"]["torch"], "one torch version in both recordings"` | a recording with other steps, sizes or data, or on another torch version (then the two recordings differ in that as well as in their code path and thread count) |
# | recorded, canvas: PoPE's seed 0 at 40 px scores more than three standard errors below chance | `assert canvas["pope", 0]["40"] < 1 / 3 - 3 * math.sqrt(2 / 9 / 1000), "recorded, canvas: PoPE seed 0 at 40 px, below chance"` | a recording in which that run guesses (within three standard errors of 1/3) |
