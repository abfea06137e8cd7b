"""Each encoding against its defining property."""

import math

import pytest
import torch

from minivit import ViT, ViTConfig
from minivit.data import shuffle_patches
from minivit.posenc import REGISTRY, build, grid_coords, resample, sincos_1d, sincos_2d


def model(position, **kw):
    cfg = ViTConfig(image_size=16, patch_size=4, dim=32, heads=4, depth=2, position=position, **kw)
    return ViT(cfg).eval()


def scaled(m):
    """`m` with every weight at a sizeable random scale, as training leaves them: at init (std 0.02)
    attention is nearly uniform and a relative encoding barely moves the output."""
    with torch.no_grad():
        for p in m.parameters():
            p.normal_(std=0.5)
    return m


def test_none_is_exactly_permutation_equivariant():
    m = scaled(model("none"))
    x = torch.randn(2, 3, 16, 16)
    perm = torch.randperm(16)
    tokens = m.tokens(x)[0]
    tokens_shuffled = m.tokens(shuffle_patches(x, 4, perm))[0]
    torch.testing.assert_close(tokens_shuffled, tokens[:, perm], atol=1e-5, rtol=0)
    torch.testing.assert_close(m(shuffle_patches(x, 4, perm)), m(x), atol=1e-5, rtol=0)


@pytest.mark.parametrize("name", [n for n in REGISTRY if n != "none"])
def test_every_other_encoding_breaks_permutation_invariance(name):
    m = scaled(model(name))
    x = torch.randn(2, 3, 16, 16)
    perm = torch.randperm(16)
    change = (m.features(shuffle_patches(x, 4, perm)) - m.features(x)).abs().max()
    assert change > 1e-3  # 100 times the tolerance within which `none` is invariant


def test_sincos_1d_matches_the_closed_form():
    dim, base = 16, 10000.0
    pos = torch.arange(7, dtype=torch.float32)
    pe = sincos_1d(pos, dim, base)
    for p in range(7):
        for i in range(dim // 2):
            w = 1 / base ** (2 * i / dim)
            assert pe[p, 2 * i].item() == pytest.approx(math.sin(p * w), abs=1e-6)
            assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(p * w), abs=1e-6)


def test_sincos_dot_product_depends_only_on_the_offset():
    pe = sincos_1d(torch.arange(40, dtype=torch.float32), 32).double()
    dots = pe @ pe.T  # (40, 40)
    for offset in range(-10, 11):
        diag = torch.diagonal(dots, offset)
        torch.testing.assert_close(diag, diag[:1].expand_as(diag), atol=1e-5, rtol=0)
    # and it is sum_i cos(offset * w_i)
    w = 10000 ** (-2 * torch.arange(16, dtype=torch.float64) / 32)
    torch.testing.assert_close(dots[3, 10], torch.cos(7 * w).sum(), atol=1e-5, rtol=0)


def test_sincos_2d_is_rows_then_columns():
    grid, dim = (3, 5), 16
    pe = sincos_2d(grid, dim)
    rc = grid_coords(grid)
    torch.testing.assert_close(pe[:, :8], sincos_1d(rc[:, 0], 8))
    torch.testing.assert_close(pe[:, 8:], sincos_1d(rc[:, 1], 8))
    assert pe.shape == (15, 16)


@pytest.mark.parametrize("name", ["sincos1d", "sincos2d"])
def test_sinusoidal_prefix_token_gets_zeros_and_grid_is_recomputed(name):
    enc = build(name, dim=16, heads=2, depth=1, grid=(2, 2), num_prefix_tokens=1)
    t = enc.table((3, 4))
    assert t.shape == (13, 16) and (t[0] == 0).all()
    assert len(list(enc.parameters())) == 0


def test_sinusoid_per_block_is_added_before_every_block_with_its_dropout():
    """Ito et al.'s reference: the 2-D sinusoid added before each block as dropout(x + pe)."""
    x = torch.randn(2, 4, 16)
    once = build("sincos2d", dim=16, heads=1, depth=3, grid=(2, 2))
    every = build("sincos2d", dim=16, heads=1, depth=3, grid=(2, 2), per_block=True, dropout=0.25)
    table = once.table((2, 2))
    assert torch.equal(once.add_to_tokens(x, (2, 2), 2), x)  # added at the first block only
    every.eval()
    for layer in range(3):
        torch.testing.assert_close(every.add_to_tokens(x, (2, 2), layer), x + table)
    every.train()
    torch.manual_seed(0)
    dropped = every.add_to_tokens(x, (2, 2), 1)
    kept = dropped != 0
    assert 0.1 < 1 - kept.float().mean() < 0.4  # about a quarter of the entries, dropped
    torch.testing.assert_close(dropped[kept], ((x + table) / 0.75)[kept])  # the rest rescaled
    assert "per_block=True, dropout=0.25" in repr(every)


def test_evaluate_with_dropout_on_scores_as_the_reference_does():
    from minivit.evaluate import evaluate, predict

    m = model("sincos2d", position_options={"per_block": True, "dropout": 0.5})
    x, y = torch.randn(64, 3, 16, 16), torch.randint(0, m.config.num_classes, (64,))
    data = torch.utils.data.TensorDataset(x, y)
    assert torch.equal(predict(m, x), predict(m, x))  # eval mode: no dropout
    assert not torch.equal(predict(m, x, dropout=True), predict(m, x))
    assert not m.training  # the model's mode is given back
    assert evaluate(m, data) == (predict(m, x) == y).float().mean().item()


def test_sincos_widths_must_suit_the_form():
    with pytest.raises(ValueError, match="width divisible by 4"):
        build("sincos2d", dim=18, heads=2, depth=1, grid=(2, 2))
    with pytest.raises(ValueError, match="even width"):
        build("sincos1d", dim=17, heads=1, depth=1, grid=(2, 2))


@pytest.mark.parametrize("antialias", [False, True])
def test_learned_resampling_to_the_same_grid_is_the_identity(antialias):
    table = torch.randn(1 + 12, 8)
    out = resample(table, (3, 4), (3, 4), num_prefix_tokens=1, antialias=antialias)
    torch.testing.assert_close(out, table, atol=1e-6, rtol=0)


def test_learned_resampling_keeps_prefix_apart_and_antialias_differs_when_shrinking():
    table = torch.randn(1 + 64, 8)
    small = resample(table, (8, 8), (4, 4), num_prefix_tokens=1)
    small_aa = resample(table, (8, 8), (4, 4), num_prefix_tokens=1, antialias=True)
    assert small.shape == (17, 8) and torch.isfinite(small).all()
    torch.testing.assert_close(small[0], table[0])
    assert (small - small_aa).abs().max() > 1e-2
    big = resample(table, (8, 8), (12, 12), num_prefix_tokens=1)
    assert big.shape == (145, 8) and torch.isfinite(big).all()
    # bicubic weights sum to one: a constant table stays constant at any grid
    const = torch.full((64, 3), 0.7)
    torch.testing.assert_close(resample(const, (8, 8), (13, 5)), torch.full((65, 3), 0.7))


def test_learned_resampling_rejects_a_table_of_another_grid():
    with pytest.raises(ValueError, match="table has 17 rows but grid 3x3 with 1 prefix token"):
        resample(torch.randn(17, 4), (3, 3), (4, 4), num_prefix_tokens=1)


@pytest.mark.parametrize("init,std", [("zeros", 0.0), ("normal", 0.5), ("trunc_normal", 0.02)])
def test_learned_init(init, std):
    enc = build("learned", dim=64, heads=2, depth=3, grid=(8, 8), init=init, std=std)
    t = enc.table.detach()
    assert t.shape == (1, 64, 64)
    assert t.std().item() == pytest.approx(std * (0.88 if init == "trunc_normal" else 1), abs=0.02)
    if init == "trunc_normal":
        assert t.abs().max() <= 2 * std
    with pytest.raises(ValueError, match="init='uniform' .* is unknown; pass one of 'zeros', 'normal'"):
        build("learned", dim=8, heads=1, depth=1, grid=(2, 2), init="uniform")


def test_learned_per_block_adds_a_table_before_every_block():
    enc = build("learned", dim=8, heads=1, depth=3, grid=(2, 2), init="normal", std=1.0, per_block=True)
    x = torch.zeros(1, 4, 8)
    for layer in range(3):
        torch.testing.assert_close(enc.add_to_tokens(x, (2, 2), layer)[0], enc.table[layer])
    single = build("learned", dim=8, heads=1, depth=3, grid=(2, 2), init="normal", std=1.0)
    assert single.table.shape[0] == 1
    assert torch.equal(single.add_to_tokens(x, (2, 2), 1), x)


def test_gradients_reach_trainable_tables_and_never_fixed_ones():
    m = model("learned").train()
    m(torch.randn(2, 3, 16, 16)).sum().backward()
    assert m.pos.table.grad is not None and m.pos.table.grad.abs().sum() > 0
    fixed = model("sincos2d")
    assert len(list(fixed.pos.parameters())) == 0 and len(fixed.pos.state_dict()) == 0


def test_tokens_that_do_not_match_the_grid_are_rejected():
    enc = build("learned", dim=8, heads=1, depth=1, grid=(2, 2))
    with pytest.raises(ValueError, match="5 tokens do not match grid 2x2 with 0 prefix token"):
        enc.add_to_tokens(torch.zeros(1, 5, 8), (2, 2), 0)
