"""PoPE against its defining properties: content sets each channel's length, position alone its angle."""

import math

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import ViT, ViTConfig
from minivit.posenc import build, grid_coords
from minivit.train import fit
from tests.test_posenc_rope_family import (
    enc,
    same_content,
    scores,
    spread_across_offsets,
    spread_within_offsets,
)


def random_phase(e, seed=0):
    """A phase bias anywhere in [-2 pi, 0], as training could leave it."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        e.delta.copy_(-2 * math.pi * torch.rand(e.delta.shape, generator=g))
    return e


@pytest.mark.parametrize("grid", [(4, 5), (6, 7)])  # the training grid and another
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pope_score_depends_only_on_the_offset_for_any_content_and_phase(grid, seed):
    e = random_phase(enc("pope"), seed)
    q, k = same_content(e, grid, seed=seed)
    s = scores(e, q, k, grid, layer=1)
    assert spread_across_offsets(s) > 0.5  # position does move the score
    assert spread_within_offsets(s, grid) < 1e-12 * spread_across_offsets(s) + 1e-12


def test_pope_content_sets_the_length_and_position_alone_the_angle():
    """Every channel c of a rotated query is softplus(q_c) e^{i theta_c . x}: the angle is the same for
    every content, where RoPE's angle is the content's own angle plus the position's."""
    e = enc("pope", grid=(3, 4))
    grid = (3, 4)
    q = torch.randn(1, 2, 12, 16, dtype=torch.float64)
    qr, kr = e.rotate(q, q, grid, 0)
    z = torch.view_as_complex(qr.unflatten(-1, (-1, 2)).contiguous())  # (1, H, N, Dh) complex
    torch.testing.assert_close(z.abs(), torch.nn.functional.softplus(q))
    rc = grid_coords(grid, dtype=torch.float64)
    half = torch.tensor(100.0, dtype=torch.float64) ** (-torch.arange(8, dtype=torch.float64) / 8)
    angle = torch.cat([rc[:, 1:2] * half, rc[:, 0:1] * half], dim=-1)  # (N, Dh): column, then row
    torch.testing.assert_close(torch.polar(torch.ones_like(angle), angle).expand_as(z), z / z.abs())
    torch.testing.assert_close(kr, qr, atol=1e-6, rtol=0)  # delta starts at 0 (-2 pi in float32): as queries


def test_pope_without_its_phase_bias_scores_a_key_highest_on_top_of_the_query():
    """delta = 0: every term softplus(q_c) softplus(k_c) cos(theta_c . offset) is largest at offset 0, for
    any content; RoPE's best offset moves with the content."""
    grid = (5, 5)
    pope, rope = enc("pope", grid=grid), enc("rope-axial", grid=grid)
    moved = 0
    for seed in range(20):
        q, k = same_content(pope, grid, seed=seed)
        for e, s in ((pope, scores(pope, q, k, grid)), (rope, scores(rope, q, k, grid))):
            best = s.argmax(-1)  # (H, N): each query's highest key
            on_top = torch.arange(25).expand_as(best)
            if e is pope:
                assert torch.equal(best, on_top), seed
            else:
                moved += int((best != on_top).any())
    assert moved >= 10  # RoPE: on most draws some query prefers a key elsewhere


def test_pope_phase_bias_sets_the_offset_a_head_prefers_whatever_the_content():
    """delta_c = -theta_c on the column channels: each column term peaks one patch to the right, for
    every content, so every query whose right neighbour exists scores it highest."""
    grid = (5, 5)
    e = enc("pope", grid=grid)
    half = e.head_dim // 2
    freqs = torch.tensor(100.0) ** (-torch.arange(half, dtype=torch.float32) / half)
    with torch.no_grad():
        e.delta.zero_()
        e.delta[:, :, :half] = -freqs
    rc = grid_coords(grid, dtype=torch.long)
    right = {(int(r), int(c)): i for i, (r, c) in enumerate(rc)}
    for seed in range(10):
        q, k = same_content(e, grid, seed=seed)
        best = scores(e, q, k, grid).argmax(-1)  # (H, N)
        for i, (r, c) in enumerate(rc.tolist()):
            if c + 1 < grid[1]:
                assert (best[:, i] == right[(r, c + 1)]).all(), (seed, r, c)


def test_pope_phase_bias_is_an_angle_wrapped_into_minus_two_pi_to_zero():
    """Wrapped, not clamped: delta and delta + 2 pi give the same scores, and delta learns from its
    start at 0 (a clamp to [-2 pi, 0] passes no gradient at its bound)."""
    e = random_phase(enc("pope"))
    phase = e.phase(1).detach()
    assert phase.min() >= -2 * math.pi and phase.max() < 0
    q, k = same_content(e, (4, 5))
    before = scores(e, q, k, (4, 5), layer=1)
    with torch.no_grad():
        e.delta.add_(2 * math.pi * torch.randint(-2, 3, e.delta.shape))
    after = scores(e, q, k, (4, 5), layer=1)
    torch.testing.assert_close(after, before, atol=1e-5, rtol=1e-5)  # delta is float32
    fresh = enc("pope")
    fresh.phase(0).sum().backward()
    assert torch.equal(fresh.delta.grad[0], torch.ones_like(fresh.delta.grad[0]))


def test_pope_prefix_tokens_get_no_angle_and_no_phase():
    e = random_phase(enc("pope", prefix=1))
    grid = (4, 5)
    q, k = torch.randn(2, 1, 2, 21, 16, dtype=torch.float64).unbind(0)
    qr, kr = e.rotate(q, k, grid, 1)
    for x, xr in ((q, qr), (k, kr)):
        assert qr.shape[-1] == 32  # twice as wide: real and imaginary parts
        torch.testing.assert_close(xr[..., 0, 0::2], torch.nn.functional.softplus(x[..., 0, :]))
        assert torch.equal(xr[..., 0, 1::2], torch.zeros_like(xr[..., 0, 1::2]))


def test_pope_interpolate_scales_the_positions_into_the_trained_grid():
    e = enc("pope", grid=(4, 4), interpolate=True)
    q = torch.randn(1, 2, 1, 16, dtype=torch.float64).expand(1, 2, 64, 16)
    qr8, _ = e.rotate(q, q, (8, 8), 0)
    qr4, _ = e.rotate(q[:, :, :16], q[:, :, :16], (4, 4), 0)
    torch.testing.assert_close(qr8[:, :, 18], qr4[:, :, 5])  # (2, 2) at 8x8 is (1, 1) at 4x4


def test_pope_attention_scale_is_that_of_the_doubled_width():
    """The model's attention divides by sqrt(2 Dh) (q and k are twice as wide) and matches the
    explicit computation."""
    torch.manual_seed(0)
    model = ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, depth=1, position="pope"))
    from minivit import analysis

    images = torch.randn(2, 3, 16, 16)
    logits = analysis.attention_logits(model, images)[0]
    maps = model.eval().attention_maps(images)[0]
    torch.testing.assert_close(logits.softmax(-1), maps, atol=1e-6, rtol=0)


@pytest.mark.parametrize("phase_bias", [True, False])
def test_a_tiny_pope_model_trains_and_runs_at_another_grid(phase_bias):
    torch.manual_seed(0)
    shape = {"image_size": 16, "patch_size": 4, "dim": 32, "heads": 2, "depth": 2, "num_classes": 4}
    options = {"phase_bias": phase_bias}
    model = ViT(ViTConfig(**shape, pool="cls", position="pope", position_options=options))
    before = model.pos.delta.detach().clone()
    data = TensorDataset(torch.rand(32, 3, 16, 16), torch.arange(32) % 4)
    history = fit(model, data, steps=4, batch_size=8, lr=3e-2, progress=False, device="cpu")
    assert all(math.isfinite(x) for x in history.loss)
    assert history.loss[-1] < history.loss[0]
    moved = (model.pos.delta.detach() - before).abs().max().item()
    assert (moved > 0) == phase_bias  # learned only when asked for
    if phase_bias:  # the phase is not decayed
        no_decay = model.parameter_groups(0.05)[1]["params"]
        assert any(p is model.pos.delta for p in no_decay)
    with torch.no_grad():
        assert torch.isfinite(model.eval()(torch.rand(2, 3, 24, 20))).all()


@pytest.mark.parametrize(
    ("options", "dim", "says"),
    [
        ({"phase_bias": 1}, 16, r"option phase_bias=1 of positional encoding 'pope' is not True or False"),
        ({"base": 0.5}, 16, r"option base=0.5 of positional encoding 'pope' is out of range"),
        ({}, 18, r"2-D PoPE .* needs an even head dimension, got dim / heads = 9"),
    ],
)
def test_pope_bad_options_are_refused_naming_the_option(options, dim, says):
    with pytest.raises(ValueError, match=says):
        ViT(ViTConfig(image_size=16, patch_size=4, dim=dim, heads=2, depth=2, position="pope",
                      position_options=options))  # fmt: skip


def test_pope_is_in_the_registry_with_its_options():
    from minivit.posenc import options_of

    assert set(options_of("pope")) == {"base", "phase_bias", "interpolate"}
    assert build("pope", dim=16, heads=2, depth=1, grid=(2, 2)).no_weight_decay() == {"delta"}
