import torch
import torch.nn.functional as F

from minivit.data import odd_one_out, shuffle_patches


def test_same_seed_same_scenes_other_seed_other_scenes():
    a, b, c = odd_one_out(16, seed=3), odd_one_out(16, seed=3), odd_one_out(16, seed=4)
    assert torch.equal(a.images, b.images) and torch.equal(a.labels, b.labels)
    assert not torch.equal(a.images, c.images)


def test_a_new_resolution_renders_the_same_scenes_sharper():
    low, high = odd_one_out(32, image_size=24), odd_one_out(32, image_size=48)
    assert torch.equal(low.labels, high.labels)
    assert high.images.shape == (32, 3, 48, 48)
    down = F.avg_pool2d(high.images, 2)
    assert (down - low.images).abs().mean() < 0.02


def test_the_label_is_the_one_cell_unlike_the_others():
    d = odd_one_out(64, image_size=24)
    cells = d.images.reshape(64, 3, 3, 8, 3, 8).permute(0, 2, 4, 1, 3, 5).reshape(64, 9, -1)
    # ink per cell, normalised by colour: the odd shape differs from the 8 alike in its mask
    masks = (cells > 0.05).float()
    for i in range(64):
        label = d.labels[i].item()
        others = [j for j in range(9) if j != label]
        assert masks[i, label].sum() > 0
        assert 0 <= label < 9 and len(d.classes) == 9
        assert all(masks[i, j].sum() > 0 for j in others)


def test_labels_are_balanced_and_images_in_range():
    d = odd_one_out(900)
    counts = torch.bincount(d.labels, minlength=9)
    assert counts.min() > 60
    assert d.images.min() >= 0 and d.images.max() <= 1


def test_shuffle_patches_is_a_permutation_of_patches():
    x = torch.arange(2 * 1 * 4 * 6, dtype=torch.float32).reshape(2, 1, 4, 6)
    perm = torch.tensor([5, 0, 1, 2, 3, 4])
    y = shuffle_patches(x, 2, perm)
    assert torch.equal(y[:, :, 0:2, 0:2], x[:, :, 2:4, 4:6])  # patch 5 lands at 0
    assert torch.equal(y[:, :, 0:2, 2:4], x[:, :, 0:2, 0:2])  # patch 0 lands at 1
    assert torch.equal(shuffle_patches(y, 2, torch.argsort(perm)), x)
