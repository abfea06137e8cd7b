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
# Absolute encodings tell each token where *it* is. Relative encodings tell attention how far apart
# two tokens are. Shaw et al. (2018) learned a vector per clipped offset; Swin (Liu et al. 2021)
# simplified this to a learned number per offset and head, added to the attention scores. On an
# image the offset has two parts, (Δrow, Δcolumn).
#
# **What you will learn**
# - Shaw et al.'s clipped relative positions, and the index matrix behind them;
# - the 2-D bias table of Swin, $(2g_h-1)(2g_w-1)$ entries per head, and how it is indexed, by hand;
# - that the bias is the same for every pair of patches at the same offset, and that a zero table is
#   no encoding at all;
# - what a trained table looks like, head by head.
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

import torch

# %matplotlib inline
from minivit import ViT, ViTConfig, analysis, lesson, viz, widgets
from minivit.data import which_shape
from minivit.posenc import build, grid_coords, relative_offsets
from minivit.train import fit

SEED = lesson.setup()  # seed and threads from MINIVIT_SEED, MINIVIT_THREADS (defaults 0 and 2)

# %% [markdown]
# ## From absolute to relative: clipped offsets
#
# For a sequence, Shaw et al. index a learned table by the offset $j - i$ from query $i$ to key $j$,
# clipped to $[-k, k]$: beyond $k$ steps, all offsets share one entry. With 7 tokens and $k = 2$
# the table has $2k+1 = 5$ entries, and this matrix says which one each pair uses.

# %%
n, k = 7, 2
i = torch.arange(n)
index = (i[None, :] - i[:, None]).clamp(-k, k) + k  # row: query i, column: key j
print(index)
assert index.unique().tolist() == list(range(2 * k + 1))
assert (torch.diagonal(index) == k).all() and index[0, -1] == 2 * k and index[-1, 0] == 0

# %% [markdown]
# ## The 2-D table of Swin
#
# On a $g_h \times g_w$ grid, the offset between two patches is $(\Delta r, \Delta c)$ with
# $\Delta r \in [-(g_h-1), g_h-1]$ and $\Delta c \in [-(g_w-1), g_w-1]$: $(2g_h-1)(2g_w-1)$ possible
# offsets. Swin keeps one learned number per offset and head, and adds
# $B_h[\Delta r, \Delta c]$ to the score of every pair, with the offset taken as the query's
# position minus the key's. We index the table by hand and compare with
# `minivit`'s `relative` encoding.

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
# ## Clipping and new grids
#
# Clipped at $k$, the table has $(2k+1)^2$ entries per head whatever the grid, and any grid can be
# indexed: offsets beyond $k$ reuse the outermost entries. Without clipping, a larger grid has
# offsets the table never saw; Swin resizes the table bicubically to the new size, and `minivit`
# does the same (or clamps, with `resize="clamp"`).

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

# %% [markdown]
# ## A trained table, head by head
#
# We train a ViT with relative bias (4 heads, one table per block) on `which_shape`: one shape
# somewhere in the picture, and the answer is its kind. With 4-pixel patches, a shape covers a few
# neighbouring patches, so one might expect heads to attend nearby. We measure how much a head favours near
# offsets (`analysis.offset_locality`: the correlation between its table and closeness, > 0 when
# nearby keys score higher) and draw each head's table as a function of the offset, (0, 0) in the
# middle.

# %% tags=["nbval-ignore-output"]
train, test = which_shape(4096, seed=SEED), which_shape(1000, seed=SEED + 1)
torch.manual_seed(SEED)
trained = ViT(ViTConfig(image_size=24, patch_size=4, num_classes=4, heads=4, position="relative"))
initial = trained.pos.table.detach().clone()
history = fit(trained, train, steps=400, lr=3e-3, eval_data=test, desc="relative", seed=SEED)
learned = trained.pos.table.detach().clone()
print(f"accuracy {history.final_eval:.2f}; largest entry {initial.abs().max():.2f} before, {learned.abs().max():.2f} after")
for block, tables in enumerate(learned):  # (heads, 2g-1, 2g-1) per block
    locality = analysis.offset_locality(tables)
    print(f"block {block}, how much each head favours near offsets:", [round(v, 2) for v in locality.tolist()])

# %%
assert history.final_eval > 0.8
assert learned.abs().max() > 2 * initial.abs().max(), "training grows the table from its small start"
viz.head_tables(learned[1], title="block 1, head")

# %% [markdown]
# Training grows the table from its small start, so the bias now matters. Whether a head comes to
# favour *nearby* patches is not settled by this task: which heads do, and how strongly, changes from
# seed to seed (run the lesson with `MINIVIT_SEED=1` and `2`), and some heads end up preferring far
# offsets. Telling a shape's kind does not need attention to stay local: the patch embedding and
# the MLP already see each patch's pixels.

# %% [markdown]
# ## Try it: clip distance, head, query
#
# The trained block-1 table seen through clipping: entries beyond the clip distance are replaced by
# the outermost ones (left), and the bias it gives from one query patch to every patch (right).

# %% tags=["nbval-ignore-output"]
widgets.relative_explorer(learned[1], (6, 6))

# %% [markdown]
# ## What we covered
#
# - A relative encoding scores pairs by their offset: Shaw et al. clip the offset to $[-k, k]$;
#   Swin learns one bias per 2-D offset and head, $(2g_h-1)(2g_w-1)$ entries, indexed as we did by hand.
# - The bias is translation invariant, and a zero table is no encoding at all.
# - Clipping makes the table independent of the grid; without it the table is resized for new grids.
# - Trained on a task where shapes span neighbouring patches, the table grows from its small start;
#   whether a head favours nearby keys varies from run to run.
#
# ## Exercises
#
# 1. Train with `clip=1`. Does accuracy suffer? What do the 3×3 tables look like?
# 2. A relative bias alone sees no absolute position. Train it on the `where` task (lesson 03). How
#    can it still beat chance? (Hint: who has neighbours on all sides?)
# 3. Shaw et al. add a learned vector to the *keys* rather than a number to the scores. What can a
#    vector do that a scalar bias cannot?
# 4. Compare the trained tables of block 0 and block 1.
# 5. Run the lesson with three seeds and count the heads with locality above 0.1. Then train on
#    `where` (lesson 03) instead: does locality become more common when the answer is a place?
