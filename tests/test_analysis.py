import math

import pytest
import torch

from minivit import analysis
from minivit.posenc.base import grid_coords
from minivit.posenc.sinusoidal import sincos_2d


def test_procrustes_recovers_a_rotated_scaled_shifted_copy_of_the_grid():
    coords = grid_coords((4, 4))  # (16, 2)
    q, _ = torch.linalg.qr(torch.randn(8, 8, dtype=torch.float64))
    table = (3.0 * torch.cat([coords, torch.zeros(16, 6)], 1).double() @ q + 5.0).float()  # lifted to 8-D
    score, aligned = analysis.procrustes(table, coords)
    assert score == pytest.approx(1.0, abs=1e-6)
    torch.testing.assert_close(aligned, coords, atol=1e-5, rtol=0)


def test_procrustes_score_matches_scipy_and_is_low_for_noise():
    scipy_spatial = pytest.importorskip("scipy.spatial")
    coords = grid_coords((4, 4))
    g = torch.Generator().manual_seed(0)
    flat = torch.randn(16, 2, generator=g)
    score, aligned = analysis.procrustes(flat, coords)
    _, _, disparity = scipy_spatial.procrustes(coords.numpy(), flat.numpy())
    assert 1 - score**2 == pytest.approx(disparity, abs=1e-6)  # scipy's disparity, with scaling
    residual = ((aligned - coords) ** 2).sum() / ((coords - coords.mean(0)) ** 2).sum()
    assert residual.item() == pytest.approx(disparity, abs=1e-5)

    noise = torch.randn(16, 64, generator=g)
    assert analysis.procrustes(noise, coords)[0] < 0.6  # 16 random points in 64-D: far from a grid
    assert analysis.procrustes(sincos_2d((4, 4), 64), coords)[0] > 0.75
    with pytest.raises(ValueError, match="drop prefix"):
        analysis.procrustes(torch.randn(17, 8), coords)


def test_attention_agreement_is_the_shared_mass():
    a = torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    b = torch.tensor([[0.5, 0.0, 0.5], [1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    assert analysis.attention_agreement(a, b) == pytest.approx((0.5 + 1 + 1) / 3)
    assert analysis.attention_agreement(a, a) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same inputs"):
        analysis.attention_agreement(a, b[:2])


def test_mean_attention_distance_in_patches():
    grid = (3, 3)
    n = 9
    uniform = torch.full((2, 1, n, n), 1 / n)
    expected = analysis.grid_distances(grid).mean()
    torch.testing.assert_close(analysis.mean_attention_distance(uniform, grid), expected.expand(1))
    self_only = torch.eye(n).expand(2, 1, n, n)
    assert analysis.mean_attention_distance(self_only, grid).item() == 0.0
    # a class token is left out, its row and column
    with_cls = torch.zeros(1, 1, n + 1, n + 1)
    with_cls[..., 1:, 0] = 0.5
    with_cls[..., 1:, 1:] = torch.roll(torch.eye(n), 1, 1) * 0.5
    d = analysis.mean_attention_distance(with_cls, grid, num_prefix_tokens=1)
    rc = grid_coords(grid)
    shifted = (rc - rc.roll(-1, 0)).norm(dim=1).mean()
    assert d.item() == pytest.approx(shifted.item())
    assert math.isfinite(d.item())
