import math

import pytest
import torch
import torch.nn.functional as F

from minivit import analysis, posenc
from minivit.data.network import simulate_network
from minivit.posenc.base import grid_coords
from minivit.posenc.sincos import sincos_2d


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


# --- looking inside a model --------------------------------------------------------------------------

# read from each encoding's declaration (`offset_only`, base.py): a new offset-only encoding is tested here
# with no edit, and tests/test_posenc_shared.py checks the declarations themselves
OFFSET_ONLY = [name for name, encoding in posenc.REGISTRY.items() if encoding.offset_only]


def _vit(position, **changes):
    from minivit.config import ViTConfig
    from minivit.model import ViT

    return ViT(ViTConfig(position=position, **changes))


@pytest.mark.parametrize("norm_first,pool", [(True, "mean"), (False, "cls")])
@pytest.mark.parametrize("name", list(posenc.REGISTRY))
def test_logit_terms_sum_to_the_models_own_logits(name, norm_first, pool):
    model = _vit(name, norm_first=norm_first, pool=pool)
    with torch.no_grad():  # norms' gains and biases, projections' biases: not their initial 1 and 0
        for p in model.parameters():
            p.add_(0.1 * torch.randn_like(p))
        if isinstance(getattr(model.pos, "table", None), torch.nn.Parameter):  # not tiny, as after training
            torch.nn.init.normal_(model.pos.table, std=0.5)
    images = torch.randn(2, 3, 24, 24)
    logits = analysis.attention_logits(model, images)
    maps = model.eval().attention_maps(images)
    for layer in range(model.config.depth):
        torch.testing.assert_close(logits[layer].softmax(-1), maps[layer], atol=1e-6, rtol=0)
        if not model.pos.rotate_is_linear:  # PoPE: softplus does not split over content + position
            with pytest.raises(ValueError, match="must be linear in q and k"):
                analysis.logit_terms(model, images, layer)
            continue
        terms = analysis.logit_terms(model, images, layer)
        total = sum(terms[t] for t in analysis.TERMS)
        torch.testing.assert_close(total, logits[layer], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(terms["logits"], total)
        shares = torch.stack([terms["shares"][t] for t in analysis.TERMS])  # (5, H)
        torch.testing.assert_close(shares.sum(0), torch.ones(model.config.heads))
        bias = model.pos.attn_bias((6, 6), layer)
        expected_bias = torch.zeros_like(total) if bias is None else bias.expand_as(total)
        torch.testing.assert_close(terms["bias"], expected_bias)
        added = analysis.block_tokens(model, images)["position"][layer].abs().max() > 0
        position = ("content_position", "position_content", "position_position")
        assert all(bool(terms[t].abs().max() > 0) == bool(added) for t in position), (name, layer)


def test_logit_terms_of_position_alone_is_the_dot_product_of_the_encoding():
    """Post-LN, identity q/k projections, zero content: each head's logits are PE_i . PE_j / sqrt(Dh)
    over its own channels, all of it in the position . position term."""
    model = _vit("sincos2d", norm_first=False, dim=16, heads=2, in_channels=1)
    torch.nn.init.zeros_(model.patch_embed.proj.bias)
    qkv = model.blocks[0].attn.qkv
    with torch.no_grad():
        qkv.weight.copy_(torch.eye(16).repeat(3, 1))
        qkv.bias.zero_()
    terms = analysis.logit_terms(model, torch.zeros(1, 1, 24, 24), 0)
    pe = sincos_2d((6, 6), 16).view(36, 2, 8).transpose(0, 1)  # (H, N, Dh)
    expected = (pe @ pe.transpose(-2, -1) / math.sqrt(8))[None]
    torch.testing.assert_close(terms["position_position"], expected)
    for t in ("content_content", "content_position", "position_content", "bias"):
        assert terms[t].abs().max() == 0, t
        assert (terms["shares"][t] == 0).all(), t
    torch.testing.assert_close(terms["shares"]["position_position"], torch.ones(2))


def test_logit_terms_split_layer_norm_exactly_and_none_is_all_content():
    model = _vit("learned")  # pre-LN: the block normalises content + position together
    torch.nn.init.normal_(model.pos.table, std=1.0)
    images = torch.randn(3, 3, 24, 24)
    tokens = analysis.block_tokens(model, images)
    c, e, x = tokens["content"][0], tokens["position"][0], tokens["inputs"][0]
    torch.testing.assert_close(e, model.pos.table[0].expand_as(e), atol=1e-6, rtol=0)
    torch.testing.assert_close(c + e, x)
    terms = analysis.logit_terms(model, images, 0)
    assert all((terms["shares"][t] > 0.01).all() for t in analysis.TERMS[:4])

    none = analysis.logit_terms(_vit("none"), images, 0)
    torch.testing.assert_close(none["shares"]["content_content"], torch.ones(2))
    assert all(none[t].abs().max() == 0 for t in analysis.TERMS[1:])


def test_block_tokens_follow_the_model_and_inspection_leaves_it_as_it_was():
    model = _vit("peg", pool="cls").train()
    images = torch.randn(2, 3, 24, 24)
    tokens = analysis.block_tokens(model, images)
    assert model.training and "add_to_tokens" not in vars(model.pos)
    assert not model.blocks[0]._forward_hooks and not model.blocks[0].attn.qkv._forward_hooks
    assert tokens["grid"] == (6, 6) and len(tokens["inputs"]) == 2
    torch.testing.assert_close(tokens["content"][1], tokens["outputs"][0])  # PEG acts before block 1
    assert tokens["position"][0].abs().max() == 0 and tokens["position"][1].abs().max() > 0
    final = model.eval().tokens(images)[0]
    torch.testing.assert_close(model.norm(tokens["outputs"][-1]), final)


def test_offset_table_and_offset_dependence_by_hand():
    grid = (1, 3)  # columns 0, 1, 2; offsets dx = c_i - c_j in -2..2
    col = torch.arange(3.0)
    antisymmetric = col[:, None] - col[None, :]
    torch.testing.assert_close(
        analysis.offset_table(antisymmetric, grid), torch.arange(-2.0, 3.0)[None].double()
    )
    rc = grid_coords((2, 3))  # two axes: entry [dy + 1, dx + 2] of 10 dy + dx is 10 dy + dx
    dy, dx = rc[:, None, 0] - rc[None, :, 0], rc[:, None, 1] - rc[None, :, 1]
    expected = 10 * torch.arange(-1.0, 2.0)[:, None] + torch.arange(-2.0, 3.0)[None]
    torch.testing.assert_close(analysis.offset_table(10 * dy + dx, (2, 3)), expected.double())
    only_offset = analysis.offset_dependence(antisymmetric**2 + antisymmetric, grid)
    assert only_offset["within"].item() == 0 and only_offset["fraction"].item() == 0
    assert only_offset["varies"].item()  # 0: the offset explains every score, and they do vary
    flat = analysis.offset_dependence(torch.full((3, 3), 2.0), grid)
    assert not flat["varies"].item() and flat["fraction"].item() == 0
    # s_ij = c_i: offset 0 holds 0, 1, 2; +-1 hold {1, 2} and {0, 1}; +-2 one pair each
    query_column = col[:, None].expand(3, 3)
    d = analysis.offset_dependence(query_column, grid)
    assert d["within"].item() == pytest.approx((2 + 0.5 + 0.5) / 9)
    assert d["total"].item() == pytest.approx(2 / 3)
    assert d["fraction"].item() == pytest.approx(0.5)
    torch.testing.assert_close(
        d["by_offset"], torch.tensor([[0, 1 / 4, 2 / 3, 1 / 4, 0]], dtype=torch.float64)
    )
    # batched: reduced over the last two dims only
    both = analysis.offset_dependence(torch.stack([antisymmetric, query_column]), grid)["fraction"]
    torch.testing.assert_close(both, torch.tensor([0.0, 0.5], dtype=torch.float64))
    with pytest.raises(ValueError, match="drop prefix"):
        analysis.offset_dependence(torch.zeros(4, 4), grid)


def test_direction_asymmetry_by_hand_and_for_symmetric_encodings():
    grid = (1, 3)
    col = torch.arange(3.0)
    odd = col[:, None] - col[None, :]
    assert analysis.direction_asymmetry(odd, grid).item() == pytest.approx(1.0)
    assert analysis.direction_asymmetry(odd.abs(), grid).item() == 0
    # s(d) = d + d^2 over d in -2..2: odd part (d) holds 10 of the 10 + sum (d^2 - 2)^2 = 24
    assert analysis.direction_asymmetry(odd + odd**2, grid).item() == pytest.approx(10 / 24)
    assert analysis.direction_asymmetry(torch.ones(3, 3), grid).item() == 0  # no variation at all
    rows = grid_coords((3, 2))[:, 0]
    down = rows[:, None] - rows[None, :]  # odd in the row offset, whatever the column offset
    assert analysis.direction_asymmetry(down, (3, 2)).item() == pytest.approx(1.0)
    assert analysis.direction_asymmetry(down.abs(), (3, 2)).item() == 0

    pe = sincos_2d((5, 7), 32)
    pe_dot_pe = pe @ pe.T  # sum of cos(w (p - q)): even in the offset
    assert analysis.offset_dependence(pe_dot_pe, (5, 7))["fraction"].item() < 1e-12
    assert analysis.direction_asymmetry(pe_dot_pe, (5, 7)).item() < 1e-12
    alibi = posenc.build("alibi2d", dim=16, heads=4, depth=1, grid=(5, 7)).attn_bias((5, 7), 0)
    assert (analysis.direction_asymmetry(alibi, (5, 7)) < 1e-12).all()


@pytest.mark.parametrize("pool", ["mean", "cls"])
@pytest.mark.parametrize("name", OFFSET_ONLY)
def test_offset_only_encodings_score_the_same_content_by_offset_alone(name, pool):
    model = _vit(name, pool=pool)
    content = torch.randn(3, 64)
    for layer in range(model.config.depth):
        scores = analysis.same_content_scores(model, content, layer)  # (3, H, N, N)
        assert scores.shape == (3, 2, 36, 36)
        d = analysis.offset_dependence(scores, (6, 6))
        assert (d["total"] > 1e-3 * scores.double().pow(2).mean((-2, -1))).all()  # the scores do vary
        assert d["varies"].all()
        assert d["fraction"].max() < 1e-9, d["fraction"]
        # at a grid the model was not trained on too
        other = analysis.offset_dependence(
            analysis.same_content_scores(model, content, layer, (4, 8)), (4, 8)
        )
        assert other["fraction"].max() < 1e-9


@pytest.mark.parametrize("name", ["learned", "sincos2d", "sincos1d"])
def test_additive_encodings_score_the_same_content_by_absolute_position(name):
    model = _vit(name)
    scores = analysis.same_content_scores(model, torch.randn(3, 64), 0)
    fraction = analysis.offset_dependence(scores, (6, 6))["fraction"]
    assert fraction.min() > 0.2, fraction  # offset-only encodings: < 1e-9
    # after block 0 nothing is added: every patch is the same token and the scores do not vary
    later = analysis.offset_dependence(analysis.same_content_scores(model, torch.randn(3, 64), 1), (6, 6))
    assert (later["fraction"] == 0).all() and not later["varies"].any()


@pytest.mark.parametrize("name", ["rope1d", "rope-axial", "rope-mixed", "relative", "learned", "alibi2d"])
def test_direction_of_the_offset_matters_for_rope_and_learned_not_alibi(name):
    model = _vit(name)
    scores = analysis.same_content_scores(model, torch.randn(4, 64), 0)
    asymmetry = analysis.direction_asymmetry(scores, (6, 6))  # (4, H)
    if name == "alibi2d":
        assert asymmetry.max() < 1e-12
    else:
        assert asymmetry.mean() > 0.2, asymmetry


def test_same_content_scores_rejects_bad_content_and_layers():
    model = _vit("rope-axial")
    with pytest.raises(ValueError, match="model's width"):
        analysis.same_content_scores(model, torch.randn(3, 32))
    with pytest.raises(ValueError, match="use 0 to 1"):
        analysis.same_content_scores(model, torch.randn(64), 2)
    with pytest.raises(ValueError, match="use 0 to 1"):
        analysis.logit_terms(model, torch.randn(1, 3, 24, 24), -1)


def test_position_probe_is_at_chance_without_position_and_exact_with_an_added_table():
    """Noise images: a patch's content says nothing about where it is, so only the encoding can."""
    g = torch.Generator().manual_seed(0)
    train, test = torch.randn(256, 1, 24, 24, generator=g), torch.randn(64, 1, 24, 24, generator=g)
    none = analysis.position_probe(_vit("none", in_channels=1), train, test)
    assert none["stages"] == ["input of block 0", "output of block 0", "output of block 1"]
    assert none["r2"].shape == (3, 2) and none["accuracy"].shape == (3, 2)
    torch.testing.assert_close(none["chance"], torch.tensor([1 / 6, 1 / 6], dtype=torch.float64))
    assert none["r2"].abs().max() < 0.03, none["r2"]  # 0.015 at worst over 12 seeds
    assert (none["accuracy"] - none["chance"]).abs().max() < 0.03, none["accuracy"]
    for name in ("learned", "sincos2d"):
        probe = analysis.position_probe(_vit(name, in_channels=1), train, test)
        assert probe["r2"][0].min() > 0.999, (name, probe["r2"])
        assert (probe["accuracy"][0] == 1).all(), (name, probe["accuracy"])


def test_position_probe_rejects_bad_input():
    model = _vit("none")
    images = torch.randn(4, 3, 24, 24)
    with pytest.raises(ValueError, match="one image size"):
        analysis.position_probe(model, images, torch.randn(4, 3, 16, 16))
    with pytest.raises(ValueError, match="finite number >= 0"):
        analysis.position_probe(model, images, images, ridge=-1.0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        analysis.position_probe(model, torch.randn(4, 3, 4, 24), torch.randn(4, 3, 4, 24))


@pytest.mark.parametrize("pool", ["mean", "cls"])
def test_mean_attention_distances_per_block_and_head_by_hand(pool):
    """2x2 grid: from every patch the others lie at 1, 1 and sqrt(2). With q = k = 0 ALiBi's
    attention is softmax(-m_h d): mean distance (2 e^-m + sqrt2 e^-sqrt2 m) / (1 + 2 e^-m + e^-sqrt2 m)."""
    model = _vit("alibi2d", image_size=8, heads=4, pool=pool)
    for block in model.blocks:
        torch.nn.init.zeros_(block.attn.qkv.weight)
    distances = analysis.mean_attention_distances(model, torch.randn(3, 3, 8, 8))
    assert distances.shape == (2, 4)
    s2 = math.sqrt(2)
    expected = [
        (2 * math.exp(-m) + s2 * math.exp(-s2 * m)) / (1 + 2 * math.exp(-m) + math.exp(-s2 * m))
        for m in posenc.alibi_slopes(4)
    ]
    torch.testing.assert_close(distances, torch.tensor([expected, expected]))
    # no position and the same content everywhere: uniform attention, (0 + 1 + 1 + sqrt2) / 4
    uniform = analysis.mean_attention_distances(_vit("none", image_size=8, pool=pool), torch.ones(2, 3, 8, 8))
    torch.testing.assert_close(uniform, torch.full((2, 2), (2 + s2) / 4))


# which tokens belong together (lesson 10)


def test_adjusted_rand_index_matches_scikit_learn_and_its_anchors():
    metrics = pytest.importorskip("sklearn.metrics")
    g = torch.Generator().manual_seed(0)
    for _ in range(20):
        a, b = torch.randint(0, 4, (30,), generator=g), torch.randint(0, 3, (30,), generator=g)
        expected = metrics.adjusted_rand_score(a, b)
        assert analysis.adjusted_rand_index(a, b) == pytest.approx(expected, abs=1e-12)
    a = torch.arange(32) // 8
    assert analysis.adjusted_rand_index(a, (a + 1) % 4) == 1.0  # the names of the groups do not matter
    assert analysis.adjusted_rand_index(a, torch.zeros(32)) == pytest.approx(0.0)


def test_rank_correlation_matches_scipy_with_ties():
    stats = pytest.importorskip("scipy.stats")
    g = torch.Generator().manual_seed(1)
    x = torch.randn(200, generator=g)
    y = torch.where(torch.rand(200, generator=g) < 0.7, 0.0, x + torch.randn(200, generator=g))  # many ties
    assert analysis.rank_correlation(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert analysis.rank_correlation(x, x.exp()) == pytest.approx(1.0)  # any increasing map


def test_kmeans_finds_separated_clusters_and_its_cost_is_at_most_scikit_learns():
    cluster = pytest.importorskip("sklearn.cluster")
    g = torch.Generator().manual_seed(2)
    truth = torch.arange(40) // 10
    centres = torch.randn(4, 6, generator=g) * 5
    points = centres[truth] + torch.randn(40, 6, generator=g)
    labels = analysis.kmeans(points, 4, seed=0)
    assert analysis.adjusted_rand_index(labels, truth) == 1.0
    noise = torch.randn(60, 5, generator=g).double()

    def cost(labels):
        parts = [noise[labels == c] for c in labels.unique()]
        return sum(((p - p.mean(0)) ** 2).sum().item() for p in parts)

    ours = cost(analysis.kmeans(noise, 4, restarts=10, seed=0))
    theirs = cluster.KMeans(4, n_init=10, random_state=0).fit(noise.numpy()).inertia_
    assert ours <= theirs * 1.02


def test_module_recovery_is_perfect_for_a_module_code_and_at_its_null_for_a_random_table():
    net = simulate_network(steps=10, seed=0)
    code = F.one_hot(net.modules, 4).float()
    perfect = analysis.module_recovery(code, net.modules, net.weights, permutations=200)
    assert perfect["ari"] == 1.0 and perfect["within_between"] == pytest.approx(1.0)
    assert perfect["ari_p"] == perfect["within_between_p"] == pytest.approx(1 / 201)
    assert perfect["connectivity"] > perfect["connectivity_null"][1]  # edges are denser inside modules
    values = {m: [] for m in ("within_between", "ari", "connectivity")}
    for seed in range(20):
        random = torch.randn(32, 16, generator=torch.Generator().manual_seed(seed))
        r = analysis.module_recovery(random, net.modules, net.weights, permutations=100, seed=seed)
        for m in values:
            values[m].append(r[m + "_p"])
    # a table that knows nothing of the modules: p-values spread over (0, 1], about half below 0.5
    for m, ps in values.items():
        assert 4 <= sum(p < 0.5 for p in ps) <= 16, (m, ps)


def test_module_recovery_names_mismatched_shapes():
    with pytest.raises(ValueError, match="of one N"):
        analysis.module_recovery(torch.randn(5, 3), torch.arange(4), torch.zeros(4, 4))
    with pytest.raises(ValueError, match="k=5"):
        analysis.kmeans(torch.randn(4, 2), 5)
    with pytest.raises(ValueError, match="restarts=0"):
        analysis.kmeans(torch.randn(4, 2), 2, restarts=0)
    with pytest.raises(ValueError, match="must be finite"):
        analysis.kmeans(torch.tensor([[0.0, float("nan")], [1.0, 1.0]]), 2)
    with pytest.raises(ValueError, match="permutations=0"):
        analysis.module_recovery(torch.randn(4, 3), torch.arange(4) // 2, torch.zeros(4, 4), permutations=0)
    with pytest.raises(ValueError, match="two modules or more"):
        analysis.within_between(torch.eye(4), torch.zeros(4))
    with pytest.raises(ValueError, match="a module of two tokens or more"):
        analysis.within_between(torch.eye(4), torch.arange(4))
    with pytest.raises(ValueError, match="all equal has no ranks"):
        analysis.rank_correlation(torch.ones(5), torch.arange(5.0))


def test_kmeans_gives_k_clusters_when_points_repeat():
    points = torch.tensor([[0.0, 0.0]] * 6 + [[1.0, 0.0]] * 2 + [[0.0, 1.0]])
    for seed in range(10):
        labels = analysis.kmeans(points, 3, restarts=1, seed=seed)
        assert sorted(labels.unique().tolist()) == [0, 1, 2]


def test_grid_recovery_scores_a_table_against_its_grid_shuffled():
    from minivit.posenc import sincos_2d

    grid = (4, 4)
    known = analysis.grid_recovery(sincos_2d(grid, 64), grid, permutations=200)
    assert known["procrustes"] > known["procrustes_null"][1] + 0.2 and known["procrustes_p"] < 0.01
    assert known["structure"] == pytest.approx(analysis.structure_score(sincos_2d(grid, 64), grid))
    assert known["structure"] > known["structure_null"][1] + 0.5
    torch.manual_seed(1)
    ps = [
        analysis.grid_recovery(torch.randn(16, 64), grid, permutations=200)["procrustes_p"] for _ in range(20)
    ]
    assert sum(p > 0.05 for p in ps) >= 15  # a random table sits inside its null (19 of 20 expected)
    with pytest.raises(ValueError, match=r"for a 4x4 grid: give \[N, D\] with N = 16"):
        analysis.grid_recovery(torch.randn(17, 8), grid)


def test_layout_tests_find_rows_and_columns_and_closeness_against_shuffles():
    from minivit.posenc import sincos_2d

    grid = (4, 4)
    rows_cols = torch.cat(
        [F.one_hot(torch.arange(4).repeat_interleave(4), 4), F.one_hot(torch.arange(4).repeat(4), 4)], -1
    )
    latin = analysis.layout_tests(rows_cols.float(), grid, permutations=2000)
    assert latin["rows_columns"] == pytest.approx(1.0)  # similar exactly where a row or a column is shared
    assert latin["rows_columns_p"] == pytest.approx(1 / 2001)
    smooth = analysis.layout_tests(sincos_2d(grid, 64), grid, permutations=2000)
    assert smooth["closeness"] == pytest.approx(analysis.structure_score(sincos_2d(grid, 64), grid))
    assert smooth["closeness"] > smooth["closeness_null"][1] + 0.5 and smooth["closeness_p"] < 0.001
    torch.manual_seed(2)
    ps = [
        analysis.layout_tests(torch.randn(16, 64), grid, permutations=500)["rows_columns_p"]
        for _ in range(40)
    ]
    assert sum(p < 0.05 for p in ps) <= 6  # a random table: about 5% of draws below 0.05 (2 expected)
    assert 0.35 < sum(ps) / len(ps) < 0.65  # its p-values spread evenly over [0, 1] (mean 0.5 +- 0.05)
    assert (
        analysis.same_row_or_column(grid).sum() == 16 * 7
    )  # each cell: itself, 3 in its row, 3 in its column
    with pytest.raises(ValueError, match=r"for a 4x4 grid: give \[N, D\] with N = 16"):
        analysis.layout_tests(torch.randn(15, 8), grid)
    with pytest.raises(ValueError, match="permutations=0"):
        analysis.layout_tests(torch.randn(16, 8), grid, permutations=0)


def test_holm_adjusts_the_smallest_p_most_and_keeps_the_order():
    assert analysis.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert analysis.holm([0.001] * 10) == pytest.approx([0.01] * 10)
    assert analysis.holm([0.3, 0.9]) == pytest.approx([0.6, 0.9])  # never below the one before, at most 1
    assert analysis.holm([]) == []
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        analysis.holm([0.2, 1.5])
