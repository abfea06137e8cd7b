import pytest
import torch
from torch import nn

from minivit import ViT, ViTConfig
from minivit.posenc import REGISTRY, PositionalEncoding


def small(position="none", **kw):
    return ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, depth=2, position=position, **kw))


@pytest.mark.parametrize("pool", ["mean", "cls", "last"])
@pytest.mark.parametrize("norm_first", [True, False])
def test_shapes(pool, norm_first):
    model = small("learned", pool=pool, norm_first=norm_first)
    x = torch.randn(3, 3, 16, 16)
    assert model(x).shape == (3, 9)
    tokens, grid, attn = model.tokens(x, need_weights=True)
    n = 16 + (pool == "cls")
    assert grid == (4, 4) and tokens.shape == (3, n, 32)
    assert len(attn) == 2 and attn[0].shape == (3, 2, n, n)
    torch.testing.assert_close(attn[0].sum(-1), torch.ones(3, 2, n))


def test_image_size_not_divisible_at_run_time():
    with pytest.raises(ValueError, match="image width 18 is not divisible by patch size 4"):
        small()(torch.randn(1, 3, 16, 18))


def test_wrong_channels():
    with pytest.raises(
        ValueError, match=r"images have 1 channels but the model expects 3; pass \[B, 3, H, W\]"
    ):
        small()(torch.randn(1, 1, 16, 16))


@pytest.mark.parametrize("name", list(REGISTRY))
@pytest.mark.parametrize("size", [16, 8, 24, (16, 24)])
def test_every_encoding_runs_forward_and_backward_at_other_grids(name, size):
    model = small(name)
    h, w = (size, size) if isinstance(size, int) else size
    x = torch.randn(2, 3, h, w)
    out = model(x)
    assert out.shape == (2, 9) and torch.isfinite(out).all()
    out.sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


@pytest.mark.parametrize("name", list(REGISTRY))
@pytest.mark.parametrize("pool", ["mean", "cls"])
def test_fused_and_explicit_attention_agree(name, pool):
    model = small(name, pool=pool).eval()
    x = torch.randn(2, 3, 16, 16)
    fused = model.tokens(x)[0]
    explicit = model.tokens(x, need_weights=True)[0]
    torch.testing.assert_close(fused, explicit, atol=1e-5, rtol=1e-5)


def test_no_weight_decay_on_position_tables_norms_and_biases():
    model = small("learned", pool="cls")
    decay, no_decay = model.parameter_groups(0.05)
    ids = {id(p) for p in no_decay["params"]}
    assert id(model.pos.table) in ids and id(model.cls_token) in ids
    assert id(model.blocks[0].attn.qkv.weight) not in ids
    assert decay["weight_decay"] == 0.05 and no_decay["weight_decay"] == 0.0


def test_token_pool_gives_one_output_per_token_a_regression_head_for_a_row_of_tokens():
    torch.manual_seed(0)
    config = ViTConfig(image_size=(1, 12), patch_size=1, in_channels=5, num_classes=1, pool="tokens", dim=16)
    model = ViT(config).eval()
    x = torch.randn(3, 5, 1, 12)
    out = model(x)
    assert out.shape == (3, 12, 1)
    torch.testing.assert_close(out, model.head(model.tokens(x)[0]))
    with pytest.raises(ValueError, match="num_classes=1 is below 2"):
        ViTConfig(num_classes=1)  # a classifier needs two classes


def test_token_pool_without_position_is_permutation_equivariant_and_with_it_is_not():
    torch.manual_seed(0)
    x, perm = torch.randn(2, 3, 1, 10), torch.randperm(10)
    for position, equivariant in (("none", True), ("learned", False)):
        config = ViTConfig(image_size=(1, 10), patch_size=1, num_classes=2, pool="tokens", position=position)
        model = ViT(config).eval()
        if position == "learned":
            torch.nn.init.normal_(model.pos.table, std=1.0)  # a table large enough to matter
        with torch.no_grad():
            moved = model(x[..., perm])
            assert torch.allclose(moved, model(x)[:, perm], atol=1e-5) == equivariant, position


def test_token_pool_on_a_row_and_an_unknown_pool_named():
    config = ViTConfig(image_size=(1, 6), patch_size=1, num_classes=1, pool="tokens")
    assert ViT(config)(torch.randn(2, 3, 1, 6)).shape == (2, 6, 1)
    with pytest.raises(ValueError, match="unknown pool 'avg'.*tokens"):
        ViTConfig(pool="avg")


def test_torch_init_is_pytorchs_default_with_multihead_attentions_reset():
    torch.manual_seed(0)
    d = 160
    model = ViT(
        ViTConfig(
            image_size=4, patch_size=1, in_channels=6, num_classes=4, dim=d, depth=2, heads=1, init="torch"
        )
    )
    attn, mlp = model.blocks[0].attn, model.blocks[0].mlp
    reference = nn.MultiheadAttention(d, 1)  # what Ito et al.'s blocks are built from
    assert attn.qkv.weight.std().item() == pytest.approx(reference.in_proj_weight.std().item(), rel=0.05)
    assert attn.qkv.weight.std().item() == pytest.approx((2 / (d + 3 * d)) ** 0.5, rel=0.05)  # xavier
    assert not attn.qkv.bias.any() and not attn.proj.bias.any()
    assert not reference.in_proj_bias.any() and not reference.out_proj.bias.any()
    # every other Linear keeps PyTorch's kaiming-uniform default: U(±1/sqrt(fan_in)) for weights and biases
    for layer in (attn.proj, mlp[0], mlp[3], model.head):
        bound = layer.in_features**-0.5
        assert layer.weight.abs().max() <= bound and layer.weight.std().item() == pytest.approx(
            bound / 3**0.5, rel=0.1
        )
    for layer in (mlp[0], mlp[3], model.head):
        assert layer.bias.abs().max() <= layer.in_features**-0.5 and layer.bias.any()
    default = ViT(ViTConfig(dim=d, heads=1))
    assert default.blocks[0].attn.qkv.weight.abs().max() <= 0.04  # minivit's truncated normal, cut at 2 std
    assert (
        ViT(ViTConfig(dim=d, heads=1, init="torch")).blocks[0].attn.qkv.weight.std()
        > 2.5 * default.blocks[0].attn.qkv.weight.std()
    )


def test_init_is_checked_and_kept_in_the_config_dict():
    with pytest.raises(ValueError, match="unknown init 'xavier'; known inits: trunc_normal, torch"):
        ViTConfig(init="xavier")
    config = ViTConfig(init="torch")
    assert ViTConfig.from_dict(config.to_dict()) == config
    old = {k: v for k, v in ViTConfig().to_dict().items() if k != "init"}  # a config saved before the field
    assert ViTConfig.from_dict(old).init == "trunc_normal"


def test_with_torch_init_a_large_table_makes_first_block_attention_sharp_from_the_start():
    from minivit import analysis
    from minivit.config import preset

    cells = torch.randint(0, 6, (256, 4, 4), generator=torch.Generator().manual_seed(0))
    x = torch.nn.functional.one_hot(cells, 6).permute(0, 3, 1, 2).float()  # puzzles of 6 one-hot symbols
    uniform = analysis.uniform_entropy(16)

    def entropy(init, sigma):
        torch.manual_seed(0)
        options = {"init": "normal", "std": sigma, "per_block": True}
        model = ViT(preset("lst").with_(init=init, position_options=options)).eval()
        with torch.no_grad():
            return analysis.entropy(model.attention_maps(x)[0]).mean().item()

    assert entropy("torch", 2.0) < uniform - 0.5  # the reference's init: sharp, position-driven
    assert entropy("trunc_normal", 2.0) > uniform - 0.05  # minivit's: near uniform
    assert min(entropy("torch", 0.1), entropy("trunc_normal", 0.1)) > uniform - 0.05


class _WithLayers(PositionalEncoding):
    """An encoding with its own nn.Linear and nn.LayerNorm (an MLP over positions, say), set to
    values no init of the model gives."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.mlp = nn.Sequential(nn.Linear(2, 8), nn.LayerNorm(8))
        with torch.no_grad():
            for p in self.mlp.parameters():
                p.fill_(0.5)


class _OwnInit(_WithLayers):
    def init_weights(self, model_init):
        pass  # the constructor's init stands


@pytest.mark.parametrize("init", ["trunc_normal", "torch"])
def test_the_models_init_gives_every_encoding_the_weights_a_whole_model_apply_gave(init, monkeypatch):
    """Seed for seed, the weights are those of `ViT.apply(init)`, the init before encodings decided
    where the model's init reaches inside them: for every encoding, and one with layers of its own."""
    monkeypatch.setitem(REGISTRY, "with-layers", _WithLayers)
    for name in REGISTRY:
        config = ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, depth=2, position=name, init=init)
        torch.manual_seed(3)
        model = ViT(config)
        with monkeypatch.context() as m:
            m.setattr(ViT, "_initialise", lambda self, fn: nn.Module.apply(self, fn))
            torch.manual_seed(3)
            whole = ViT(config)
        mine, theirs = model.state_dict(), whole.state_dict()
        assert mine.keys() == theirs.keys()
        for key in mine:
            assert torch.equal(mine[key], theirs[key]), (name, key)


def test_the_models_init_reaches_an_encodings_layers_unless_the_encoding_owns_its_init(monkeypatch):
    monkeypatch.setitem(REGISTRY, "with-layers", _WithLayers)
    monkeypatch.setitem(REGISTRY, "own-init", _OwnInit)
    config = ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, depth=2, position="with-layers")
    reached = ViT(config).pos.mlp  # trunc_normal: Linear weights within 0.04, biases 0; LayerNorm 1, 0
    assert reached[0].weight.abs().max() <= 0.04 and not reached[0].bias.any()
    assert (reached[1].weight == 1).all() and not reached[1].bias.any()
    for init in ("trunc_normal", "torch"):
        own = ViT(config.with_(position="own-init", init=init))
        assert all((p == 0.5).all() for p in own.pos.mlp.parameters()), init
