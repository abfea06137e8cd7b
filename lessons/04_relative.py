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
# # 04 · Relative position bias: learn a score for every offset
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/minivit-course/minivit/blob/main/lessons/04_relative.ipynb)
#
# Absolute encodings tell each token where *it* is. A relative encoding tells attention how far
# apart two tokens are. A ball two patches left of a cat makes the same scene wherever the pair
# sits in the image. A score that depends only on the offset sees it the same way everywhere.
#
# The simplest relative encoding is a table with one learned number per offset and head. The
# number is added to the attention score of every pair at that offset. The picture below shows one,
# made by hand, that favours near patches (left). From any query patch, the bias is the same table
# centred on that patch (right). T5 (Raffel et al. 2020, arXiv 1910.10683) learns such numbers for
# text. Swin (Liu et al. 2021, arXiv 2103.14030) learns one per 2-D offset (Δrow, Δcolumn).
#
# **What you will learn**
# - Shaw et al.'s clipped relative positions, and the index matrix behind them;
# - the 2-D bias table, $(2g_h-1)(2g_w-1)$ entries per head, and how Swin indexes it, by hand;
# - that the bias is the same for every pair at one offset, and a zero table is no encoding at all;
# - why a bias table learns slowly with Adam, and what a trained table does on a task about
#   distance.
#
# Runs top to bottom in about a minute on a laptop CPU (most of it one training run).

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
from minivit import ViT, ViTConfig, analysis, lesson, viz, widgets
from minivit.data import make_task
from minivit.evaluate import evaluate
from minivit.posenc import build, grid_coords, relative_offsets
from minivit.train import default_warmup, fit, lr_at

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %%
picture_grid = (5, 5)
d_ = torch.arange(-4.0, 5.0)
near = -(d_[:, None] ** 2 + d_[None, :] ** 2).sqrt()  # (9, 9): one number per offset, highest at (0, 0)
widgets.relative_view(near[None], picture_grid, clip=4, head=0, query=7)

# %% [markdown]
# ## From absolute to relative: clipped offsets
#
# For a sequence, Shaw et al. (2018, arXiv 1803.02155) index a learned table by the offset $j - i$
# from query $i$ to key $j$. They clip it to $[-k, k]$: beyond $k$ steps, all offsets on one side
# share one entry (entry 0 to the left, $2k$ to the right). With 7 tokens and $k = 2$ the table
# has $2k+1 = 5$ entries. This matrix says which one each pair uses.

# %%
n, k = 7, 2
i = torch.arange(n)
index = (i[None, :] - i[:, None]).clamp(-k, k) + k  # row: query i, column: key j
print(index)
assert index.unique().tolist() == list(range(2 * k + 1))
assert (torch.diagonal(index) == k).all() and index[0, -1] == 2 * k and index[-1, 0] == 0

# %% [markdown]
# ## The 2-D table
#
# On a $g_h \times g_w$ grid, the offset between two patches is $(\Delta r, \Delta c)$, with
# $\Delta r$ from $-(g_h-1)$ to $g_h-1$ and $\Delta c$ from $-(g_w-1)$ to $g_w-1$. That makes
# $(2g_h-1)(2g_w-1)$ possible offsets. The table keeps one learned number per offset and head. It
# adds $B_h[\Delta r, \Delta c]$ to the score of every pair. The offset is the query's position minus
# the key's (Swin's convention). Shaw's $j - i$ above is key minus query: the same table, read
# mirrored. Swin attends only within $M \times M$ windows, so its table has $(2M-1)^2$ entries per
# head. `minivit` attends over the whole grid, so its "window" is the grid. We index the table by
# hand, with Swin's flat index, and compare with `minivit`'s `relative` encoding.

# %%
grid = (4, 5)
enc = build("relative", dim=32, heads=2, depth=1, grid=grid)
table = enc.table[0].detach()  # (H, 2gh-1, 2gw-1)
print("table per head:", tuple(table.shape[1:]), "=", table[0].numel(), "entries for", grid[0] * grid[1], "patches")
assert table[0].numel() == (2 * grid[0] - 1) * (2 * grid[1] - 1)

rc = grid_coords(grid, dtype=torch.long)  # (N, 2)
dr = rc[:, None, 0] - rc[None, :, 0]  # (N, N): row offset of each (query, key) pair
dc = rc[:, None, 1] - rc[None, :, 1]
flat = (dr + grid[0] - 1) * (2 * grid[1] - 1) + (dc + grid[1] - 1)  # one index per pair, as Swin does
by_hand = table.reshape(2, -1)[:, flat]  # (H, N, N)
torch.testing.assert_close(by_hand, enc.attn_bias(grid, layer=0))
print("bias by hand == minivit's relative encoding")

# %% [markdown]
# Every pair of patches at the same offset shares one entry, so the bias does not change when both
# patches move together: it is *translation invariant*. And with a table of zeros the bias is zero
# everywhere, which is exactly the model with no positional encoding.

# %%
bias = enc.attn_bias(grid, 0)
off = relative_offsets(grid)
for dr_, dc_ in [(0, 1), (1, -2), (-3, 4)]:
    pairs = ((off[..., 0] == dr_) & (off[..., 1] == dc_)).nonzero()
    values = bias[:, pairs[:, 0], pairs[:, 1]]
    assert torch.allclose(values, values[:, :1].expand_as(values))
    print(f"offset ({dr_:+d}, {dc_:+d}): {len(pairs)} pair{'s' if len(pairs) > 1 else ''} of patches, one bias per head")

config = ViTConfig(image_size=16, patch_size=4, num_classes=4, heads=2, position="relative")
model = ViT(config).eval()
with torch.no_grad():
    model.pos.table.zero_()
    plain = ViT(config.with_(position="none")).eval()
    plain.load_state_dict({k_: v for k_, v in model.state_dict().items() if not k_.startswith("pos.")})
    x = torch.rand(4, 3, 16, 16)
    torch.testing.assert_close(model(x), plain(x))
print("a zero table gives exactly the model without positional encoding")

# %% [markdown]
# ## How fast can a table learn?
#
# Adam moves every parameter by about the learning rate per step while its gradient keeps its size,
# whatever that size is. So over a run an entry of the table can move by about the sum of the
# learning rates: its *reach*. A bias $b$ multiplies an attention weight by at most $e^{b}$. For one
# key among 16 to get half a query's attention from the bias alone, its entry must stand
# $\ln 15 \approx 2.7$ above the others.

# %%
steps, lr = 600, 3e-3
reach = sum(lr_at(step, steps=steps, lr=lr, warmup=default_warmup(steps)) for step in range(steps))
print(f"{steps} steps at lr {lr} with warmup and cosine decay: reach {reach:.2f}; "
      f"at 10x the learning rate {10 * reach:.1f}; ln 15 = {math.log(15):.2f}")

# %% [markdown]
# At the model's own learning rate the table can typically only tilt attention
# ($e^{0.9} \approx 2.5$), not focus it. Adam's step can be larger for a while, when a gradient that
# was near zero keeps growing. With the default betas it stays under about 7.3 times the rate
# (Going deeper computes it). Swin trains for hundreds of epochs. We give the table 10× the learning
# rate instead (`position_lr_scale=10`); exercise 1 asks what happens without it. Keep the reach in
# mind wherever the course compares encodings in short runs at one learning rate. There a bias table
# starts handicapped.
#
# ## A trained table, head by head
#
# We train a ViT with relative bias (4 heads, one table per block) on `distance`. A circle and a
# square lie on one row or column of a 4×4 layout. The answer is how far apart they are: 0, 1 or 2
# cells between them. With 8-pixel patches each cell is one patch. So every image holds the same
# patches whatever the answer: a circle, a square and 14 empty ones. A model without position sits
# at chance, 1/3 (lesson 00). The table is the only place this model can learn position.
#
# Then we measure what the table does:
# - the accuracy of the trained model, and of the same model with its table set to zero;
# - for each head, the mean attention distance (Dosovitskiy et al. 2021, Fig. 7) of the softmax of
#   the bias alone, before and after training. A uniform head looks at the grid's mean distance, 2.0
#   patches;
# - how much of the strongest head's table is a function of the offset's *length* alone: its share
#   of the table's variance, 1 for rings around (0, 0), about 0.2 for a random table.

# %% tags=["nbval-ignore-output"]
train, test = make_task("distance", 4096, seed=SEED), make_task("distance", 1000, seed=SEED + 1)
g = (4, 4)  # 32-pixel images, 8-pixel patches: one patch per cell
torch.manual_seed(SEED)
trained = ViT(ViTConfig(image_size=32, patch_size=8, num_classes=3, heads=4, position="relative"))


def bias_distance(model):
    """Each head's mean attention distance under the bias alone: [blocks, heads]."""
    with torch.no_grad():
        return torch.stack([
            analysis.mean_attention_distance(model.pos.attn_bias(g, layer).softmax(-1)[None], g)
            for layer in range(len(model.blocks))
        ])


length = torch.arange(-3.0, 4.0)
_, ring = (length[:, None] ** 2 + length[None, :] ** 2).flatten().unique(return_inverse=True)


def length_share(table):
    """Share of the variance of an offset table [7, 7] that is a function of the offset's length."""
    t = table.flatten()
    by_length = torch.zeros(int(ring.max()) + 1).index_add_(0, ring, t) / torch.bincount(ring)
    return 1 - ((t - by_length[ring]) ** 2).sum().item() / ((t - t.mean()) ** 2).sum().item()


def strongest(tables):
    """The table [7, 7] of the head whose entries span the widest range, over every block."""
    flat = tables.flatten(0, 1)
    return flat[(flat.amax((-1, -2)) - flat.amin((-1, -2))).argmax()]


initial, distance_before = trained.pos.table.detach().clone(), bias_distance(trained)
history = fit(trained, train, steps=steps, lr=lr, position_lr_scale=10, eval_data=test, desc="relative", seed=SEED)
learned, distance_after = trained.pos.table.detach().clone(), bias_distance(trained)
accuracy = evaluate(trained, test)
with torch.no_grad():
    trained.pos.table.zero_()
    zeroed = evaluate(trained, test)
    trained.pos.table.copy_(learned)
spread_before = (distance_before.max() - distance_before.min()).item()
spread = (distance_after.max() - distance_after.min()).item()
print(f"accuracy {accuracy:.2f}; with the table zeroed {zeroed:.2f} (chance 0.33)")
print(f"largest entry {initial.abs().max():.2f} before, {learned.abs().max():.2f} after; "
      f"it moved by up to {(learned - initial).abs().max():.2f} (reach at 10x: {10 * reach:.1f})")
for name, d in (("before", distance_before), ("after", distance_after)):
    print(f"mean attention distance of the bias, {name:>6}:",
          " | ".join(" ".join(f"{v:.2f}" for v in block) for block in d.tolist()))
print(f"spread across heads: {spread_before:.2f} before, {spread:.2f} after")
share_before, share = length_share(strongest(initial)), length_share(strongest(learned))
print(f"strongest head: {share:.0%} of its table is a function of the offset's length ({share_before:.0%} before)")

# %%
lesson.claim("the trained model learns the task", accuracy, ">", 0.6)
lesson.claim("sanity check: with a zero table, chance", zeroed, "<", 0.4, about="absence")
lesson.claim("entries grow beyond the 1x reach", learned.abs().max(), ">", reach, about="training")
assert spread_before < 0.05  # untrained: every head at the grid's mean
lesson.claim("heads come to look at different distances", spread, ">", 0.15, about="training")
lesson.claim("the strongest head's table is a ring: a function of distance, not direction", share, ">", 0.8)
viz.head_tables(learned, title="head")

# %% [markdown]
# The trained model answers well above chance: the table learned which offsets matter. In the
# margin sweep it solves the task (1.0) in 47 runs of 48; one run stopped at 0.67, still well above
# chance (1/3) and above the claim's 0.6. The same weights with a zero table fall to chance. That is
# a sanity check, not a finding. A zero table *is* the model without position (shown above), and
# that model cannot tell the answers apart. The largest entry grows past the 1× reach (printed
# above): the 10× rate is in use. Training on shuffled labels or on noise gradients does that too
# (`lessons/CLAIMS.md`), so it says nothing about the task.
#
# Before training, every head's bias alone looks at the mean distance of the grid. After training,
# the heads' biases differ in how far they would look. (This is the softmax of the bias, without the
# content scores.) That alone is what any training does: with shuffled labels, or with gradients
# that are noise of the same size, the heads move apart by as much as some real runs do
# (`lessons/CLAIMS.md`). What the task adds is the shape of the tables. The strongest is a ring
# around (0, 0): raised or lowered at some distance, much the same in every direction. That is what
# a question about distance, not direction, asks for, and no null run makes one. It holds for the strongest head on every seed of the margin sweep (the
# course's runs of every lesson over many seeds, `lessons/CLAIMS.md`); other heads
# can be directional. Which head takes which distance changes from seed to seed (run the lesson with
# `MINIVIT_SEED=1` and `2`).

# %% [markdown]
# ## Try it: clip distance, head, query
#
# The trained block-1 table seen through clipping (left): entries beyond the clip distance are
# replaced by the outermost ones. Right: the bias it gives from one query patch to every patch. The
# slider clips a table trained *without* clipping, after the fact. A model trained with a clip
# learns its own table.

# %% tags=["nbval-ignore-output"]
widgets.relative_explorer(learned[1], g)

# %% [markdown]
# ## Going deeper
#
# ### Other relative encodings
#
# Shaw et al. learned a *vector* per clipped offset. T5 reduced it to a number per offset and head,
# with offsets grouped into buckets: one per offset for small offsets, log-spaced beyond. BEiT (Bao
# et al. 2021, arXiv 2106.08254) uses Swin's 2-D table over the whole grid. It also learns three
# extra entries for the class token (class→patch, patch→class, class→class); `minivit` gives the
# class token zero bias. Wu et al. (2021, iRPE, arXiv 2107.14222) compare the 2-D variants for ViTs.
# One is a number per offset, as here. Another is a vector that interacts with the query. Offsets
# can keep their direction or only their length.
#
# ### Clipping and new grids
#
# Clipped at $k$, the table has $(2k+1)^2$ entries per head whatever the grid. Any grid can be
# indexed: offsets beyond $k$ reuse the outermost entries. Without clipping, a larger grid has
# offsets the table never saw. Swin resizes the table bicubically to the new size, and `minivit`
# does the same (or clamps, with `resize="clamp"`). On a *smaller* grid, clamping is exact. Every
# offset there was trained, so the bias is the trained table cropped. The bicubic resize instead
# squashes the table and moves each offset's entry. Swin V2 (Liu et al. 2022, arXiv 2111.09883)
# replaces the table with a small network of log-spaced offsets, so a new size needs no resize at
# all. Lesson 08 measures what resizing costs.

# %%
clipped = build("relative", dim=32, heads=2, depth=1, grid=grid, clip=1)
print("clipped at 1:", tuple(clipped.table.shape[2:]), "entries per head;",
      "bias at an 8x8 grid:", tuple(clipped.attn_bias((8, 8), 0).shape))
b8 = clipped.attn_bias((8, 8), 0)
assert clipped.table.shape[2:] == (3, 3)
assert torch.equal(b8[:, 0, 63], clipped.table[0, :, 0, 0])  # offset (-7, -7) clipped to (-1, -1)
resized, radius = enc.table_for((8, 8), 0)
print("unclipped table resized for an 8x8 grid:", tuple(resized.shape[1:]), "offsets up to", radius)
assert resized.shape[1:] == (15, 15)
small, ramps = (3, 3), {}
for how in ("clamp", "interpolate"):
    ramps[how] = build("relative", dim=32, heads=2, depth=1, grid=grid, resize=how)
    with torch.no_grad():  # a table whose entry is the column offset dc, from -4 to 4
        ramps[how].table.copy_(torch.arange(-4.0, 5.0).expand_as(ramps[how].table))
off3 = relative_offsets(small)
trained_entries = ramps["clamp"].table[0][:, off3[..., 0] + grid[0] - 1, off3[..., 1] + grid[1] - 1]
print("3x3 grid, bias at offset (0, -2) (trained entry -2):",
      ", ".join(f"{how} {ramps[how].attn_bias(small, 0)[0, 0, 2]:.2f}" for how in ramps))
assert torch.equal(ramps["clamp"].attn_bias(small, 0), trained_entries)

# %% [markdown]
# Every encoding that adds a bias to the scores has a cost on a GPU. By PyTorch's documentation,
# `scaled_dot_product_attention` uses FlashAttention only without one. So relative bias (and ALiBi,
# lesson 06) runs on the memory-efficient kernel instead. Lesson 09 comes back to this.
#
# ### How large can one Adam step be?
#
# Kingma & Ba (2015, arXiv 1412.6980, §2.1) call $(1-\beta_1)/\sqrt{1-\beta_2} \approx 3.16$ times
# the rate an upper bound on the step. It is the step of one case: a single non-zero gradient after
# many zeros. It is not a bound. By the
# Cauchy–Schwarz inequality, the largest step over any history of gradients is
#
# $$\frac{1-\beta_1}{\sqrt{1-\beta_2}}\cdot\frac{1}{\sqrt{1-\beta_1^2/\beta_2}} \approx 7.27$$
#
# times the rate with the default betas (0.9, 0.999). Gradients that grow by $\beta_2/\beta_1$ per
# step reach it. We check with `torch.optim.Adam`: a long quiet run, so that the bias corrections
# fade, then such growing gradients.

# %%
beta1, beta2 = 0.9, 0.999
single = (1 - beta1) / math.sqrt(1 - beta2)
ceiling = single / math.sqrt(1 - beta1**2 / beta2)
w = torch.zeros(1, dtype=torch.float64, requires_grad=True)
adam = torch.optim.Adam([w], lr=lr, betas=(beta1, beta2))
for _ in range(10_000):  # zero gradients: no step, while the bias corrections fade
    w.grad = torch.zeros_like(w)
    adam.step()
grad = 1e-3
for _ in range(200):  # gradients that grow by beta2 / beta1 per step
    before = w.detach().clone()
    w.grad = torch.full_like(w, grad)
    adam.step()
    grad *= beta2 / beta1
largest = ((w.detach() - before).abs() / lr).item()
print(f"one gradient after zeros: {single:.2f} x lr; the ceiling: {ceiling:.2f} x lr; "
      f"torch.optim.Adam's last step: {largest:.2f} x lr")
assert single < largest < ceiling + 1e-9 and largest > 0.99 * ceiling, "growing gradients reach the ceiling"

# %% [markdown]
# ## What we covered
#
# Points marked *(Going deeper)* come from the optional section; the others, from the main path.
# The course's own terms are defined in the [glossary](../docs/glossary.md).
#
# - A relative encoding scores pairs by their offset: Shaw et al. clip the offset to $[-k, k]$; T5
#   learns one number per offset and head; Swin makes it 2-D within windows, $(2M-1)^2$ entries,
#   indexed as we did by hand; over the whole grid it has $(2g_h-1)(2g_w-1)$.
# - The bias is translation invariant, and a zero table is no encoding at all.
# - Clipping makes the table independent of the grid; without it the table is resized for larger
#   grids (by default also for smaller ones), or cropped exactly (`clamp`) for smaller ones
#   *(Going deeper)*.
# - Adam's reach limits how far a table can move in a short run (one step stays under about
#   7.3 × lr with the default betas); with 10× its learning rate, a table trained on `distance`
#   learns the task and its strongest tables are rings. Its heads' biases come to look at
#   different distances too, as they do after any training, on shuffled labels too. Zeroed, the
#   model is at chance: a sanity check.

# %% [markdown]
# ## Exercises
#
# Worked solutions are in [`solutions/`](../solutions/), one file per lesson. An exercise with a
# check has an answer cell and a check cell below it: replace the `...` with your answer (a number,
# a tensor or a function, as the exercise says) and run both cells. The check prints ✓ and what your
# answer shows, or ✗, what differs and a hint. Exercises marked (discussion) have no check.
#
# 1. Train with `position_lr_scale=1` (the table at the model's learning rate) with three seeds. How
#    large do the entries get, and how often does the model get off chance in 600 steps? Before you
#    train: by what factor must the table's learning rate be scaled for its reach over these 600
#    steps (lr 3e-3, warmup and cosine decay, as above) to be ln 15? `answer_04_1 = scale`.

# %% tags=["exercise"]
from minivit import exercises

answer_04_1 = ...  # your code

# %% tags=["exercise"]
exercises.check("04.1", answer_04_1)

# %% [markdown]
# 2. (discussion) A relative bias alone sees no absolute position. Train it on the `where` task
#    (lesson 03). How can it still beat chance? (Hint: who has neighbours on all sides?)
# 3. Train with `clip=1`. The task's distances reach 3 patches: what can the model still tell apart?
#    First write the clipped bias by hand: `answer_04_3(table, grid, clip)` takes a table [H,
#    2·clip+1, 2·clip+1] and returns the bias [H, N, N] on `grid`, the offset taken as the query's
#    position minus the key's (Swin's convention) and clipped to ±clip.

# %% tags=["exercise"]
answer_04_3 = ...  # your code

# %% tags=["exercise"]
exercises.check("04.3", answer_04_3)

# %% [markdown]
# 4. (discussion) Shaw et al. add a learned vector to the *keys* rather than a number to the scores.
#    What can a vector do that a scalar bias cannot?
# 5. (discussion) Train on `relation` (lesson 01) instead: is the circle left of, right of, above or
#    below the square? Do the tables become different to the left and to the right?
# 6. A zero table is exactly the model without positional encoding. Find a table that is *not* all
#    zeros and is still no encoding at all: `answer_04_6`, a table [2, 7, 7] (heads, $2g_h-1$,
#    $2g_w-1$) that, put in every block of the zero-table cell's `model`, gives exactly the output
#    of `plain`.

# %% tags=["exercise"]
answer_04_6 = ...  # your code

# %% tags=["exercise"]
exercises.check("04.6", answer_04_6)

# %% [markdown]
# 7. Each entry of the table learns from the pairs of patches that read it. Write
#    `answer_04_7(grid, clip)`: how many (query, key) pairs of a (gh, gw) grid read each entry of a
#    table clipped at `clip`, a tensor [2·clip+1, 2·clip+1] (entry [Δr + clip, Δc + clip], each pair
#    of a patch with itself included). Which entries of an unclipped table learn from a single pair
#    per image?

# %% tags=["exercise"]
answer_04_7 = ...  # your code

# %% tags=["exercise"]
exercises.check("04.7", answer_04_7)

# %% [markdown]
# ## Claims index
#
# | claim | assert | fails when |
# |---|---|---|
# | Shaw et al.'s clipped index matrix uses $2k+1$ entries, the same one along each diagonal | `assert index.unique().tolist() == list(range(2 * k + 1))` `assert (torch.diagonal(index) == k).all() and index[0, -1] == 2 * k and index[-1, 0] == 0` | the offsets are not clipped (offset 6, index 8, at the far corner) |
# | the 2-D table holds $(2g_h-1)(2g_w-1)$ entries per head | `assert table[0].numel() == (2 * grid[0] - 1) * (2 * grid[1] - 1)` | one entry per patch ($g_h g_w$) |
# | Swin's flat index reads the same bias as `minivit`'s table | `torch.testing.assert_close(by_hand, enc.attn_bias(grid, layer=0))` | the offset is taken as key minus query (the table is read mirrored) |
# | every pair at the same offset gets one bias: translation invariance | `assert torch.allclose(values, values[:, :1].expand_as(values))` | the bias depends on where the pair is (an absolute term) |
# | a zero table is exactly the model without positional encoding | `torch.testing.assert_close(model(x), plain(x))` | the table is random (a constant table passes too: it shifts every score of a row equally) |
# | clipped at 1, an 8×8 grid reads offset (−7, −7) from entry (−1, −1) | `assert clipped.table.shape[2:] == (3, 3)` `assert torch.equal(b8[:, 0, 63], clipped.table[0, :, 0, 0])` | offsets are not clipped |
# | unclipped, the table is resized for an 8×8 grid to 15×15 | `assert resized.shape[1:] == (15, 15)` | the trained 7×9 table is used as it is |
# | on a smaller grid, clamping gives the trained entries exactly | `assert torch.equal(ramps["clamp"].attn_bias(small, 0), trained_entries)` | `resize="interpolate"` (the bicubic squash moves them) |
# | the trained table learns the task; sanity check: zeroed, the model is the no-position one, at chance | `lesson.claim("the trained model learns the task", accuracy, ">", 0.6)` `lesson.claim("sanity check: with a zero table, chance", zeroed, "<", 0.4, about="absence")` | the table does not learn (`position_lr_scale=1`: accuracy 0.35 with seed 0; with seed 2 the model learns the task even so; the sweep's runs take two routes, 1.0 in 47 of 48 and 0.67 in one, both above the bound), or the task needs no position (`which_shape` on the same grid: 0.96 with the table and without it) |
# | with 10× the learning rate, entries grow beyond the 1× reach (on shuffled labels and noise gradients too: it shows the rate at work, not the task) | `lesson.claim("entries grow beyond the 1x reach", learned.abs().max(), ">", reach, about="training")` | the table frozen, or trained at the model's rate on some seeds (`position_lr_scale=1`: largest entry 0.66 with seed 0, against a reach of 0.90) |
# | trained heads look at different distances (so do heads trained on shuffled labels or on noise gradients: up to 0.46); untrained ones all at the grid's mean | `assert spread_before < 0.05` `lesson.claim("heads come to look at different distances", spread, ">", 0.15, about="training")` | the table frozen (the spread stays as before training, under 0.05); at the model's rate the heads still move apart, less (`position_lr_scale=1`: spread 0.31 with seed 0, 0.32 with seed 2) |
# | the strongest trained table is a ring: a function of the offset's length (shuffled labels or noise gradients: under 0.7) | `lesson.claim("the strongest head's table is a ring: a function of distance, not direction", share, ">", 0.8)` | the table is untrained (about 0.2), or trained on a task that needs no position (`which_shape`: 0.33) |
# | Adam's step is not bounded by 3.16 × lr: growing gradients reach the ceiling of about 7.27 × lr (Going deeper) | `assert single < largest < ceiling + 1e-9 and largest > 0.99 * ceiling, "growing gradients reach the ceiling"` | the gradients stay constant (after the quiet run, a last step of about 2.35 × lr) or come once after zeros (3.16 × lr) |
