"""Batch augmentation: each operation checked against what it is defined to do."""

import pytest
import torch
import torch.nn.functional as F

from minivit.augment import (
    RANDAUGMENT_OPS,
    Augment,
    _apply,
    mix,
    randaugment,
    random_crop,
    random_erasing,
    random_flip,
    random_resized_crop,
)


def batch(n=16, c=3, size=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, c, size, size, generator=g), torch.randint(10, (n,), generator=g)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_random_crop_is_a_window_of_the_reflect_padded_image():
    x, _ = batch(8, size=10)
    out = random_crop(x, 2, gen())
    padded = F.pad(x, (2, 2, 2, 2), mode="reflect")
    offsets = set()
    for i in range(len(x)):
        found = [
            (dy, dx)
            for dy in range(5)
            for dx in range(5)
            if torch.equal(out[i], padded[i, :, dy : dy + 10, dx : dx + 10])
        ]
        assert found, f"image {i} is not a crop of its padded self"
        offsets.add(found[0])
    assert len(offsets) > 1  # each image has its own offset


def test_random_resized_crop_zooms_into_a_box_of_the_asked_area_and_aspect_inside_the_image():
    # channel 0 is the column and channel 1 the row, in normalized coordinates: bilinear resizing
    # of a linear ramp is exact (between the outermost pixel centres), so each output tells its box
    size, n = 16, 256
    t = (2 * torch.arange(size) + 1) / size - 1  # pixel centres in (-1, 1)
    ramp = torch.stack([t.expand(size, size), t[:, None].expand(size, size)])[None].repeat(n, 1, 1, 1)
    out = random_resized_crop(ramp, (0.25, 0.5), gen())
    w = (out[:, 0, 0, -2] - out[:, 0, 0, 1]) / (t[-2] - t[1])  # box width, as a fraction of the side
    h = (out[:, 1, -2, 0] - out[:, 1, 1, 0]) / (t[-2] - t[1])
    assert ((w * h >= 0.25 - 1e-4) & (w * h <= 0.5 + 1e-4)).all()  # area within the range
    assert ((w / h >= 3 / 4 - 1e-4) & (w / h <= 4 / 3 + 1e-4)).all()  # aspect within the range
    assert out.abs().max() <= 1  # inside the image: no border pixels repeated
    assert (w * h).std() > 0.05 and out[:, 0].mean((1, 2)).std() > 0.1  # each image its own box and place
    same, _ = Augment(resized_crop=(1.0, 1.0))(ramp[:1], torch.zeros(1, dtype=torch.long), 2, gen())
    ratio_one = random_resized_crop(ramp[:4], (1.0, 1.0), gen(), ratio=(1.0, 1.0))
    torch.testing.assert_close(ratio_one, ramp[:4])  # the whole image: unchanged
    assert same.shape == ramp[:1].shape
    assert repr(Augment(crop=4, flip=True)) == (  # as checkpoints written before resized_crop record it
        "Augment(crop=4, flip=True, randaugment=0, magnitude=9.0, mixup=0.0, cutmix=0.0, erasing=0.0)"
    )
    assert repr(Augment(resized_crop=(0.5, 1.0))).startswith("Augment(resized_crop=(0.5, 1.0), crop=0")
    with pytest.raises(ValueError, match=r"resized_crop is a range of area fractions .* got \(0.5, 2\)"):
        Augment(resized_crop=(0.5, 2))


def test_random_flip_mirrors_about_half_the_images():
    x, _ = batch(64)
    out = random_flip(x, gen())
    same = [torch.equal(o, a) for o, a in zip(out, x, strict=True)]
    mirrored = [torch.equal(o, a.flip(-1)) for o, a in zip(out, x, strict=True)]
    assert all(s or m for s, m in zip(same, mirrored, strict=True))
    assert 16 < sum(mirrored) < 48


@pytest.mark.parametrize("op", RANDAUGMENT_OPS[1:])
def test_each_randaugment_op_changes_images_and_keeps_them_in_range(op):
    x, _ = batch(8)
    sign = torch.ones(8)
    out = _apply(op, x, 9.0, sign)
    assert out.shape == x.shape
    assert out.min() >= -1e-6 and out.max() <= 1 + 1e-6
    assert not torch.allclose(out, x)


def test_randaugment_ops_do_what_they_say():
    x, _ = batch(4)
    plus, minus = torch.ones(4), -torch.ones(4)
    assert torch.allclose(_apply("brightness", x, 5.0, minus), x * (1 - 0.45))
    assert torch.allclose(_apply("solarize", x, 5.0, plus), torch.where(x >= 0.5, 1 - x, x))
    assert len(torch.unique(_apply("posterize", x, 8.0, plus))) <= 16  # 4 bits
    stretched = _apply("autocontrast", x * 0.5 + 0.2, 0.0, plus)
    assert torch.allclose(stretched.amin(dim=(2, 3)), torch.zeros(4, 3), atol=1e-6)
    assert torch.allclose(stretched.amax(dim=(2, 3)), torch.ones(4, 3), atol=1e-6)
    gray = _apply("color", x, 10 / 0.9, minus)  # factor 0: fully desaturated
    assert torch.allclose(gray[:, 0], gray[:, 1], atol=1e-6) and torch.allclose(
        gray[:, 1], gray[:, 2], atol=1e-6
    )
    # a warp at magnitude 0 is the identity, and a rotation keeps a centred disk where it is
    for op in ("rotate", "shear_x", "shear_y", "translate_x", "translate_y"):
        assert torch.allclose(_apply(op, x, 0.0, plus), x, atol=1e-5), op
    yy, xx = torch.meshgrid(torch.arange(32.0), torch.arange(32.0), indexing="ij")
    disk = (((yy - 15.5) ** 2 + (xx - 15.5) ** 2) < 8**2).float().expand(2, 1, 32, 32)
    inscribed = ((yy - 15.5) ** 2 + (xx - 15.5) ** 2) < 15**2  # corners turn out of the frame
    assert (_apply("rotate", disk, 10.0, torch.ones(2)) - disk).abs()[..., inscribed].mean() < 0.03
    # an off-centre blob turns by 3 m = 30 degrees about the centre
    blob = (((yy - 15.5) ** 2 + (xx - 25.5) ** 2) < 3**2).float()[None, None]
    turned = _apply("rotate", blob, 10.0, torch.ones(1))[0, 0] - 0.5 * (~inscribed)
    w = turned.clamp_min(0)
    cy, cx = (w * yy).sum() / w.sum() - 15.5, (w * xx).sum() / w.sum() - 15.5
    assert abs(torch.atan2(cy, cx).abs().rad2deg().item() - 30) < 2
    # translate_x moves the content sideways by 0.045 m of the width (sign +1: to the left)
    bar = torch.zeros(1, 1, 20, 20)
    bar[..., 5] = 1
    moved = _apply("translate_x", bar, 10 / 9, torch.ones(1))  # 0.05 * 20 = 1 pixel
    assert moved[0, 0, :, 4].mean() > 0.99 and moved[0, 0, :, 5].mean() < 0.01


def test_randaugment_gives_each_image_its_own_ops_and_is_reproducible():
    x, _ = batch(120)
    a, b = randaugment(x, 1, 9.0, gen(1)), randaugment(x, 1, 9.0, gen(1))
    assert torch.equal(a, b)
    unchanged = sum(bool(torch.equal(o, i)) for o, i in zip(a, x, strict=True))
    assert 2 <= unchanged <= 25  # "identity" is drawn for about 1 image in 12


def test_mixup_blends_images_and_targets_with_the_same_weight():
    x, y = batch(8)
    t = F.one_hot(y, 10).float()
    out, mixed = mix(x, t, mixup=0.8, cutmix=0.0, generator=gen())
    assert torch.allclose(mixed.sum(1), torch.ones(8))
    lam = mixed[0, y[0]].item() if y[0] != y[-1] else None
    if lam is not None:
        assert torch.allclose(out[0], lam * x[0] + (1 - lam) * x[-1], atol=1e-6)


def test_cutmix_pastes_a_box_whose_area_is_the_partners_share():
    x, y = torch.zeros(6, 1, 16, 16), torch.arange(6)
    x += torch.arange(6.0)[:, None, None, None]  # image i is the constant i
    for seed in range(5):
        out, mixed = mix(x, F.one_hot(y, 6).float(), mixup=0.0, cutmix=1.0, generator=gen(seed))
        partner_share = (out[0] == 5).float().mean().item()  # image 0's partner is image 5
        assert mixed[0, 5].item() == pytest.approx(partner_share)
        assert mixed[0, 0].item() == pytest.approx(1 - partner_share)


def test_random_erasing_replaces_one_rectangle_per_chosen_image():
    x = torch.full((32, 1, 20, 20), 2.0)  # out of the noise's range, so erased pixels show
    assert torch.equal(random_erasing(x, 0.0, gen()), x)
    out = random_erasing(x, 1.0, gen())
    for img in out[:, 0]:
        erased = img < 1.5
        rows, cols = erased.any(1).nonzero(), erased.any(0).nonzero()
        h, w = len(rows), len(cols)
        assert erased.sum() == h * w  # a rectangle
        assert rows.max() - rows.min() + 1 == h and cols.max() - cols.min() + 1 == w
        assert 0.01 * 400 <= h * w <= 0.5 * 400


def test_augment_recipes_and_validation():
    x, y = batch(16)
    images, targets = Augment.recipe("deit")(x, y, 10, gen())
    assert images.shape == x.shape and targets.shape == (16, 10)
    assert torch.allclose(targets.sum(1), torch.ones(16))
    assert images.min() >= 0 and images.max() <= 1 + 1e-6
    plain, onehot = Augment()(x, y, 10, gen())
    assert torch.equal(plain, x) and torch.equal(onehot.argmax(1), y) and not Augment()
    with pytest.raises(ValueError, match="known: none, light, deit"):
        Augment.recipe("heavy")
    with pytest.raises(ValueError, match="erasing=2 is out of range; .* <= 1"):
        Augment(erasing=2)
