import pytest

from minivit import PRESETS, ViT, ViTConfig, preset
from minivit.posenc import REGISTRY


def test_image_size_not_divisible_by_patch_names_the_fix():
    with pytest.raises(
        ValueError, match=r"image height 30 is not divisible by patch size 4; use a multiple of 4"
    ):
        ViTConfig(image_size=30, patch_size=4)


def test_unknown_encoding_lists_the_known_ones():
    with pytest.raises(ValueError, match="Unknown positional encoding 'sinus'") as err:
        ViTConfig(position="sinus")
    for name in REGISTRY:
        assert name in str(err.value)


def test_unknown_encoding_option_lists_the_accepted_ones():
    with pytest.raises(
        ValueError, match=r"unknown option\(s\) \['stdd'\] for positional encoding 'learned'.*std"
    ):
        ViT(ViTConfig(position="learned", position_options={"stdd": 0.1}))


def test_heads_must_divide_width():
    with pytest.raises(ValueError, match="dim=30 is not divisible by heads=4"):
        ViTConfig(dim=30, heads=4)


def test_unknown_pool():
    with pytest.raises(ValueError, match="unknown pool 'max'; known pools: mean, cls, last"):
        ViTConfig(pool="max")


def test_round_trip_and_differences():
    c = ViTConfig(position="sincos2d", image_size=(24, 32), position_options={"base": 100.0})
    assert ViTConfig.from_dict(c.to_dict()) == c
    assert c.differences(c.with_(dim=32)) == {"dim": (64, 32)}
    with pytest.raises(ValueError, match=r"unknown ViTConfig fields \['colour'\]"):
        ViTConfig.from_dict({**c.to_dict(), "colour": 1})


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_build(name):
    c = preset(name)
    assert ViT(c).config is c
    assert preset(name, depth=1).depth == 1
    with pytest.raises(ValueError, match="unknown preset 'huge'; known presets: tiny, small, lst"):
        preset("huge")
