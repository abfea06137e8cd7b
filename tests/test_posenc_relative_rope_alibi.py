"""Relative bias, RoPE, ALiBi and PEG against their defining properties."""

import itertools
import math

import pytest
import torch

from minivit import ViT, ViTConfig
from minivit.posenc import alibi_slopes, build, grid_coords, relative_offsets


def enc(name, grid=(4, 5), dim=32, heads=2, depth=2, prefix=0, **opts):
    return build(name, dim=dim, heads=heads, depth=depth, grid=grid, num_prefix_tokens=prefix, **opts)


def scores_after_rotation(e, grid, layer=0, prefix=0):
    """q . k between every pair of positions when every token has the same q and the same k."""
    n = prefix + grid[0] * grid[1]
    q = torch.randn(e.head_dim).expand(1, e.heads, n, e.head_dim).double()
    k = torch.randn(e.head_dim).expand(1, e.heads, n, e.head_dim).double()
    qr, kr = e.rotate(q, k, grid, layer)
    return (qr @ kr.transpose(-2, -1))[0], qr, kr, q  # (H, n, n)


# --------------------------------------------------------------------------- RoPE


def test_rope1d_score_depends_only_on_the_1d_offset():
    e = enc("rope1d", grid=(1, 12))
    s = scores_after_rotation(e, (1, 12))[0]
    for h, offset in itertools.product(range(2), range(-11, 12)):
        diag = torch.diagonal(s[h], offset)
        torch.testing.assert_close(diag, diag[:1].expand_as(diag), atol=1e-5, rtol=0)  # float32 angles
    assert s[0, 0, 1] != pytest.approx(s[0, 0, 2].item())  # it does depend on the offset


@pytest.mark.parametrize("name", ["rope-axial", "rope-mixed"])
def test_2d_rope_score_depends_only_on_the_2d_offset(name):
    grid = (4, 5)
    e = enc(name, grid=grid)
    s = scores_after_rotation(e, grid, layer=1)[0]
    off = relative_offsets(grid).reshape(-1, 2)
    flat = s.reshape(e.heads, -1)
    seen = {}
    for idx, (dy, dx) in enumerate(off.tolist()):
        seen.setdefault((dy, dx), []).append(idx)
    for idxs in seen.values():
        vals = flat[:, idxs]
        torch.testing.assert_close(vals, vals[:, :1].expand_as(vals), atol=1e-5, rtol=0)  # float32 angles
    assert len({round(v, 6) for v in flat[0].tolist()}) > 10  # and on the offset


@pytest.mark.parametrize("name", ["rope1d", "rope-axial", "rope-mixed"])
def test_rope_preserves_norms_and_never_rotates_the_prefix(name):
    e = enc(name, prefix=1)
    _, qr, _, q = scores_after_rotation(e, (4, 5), prefix=1)
    torch.testing.assert_close(qr.norm(dim=-1), q.norm(dim=-1))
    torch.testing.assert_close(qr[..., 0, :], q[..., 0, :])
    assert not torch.allclose(qr[..., 2, :], q[..., 2, :])


def test_axial_equals_mixed_with_axis_aligned_frequencies():
    axial = enc("rope-axial", base=100.0)
    mixed = enc("rope-mixed", base=100.0)
    mag = 100.0 ** (-torch.arange(0, 16, 4)[:4].float() / 16)  # head_dim 16
    zeros = torch.zeros_like(mag)
    with torch.no_grad():
        mixed.freqs[:, 0] = torch.cat([mag, zeros])  # f_x: first half of the pairs along the columns
        mixed.freqs[:, 1] = torch.cat([zeros, mag])  # f_y: second half along the rows
    q, k = torch.randn(2, 3, 2, 20, 16).unbind(0)
    for layer in range(2):
        for a, b in zip(axial.rotate(q, k, (4, 5), layer), mixed.rotate(q, k, (4, 5), layer), strict=True):
            torch.testing.assert_close(a, b)


def test_mixed_init_follows_heo_et_al():
    e = enc("rope-mixed", dim=64, heads=4, depth=3)
    assert e.freqs.shape == (3, 2, 4, 8)  # (L, xy, H, Dh/2)
    mag = e.freqs.norm(dim=1)  # (L, H, Dh/2): magnitude of each pair's frequency
    expected = 10.0 ** (-torch.arange(0, 16, 4).float() / 16)
    torch.testing.assert_close(mag, torch.cat([expected, expected]).expand_as(mag))
    direction = torch.atan2(e.freqs[:, 1], e.freqs[:, 0])  # (L, H, Dh/2)
    # the second half of the pairs is perpendicular to the first, per head
    turn = torch.remainder(direction[..., 4:] - direction[..., :4], 2 * math.pi)
    torch.testing.assert_close(turn, torch.full_like(turn, math.pi / 2), atol=1e-5, rtol=0)
    assert direction[0, :, 0].unique().numel() == 4  # a random direction per head


def test_mixed_frequencies_are_learned_without_weight_decay():
    m = ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, position="rope-mixed"))
    m(torch.randn(2, 3, 16, 16)).sum().backward()
    assert m.pos.freqs.grad is not None and m.pos.freqs.grad.abs().sum() > 0
    _, no_decay = m.parameter_groups(0.05)
    assert any(p is m.pos.freqs for p in no_decay["params"])


@pytest.mark.parametrize("name", ["rope-axial", "rope-mixed"])
def test_2d_rope_needs_head_dim_divisible_by_4(name):
    with pytest.raises(ValueError, match="head dimension divisible by 4.*got 6; choose dim / heads"):
        enc(name, dim=12, heads=2)


@pytest.mark.parametrize("name", ["rope1d", "rope-axial", "rope-mixed"])
def test_position_interpolation_scales_into_the_trained_range(name):
    # Chen et al.: position m at length L' becomes m * L / L', inside the trained interval [0, L)
    e = enc(name, grid=(4, 4), interpolate=True)
    trained_length = 16 if name == "rope1d" else 4
    assert e.positions((8, 8)).max() < trained_length
    assert e.positions((8, 8)).unique().numel() > e.positions((4, 4)).unique().numel()
    plain = enc(name, grid=(4, 4))
    assert plain.positions((8, 8)).max() >= 2 * trained_length - 1
    torch.testing.assert_close(e.positions((4, 4)), plain.positions((4, 4)))


@pytest.mark.parametrize("name", ["rope1d", "rope-axial"])
def test_toggling_interpolation_after_a_run_changes_the_rotations(name):
    # the fixed rotations are cached per grid; switching `interpolate` on a model that already ran
    # at that grid must not reuse the rotations computed without it (and back)
    e = enc(name, grid=(4, 4))
    plain = e.rotation((8, 8), 0)
    e.interpolate = True
    fresh = enc(name, grid=(4, 4), interpolate=True)
    torch.testing.assert_close(e.rotation((8, 8), 0), fresh.rotation((8, 8), 0))
    assert not torch.allclose(e.rotation((8, 8), 0), plain)
    e.interpolate = False
    torch.testing.assert_close(e.rotation((8, 8), 0), plain)


# --------------------------------------------------------------------------- ALiBi


def test_alibi_slopes_are_press_et_al():
    assert alibi_slopes(8) == [2.0**-k for k in range(1, 9)]
    twelve = alibi_slopes(12)
    assert twelve[:8] == [2.0**-k for k in range(1, 9)]
    assert twelve[8:] == pytest.approx([0.7071, 0.3536, 0.1768, 0.0884], abs=1e-4)
    assert alibi_slopes(6) == pytest.approx([0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125])
    assert alibi_slopes(1) == [2.0**-8]


@pytest.mark.parametrize("name", ["alibi1d", "alibi2d"])
def test_alibi_bias_is_symmetric_zero_on_the_diagonal_and_decreasing(name):
    e = enc(name, heads=4, dim=32, prefix=1)
    b = e.attn_bias((4, 5), layer=0)
    assert b.shape == (4, 21, 21)
    torch.testing.assert_close(b, b.transpose(-1, -2))
    assert (torch.diagonal(b, dim1=-2, dim2=-1) == 0).all()
    assert (b[:, 0] == 0).all() and (b[:, :, 0] == 0).all()  # the class token gets zero bias
    assert (b[:, 1:, 1:] <= 0).all()
    assert torch.equal(b, e.attn_bias((4, 5), layer=1))  # the same fixed bias in every block


def test_alibi_1d_and_2d_distances():
    slopes = torch.tensor(alibi_slopes(2))
    b1 = enc("alibi1d", grid=(3, 4)).attn_bias((3, 4), 0)
    b2 = enc("alibi2d", grid=(3, 4)).attn_bias((3, 4), 0)
    i, j = 1, 11  # patch (0, 1) and patch (2, 3)
    torch.testing.assert_close(b1[:, i, j], -slopes * 10)
    torch.testing.assert_close(b2[:, i, j], -slopes * math.sqrt(2**2 + 2**2))
    rc = grid_coords((3, 4))
    torch.testing.assert_close(b2[0], -slopes[0] * torch.cdist(rc, rc))


# --------------------------------------------------------------------------- relative bias


def test_relative_table_size_and_indexing():
    e = enc("relative", grid=(3, 4), heads=2)
    assert e.table.shape == (2, 2, 5, 7)  # (L, H, 2gh-1, 2gw-1)
    b = e.attn_bias((3, 4), layer=1)
    i, j = 0, 11  # (0, 0) and (2, 3): offset (-2, -3)
    torch.testing.assert_close(b[:, i, j], e.table[1, :, -2 + 2, -3 + 3])
    torch.testing.assert_close(b[:, j, i], e.table[1, :, 2 + 2, 3 + 3])
    torch.testing.assert_close(torch.diagonal(b, dim1=-2, dim2=-1), e.table[1, :, 2:3, 3].expand(2, 12))


def test_relative_clipping_shares_entries_beyond_the_clip():
    e = enc("relative", grid=(6, 6), clip=1, shared=True)
    assert e.table.shape == (1, 2, 3, 3)
    b = e.attn_bias((6, 6), 0)
    torch.testing.assert_close(b[:, 0, 35], e.table[0, :, 0, 0])  # offset (-5, -5) clipped to (-1, -1)
    assert e.attn_bias((9, 9), 0).shape == (2, 81, 81)  # a clipped table fits every grid


def test_relative_table_resizes_to_a_new_grid():
    e = enc("relative", grid=(3, 3))
    table, radius = e.table_for((5, 5), 0)
    assert table.shape == (2, 9, 9) and radius == (4, 4)
    assert e.attn_bias((5, 5), 0).shape == (2, 25, 25)
    clamp = enc("relative", grid=(3, 3), resize="clamp")
    assert clamp.table_for((5, 5), 0)[0].shape == (2, 5, 5)
    with pytest.raises(ValueError, match="resize='nearest' .* unknown; pass one of 'interpolate', 'clamp'"):
        enc("relative", resize="nearest")


def copy_without_position(model, position):
    """The `none` model with every weight of `model` that is not its encoding."""
    other = ViT(model.config.with_(position="none", position_options={}))
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("pos.")}
    other.load_state_dict(state)
    return other.eval()


@pytest.mark.parametrize("name", ["relative", "peg"])
def test_a_zero_encoding_gives_the_none_model(name):
    m = ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, position=name)).eval()
    with torch.no_grad():
        for p in m.pos.parameters():
            p.zero_()
    x = torch.randn(2, 3, 16, 16)
    torch.testing.assert_close(m(x), copy_without_position(m, name)(x))


# --------------------------------------------------------------------------- PEG


def test_peg_acts_after_the_first_block_and_leaves_the_prefix_alone():
    e = enc("peg", prefix=1, depth=3)
    x = torch.randn(2, 21, 32)
    assert torch.equal(e.add_to_tokens(x, (4, 5), 0), x)
    y = e.add_to_tokens(x, (4, 5), 1)
    assert torch.equal(y[:, 0], x[:, 0]) and not torch.allclose(y[:, 1:], x[:, 1:])
    assert enc("peg", depth=1).at_layer == 0
    with pytest.raises(ValueError, match="kernel_size=4 .* pass an odd whole number >= 1"):
        enc("peg", kernel_size=4)
