"""STRING, LieRE and Spiral RoPE against their defining properties."""

import math

import pytest
import torch
from torch.utils.data import TensorDataset

from minivit import ViT, ViTConfig
from minivit.posenc import build, grid_coords, spiral_directions
from minivit.train import fit


def enc(name, grid=(4, 5), dim=32, heads=2, depth=2, prefix=0, **opts):
    return build(name, dim=dim, heads=heads, depth=depth, grid=grid, num_prefix_tokens=prefix, **opts)


def same_content(e, grid, prefix=0, seed=0, dtype=torch.float64):
    """One random q and one random k [Dh] at every token: [1, H, P+N, Dh] each."""
    g = torch.Generator().manual_seed(seed)
    n = prefix + grid[0] * grid[1]
    q, k = torch.randn(2, e.head_dim, generator=g, dtype=dtype)
    return q.expand(1, e.heads, n, e.head_dim), k.expand(1, e.heads, n, e.head_dim)


def scores(e, q, k, grid, layer=0):
    """q . k between every pair of tokens after the encoding's rotation: [H, N, N]."""
    qr, kr = e.rotate(q, k, grid, layer)
    return (qr @ kr.transpose(-2, -1))[0]


def offset_index(grid):
    """For every (query i, key j) pair in raster order, the index of the offset (r_j - r_i, c_j - c_i)."""
    gh, gw = grid
    rc = grid_coords(grid, dtype=torch.long)
    off = rc[None, :, :] - rc[:, None, :]  # (N, N, 2): key minus query
    return ((off[..., 0] + gh - 1) * (2 * gw - 1) + off[..., 1] + gw - 1).reshape(-1)


def spread_within_offsets(s, grid):
    """The largest difference between two scores [H, N, N] at the same 2-D offset: 0 when the score
    depends on the offset alone."""
    flat = s.reshape(s.shape[0], -1)  # (H, N*N)
    idx = offset_index(grid).expand_as(flat)
    size = (2 * grid[0] - 1) * (2 * grid[1] - 1)
    hi = flat.new_full((flat.shape[0], size), -math.inf).scatter_reduce(1, idx, flat, "amax")
    lo = flat.new_full((flat.shape[0], size), math.inf).scatter_reduce(1, idx, flat, "amin")
    return (hi - lo)[hi > -math.inf].max().item()


def spread_across_offsets(s):
    """How much the scores vary at all: max - min over every pair of tokens."""
    return (s.max() - s.min()).item()


# --------------------------------------------------------------------------- STRING


@pytest.mark.parametrize("frequencies", ["mixed", "axial"])
@pytest.mark.parametrize("grid", [(4, 5), (6, 7)])  # the training grid and another
def test_string_score_depends_only_on_the_offset_for_any_change_of_basis(frequencies, grid):
    torch.manual_seed(0)
    e = enc("string", frequencies=frequencies)
    with torch.no_grad():
        e.basis.normal_(std=1.0)  # P far from the identity
    for layer in range(2):
        assert (e.change_of_basis(layer) - torch.eye(16)).abs().max() > 0.3
        q, k = same_content(e, grid, seed=layer)
        s = scores(e, q, k, grid, layer)
        assert spread_within_offsets(s, grid) < 1e-5 * s.abs().max()  # float32 angles, as RoPE's
        assert spread_across_offsets(s) > 0.5 * s.abs().max()  # it does depend on the offset
        # and P matters: the wrapped RoPE alone scores the same q, k otherwise
        plain = scores(e.rope, q, k, grid, layer)
        assert (s - plain).abs().max() > 0.1 * s.abs().max()


def test_string_at_initialisation_is_exactly_the_rope_it_wraps():
    q, k = torch.randn(2, 3, 2, 21, 16).unbind(0)  # a class token and a 4x5 grid
    torch.manual_seed(7)
    string = enc("string", prefix=1)
    torch.manual_seed(7)
    mixed = enc("rope-mixed", prefix=1)  # the same draw of random frequencies
    torch.testing.assert_close(string.rope.freqs, mixed.freqs, rtol=0, atol=0)
    axial_string, axial = enc("string", frequencies="axial", prefix=1), enc("rope-axial", prefix=1)
    for layer in range(2):
        assert torch.equal(string.change_of_basis(layer), torch.eye(16).expand(2, 16, 16))  # exp(0) = I
        for grid in [(4, 5), (2, 3)]:
            n = 1 + grid[0] * grid[1]
            for a, b in [(string, mixed), (axial_string, axial)]:
                got = a.rotate(q[..., :n, :], k[..., :n, :], grid, layer)
                want = b.rotate(q[..., :n, :], k[..., :n, :], grid, layer)
                assert all(torch.equal(x, y) for x, y in zip(got, want, strict=True))


def test_string_change_of_basis_stays_orthogonal_after_an_optimiser_step():
    torch.manual_seed(0)
    e = enc("string").double()
    optimizer = torch.optim.AdamW(e.parameters(), lr=0.1, weight_decay=0.05)
    q, k = torch.randn(2, 4, 2, 20, 16, dtype=torch.float64).unbind(0)
    for _ in range(3):
        optimizer.zero_grad()
        qr, kr = e.rotate(q, k, (4, 5), 1)
        (qr @ kr.transpose(-2, -1)).tanh().sum().backward()
        optimizer.step()
    p = e.change_of_basis(1, torch.float64).detach()  # (H, Dh, Dh)
    assert (p - torch.eye(16)).abs().max() > 0.05  # the steps moved P
    torch.testing.assert_close(p.transpose(-1, -2) @ p, torch.eye(16, dtype=torch.float64).expand_as(p))


def test_string_parameters_are_learned_without_weight_decay():
    m = ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, position="string"))
    m(torch.randn(2, 3, 16, 16)).sum().backward()
    assert m.pos.basis.grad is not None and m.pos.basis.grad.abs().sum() > 0
    _, no_decay = m.parameter_groups(0.05)
    exempt = {id(p) for p in no_decay["params"]}
    assert id(m.pos.basis) in exempt and id(m.pos.rope.freqs) in exempt


def test_string_interpolate_reaches_the_wrapped_rope():
    e = enc("string", frequencies="axial", grid=(4, 4), interpolate=True)
    assert e.rope.interpolate and e.positions((8, 8)).max() < 4
    e.interpolate = False
    assert not e.rope.interpolate and e.positions((8, 8)).max() == 7


# --------------------------------------------------------------------------- LieRE


def test_liere_score_is_not_offset_only_with_non_commuting_generators():
    torch.manual_seed(0)
    e = enc("liere").double()  # the paper's set-up: dense generators of the whole head, U(0, 2 pi)
    a = e.generator(0)  # (2, H, 1, Dh, Dh)
    commutator = a[0] @ a[1] - a[1] @ a[0]
    assert commutator.abs().max() > 1.0
    for grid in [(4, 5), (6, 7)]:
        q, k = same_content(e, grid)
        s = scores(e, q, k, grid)
        # two pairs of patches at the same offset score very differently: a clear margin
        assert spread_within_offsets(s, grid) > 0.2 * spread_across_offsets(s)


@pytest.mark.parametrize("grid", [(4, 5), (6, 7)])
def test_liere_with_commuting_generators_scores_by_the_offset_alone(grid):
    torch.manual_seed(0)
    e = enc("liere", commuting=True).double()
    a = e.generator(1)  # (2, H, Dh/2, 2, 2)
    torch.testing.assert_close(a[0] @ a[1], a[1] @ a[0], rtol=0, atol=1e-12)
    q, k = same_content(e, grid)
    s = scores(e, q, k, grid, layer=1)
    assert spread_within_offsets(s, grid) < 1e-10 * s.abs().max()  # float64 rounding
    assert spread_across_offsets(s) > 0.5 * s.abs().max()


def test_liere_commuting_is_mixed_rope_with_its_generators_as_frequencies():
    """exp(t [[0, a], [-a, 0]]) turns a pair by -t a: mixed RoPE with f_x = -a_col / gw, f_y = -a_row / gh."""
    liere, mixed = enc("liere", commuting=True, prefix=1), enc("rope-mixed", prefix=1)
    with torch.no_grad():
        a = liere.generators[..., 0]  # (L, axis: row col, H, Dh/2)
        mixed.freqs[:, 0] = -a[:, 1] / 5  # f_x (columns), gw = 5
        mixed.freqs[:, 1] = -a[:, 0] / 4  # f_y (rows), gh = 4
    q, k = torch.randn(2, 3, 2, 21, 16).unbind(0)
    for layer in range(2):
        for x, y in zip(liere.rotate(q, k, (4, 5), layer), mixed.rotate(q, k, (4, 5), layer), strict=True):
            torch.testing.assert_close(x, y, rtol=0, atol=1e-5)


@pytest.mark.parametrize("options", [{}, {"block": 4}, {"commuting": True}])
def test_liere_rotation_is_orthogonal_at_every_position(options):
    torch.manual_seed(0)
    e = enc("liere", **options).double()
    for grid in [(4, 5), (9, 3)]:
        r = e.rotations(grid, 1, torch.float64)  # (H, N, Dh/block, block, block)
        eye = torch.eye(e.block, dtype=torch.float64).expand_as(r)
        torch.testing.assert_close(r.transpose(-1, -2) @ r, eye, rtol=0, atol=1e-10)
        assert (r - eye).abs().max() > 0.1  # a real rotation, not the identity
    if "block" in options:  # each block of 4 channels turns on its own
        q = torch.zeros(1, 2, 20, 16, dtype=torch.float64)
        q[..., :4] = 1.0
        qr, _ = e.rotate(q, q, (4, 5), 0)
        assert (qr[..., 4:] == 0).all() and not torch.allclose(qr[..., :4], q[..., :4])


def test_liere_follows_the_papers_setup():
    e = enc("liere", dim=64, heads=4, depth=3, grid=(4, 8))
    assert e.generators.shape == (3, 2, 4, 1, 16 * 15 // 2)  # (L, axis, H, blocks, upper triangle)
    assert 0 <= e.generators.min() and e.generators.max() < 2 * math.pi
    x = e.positions((4, 8))  # the trained grid spans [0, 1) along each axis
    assert x.min() == 0 and x[:, 0].max() == 0.75 and x[:, 1].max() == 7 / 8
    assert e.positions((8, 16)).max() > 1  # past the trained span at a larger grid
    assert enc("liere", grid=(4, 8), interpolate=True).positions((8, 16)).max() < 1
    a = e.generator(0)
    torch.testing.assert_close(a, -a.transpose(-1, -2), rtol=0, atol=0)  # skew-symmetric
    m = ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, position="liere"))
    _, no_decay = m.parameter_groups(0.05)
    assert any(p is m.pos.generators for p in no_decay["params"])


# --------------------------------------------------------------------------- Spiral RoPE


@pytest.mark.parametrize("interpolate", [False, True])
def test_spiral_with_two_directions_is_axial_rope_exactly(interpolate):
    spiral = enc("rope-spiral", directions=2, prefix=1, interpolate=interpolate)
    axial = enc("rope-axial", prefix=1, interpolate=interpolate)
    for grid in [(4, 5), (7, 3)]:
        n = 1 + grid[0] * grid[1]
        q, k = torch.randn(2, 3, 2, n, 16).unbind(0)
        assert torch.equal(spiral.angles(grid, 0), axial.angles(grid, 0))
        got, want = spiral.rotate(q, k, grid, 1), axial.rotate(q, k, grid, 1)
        assert all(torch.equal(x, y) for x, y in zip(got, want, strict=True))


def test_spiral_directions_are_spread_over_half_a_turn():
    s = math.sqrt(0.5)
    expected = torch.tensor([[0, 1], [s, s], [1, 0], [s, -s]], dtype=torch.float64)  # (row, col)
    torch.testing.assert_close(spiral_directions(4), expected, rtol=0, atol=1e-15)
    e = enc("rope-spiral", dim=48, directions=3)  # Dh = 24: 12 pairs, 4 per direction
    angles = e.angles((4, 5), 0).double()  # (N, 12)
    rc = grid_coords((4, 5)).double()
    for k in range(3):
        theta = k * math.pi / 3
        along = rc[:, 1] * math.cos(theta) + rc[:, 0] * math.sin(theta)
        freqs = 100.0 ** (-torch.arange(4, dtype=torch.float64) / 4)  # the ladder inside each group
        torch.testing.assert_close(angles[:, 4 * k : 4 * k + 4], along[:, None] * freqs, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("directions", [3, 4, 6])
@pytest.mark.parametrize("grid", [(4, 5), (6, 7)])
def test_spiral_score_depends_only_on_the_offset(directions, grid):
    e = enc("rope-spiral", dim=48, directions=directions)  # Dh = 24: 12 pairs
    q, k = same_content(e, grid)
    s = scores(e, q, k, grid)
    assert spread_within_offsets(s, grid) < 1e-5 * s.abs().max()  # float32 angles
    assert spread_across_offsets(s) > 0.5 * s.abs().max()


def score_at(e, q, k, grid, dr, dc):
    """The score of a query at the grid's centre and a key (dr, dc) away (key minus query)."""
    r0, c0 = grid[0] // 2, grid[1] // 2
    s = scores(e, q, k, grid)[0]
    return s[r0 * grid[1] + c0, (r0 + dr) * grid[1] + c0 + dc].item()


def interaction(e, q, k, grid):
    """[s(1, 1) - s(1, -1)] - [s(0, 1) - s(0, -1)]: zero when rows and columns do not interact."""
    at = lambda dr, dc: score_at(e, q, k, grid, dr, dc)  # noqa: E731
    return (at(1, 1) - at(1, -1)) - (at(0, 1) - at(0, -1))


def test_spiral_draws_the_oriented_stripe_that_axial_rope_cannot():
    """Lesson 05: axial RoPE's score is a row part plus a column part, so s(1,1) - s(1,-1) =
    s(0,1) - s(0,-1) for every q and k: no stripe along the diagonal. Spiral RoPE's 135-degree
    pairs turn with col - row, which is constant along the diagonal."""
    grid = (5, 5)
    axial, spiral = enc("rope-axial", grid=grid), enc("rope-spiral", grid=grid, directions=4)
    stripe = torch.zeros(16, dtype=torch.float64)
    stripe[12:] = 1.0  # ones on the pairs of group 3 (135 degrees); Dh = 16, 2 pairs per group
    q = k = stripe.expand(1, 2, 25, 16)
    for seed in range(3):  # for any q and k, axial RoPE's interaction is zero
        qa, ka = same_content(axial, grid, seed=seed)
        assert abs(interaction(axial, qa, ka, grid)) < 1e-5 * scores(axial, qa, ka, grid).abs().max()
    assert abs(interaction(axial, q, k, grid)) < 1e-5
    at = lambda dr, dc: score_at(spiral, q, k, grid, dr, dc)  # noqa: E731
    assert at(0, 1) == pytest.approx(at(0, -1), abs=1e-6)  # one step right or left: alike
    assert at(1, 1) == pytest.approx(4.0, abs=1e-6)  # high along the diagonal (the maximum, 2 x 2 pairs)
    assert at(1, 1) - at(1, -1) > 0.25 * at(1, 1)  # and lower along the anti-diagonal: the stripe
    assert interaction(spiral, q, k, grid) > 0.25 * at(1, 1)


# --------------------------------------------------------------------------- every one of them

CASES = [
    ("string", {}),
    ("string", {"frequencies": "axial"}),
    ("liere", {}),
    ("liere", {"block": 4}),
    ("liere", {"commuting": True}),
    ("rope-spiral", {}),
    ("rope-spiral", {"directions": 8}),
]
IDS = [name + "".join(f"-{k}={v}" for k, v in opts.items()) for name, opts in CASES]


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_every_rotation_keeps_lengths_and_leaves_the_prefix_alone(name, options):
    torch.manual_seed(0)
    e = enc(name, prefix=1, **options)
    if name == "string":
        with torch.no_grad():
            e.basis.normal_()
    for grid in [(4, 5), (6, 3)]:
        q, k = torch.randn(2, 2, 2, 1 + grid[0] * grid[1], 16, dtype=torch.float64).unbind(0)
        for x, xr in zip((q, k), e.rotate(q, k, grid, 1), strict=True):
            torch.testing.assert_close(xr.norm(dim=-1), x.norm(dim=-1))
            assert not torch.allclose(xr[..., 2:, :], x[..., 2:, :])
            if name != "string":  # STRING turns every token by P, which cancels between prefix tokens
                assert torch.equal(xr[..., 0, :], x[..., 0, :])
        if name == "string":  # the class token's score with itself is untouched
            qr, kr = e.rotate(q, k, grid, 1)
            dot = lambda a, b: (a[..., 0, :] * b[..., 0, :]).sum(-1)  # noqa: E731  (B, H)
            torch.testing.assert_close(dot(qr, kr), dot(q, k))


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_a_tiny_model_of_each_trains_a_few_steps(name, options):
    torch.manual_seed(0)
    shape = {"image_size": 16, "patch_size": 4, "dim": 32, "heads": 2, "depth": 2, "num_classes": 4}
    model = ViT(ViTConfig(**shape, pool="cls", position=name, position_options=options))
    data = TensorDataset(torch.rand(32, 3, 16, 16), torch.arange(32) % 4)
    history = fit(model, data, steps=4, batch_size=8, lr=3e-3, progress=False, device="cpu")
    assert all(math.isfinite(x) for x in history.loss)
    assert all(torch.isfinite(p).all() for p in model.parameters())
    with torch.no_grad():
        assert torch.isfinite(model.eval()(torch.rand(2, 3, 24, 20))).all()  # at another grid


BAD_OPTIONS = [
    (
        "rope-spiral",
        {"directions": 1},
        r"option directions=1 of positional encoding 'rope-spiral' is out of range; "
        r"pass a whole number >= 2 \(one direction cannot tell the rows apart\)",
    ),
    (
        "rope-spiral",
        {"directions": 3},
        r"directions=3 equal groups, but dim / heads = 8 has 4 pair\(s\); choose directions dividing 4",
    ),
    (
        "liere",
        {"block": 1},
        r"option block=1 of positional encoding 'liere' is out of range; "
        r"pass a whole number >= 2 \(or None\)",
    ),
    (
        "liere",
        {"block": 3},
        r"blocks of 3 channels do not tile a head of dim / heads = 8 channels; pass a block that divides 8",
    ),
    ("liere", {"commuting": True, "block": 4}, r"commuting=True uses generators in 2x2 blocks, but block=4"),
    ("liere", {"commuting": 1}, r"option commuting=1 of positional encoding 'liere' is not True or False"),
    (
        "string",
        {"frequencies": "golden"},
        r"option frequencies='golden' of positional encoding 'string' is unknown; "
        r"pass one of 'mixed', 'axial'",
    ),
    (
        "string",
        {"base": 1.0},
        r"option base=1.0 of positional encoding 'string' is out of range; "
        r"pass a finite number > 1 \(or None\)",
    ),
]


@pytest.mark.parametrize(("name", "options", "says"), BAD_OPTIONS)
def test_bad_options_are_refused_naming_the_option_and_what_it_takes(name, options, says):
    with pytest.raises(ValueError, match=says):
        ViT(
            ViTConfig(
                image_size=16, patch_size=4, dim=16, heads=2, depth=2, position=name, position_options=options
            )
        )
