import pytest
import torch

from minivit import ViT, ViTConfig
from minivit.posenc import REGISTRY


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
