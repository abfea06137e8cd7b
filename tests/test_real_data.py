"""The real loading code (torchvision's MNIST and CIFAR-10) on small files in their own on-disk
format, written here, since nothing can be downloaded in CI."""

import hashlib
import pickle
import struct
import urllib.error

import numpy as np
import pytest
import torch
from torch.utils.data import TensorDataset
from torchvision import datasets

from minivit.data import DatasetUnavailable, cifar10, digits, mnist, mnist_offline, resize


def write_idx(path, array: np.ndarray):
    """The IDX format of MNIST: magic (0, 0, type 0x08 = ubyte, ndim), big-endian dims, then data."""
    with open(path, "wb") as f:
        f.write(struct.pack(">BBBB", 0, 0, 0x08, array.ndim))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(array.astype(np.uint8).tobytes())


@pytest.fixture
def fake_mnist(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for prefix, n in (("train", 12), ("t10k", 5)):
        write_idx(raw / f"{prefix}-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28)))
        write_idx(raw / f"{prefix}-labels-idx1-ubyte", rng.integers(0, 10, n))
    return tmp_path


def test_mnist_reads_torchvision_files(fake_mnist):
    train, test = mnist(fake_mnist, download=False), mnist(fake_mnist, train=False, download=False)
    x, y = train.tensors
    assert x.shape == (12, 1, 28, 28) and x.dtype == torch.float32 and 0 <= x.min() and x.max() <= 1
    assert y.dtype == torch.long and len(test) == 5
    raw = np.fromfile(fake_mnist / "MNIST/raw/train-images-idx3-ubyte", dtype=np.uint8, offset=16)
    assert torch.equal((x[0, 0] * 255).round().to(torch.uint8), torch.from_numpy(raw[:784].reshape(28, 28)))


@pytest.fixture
def fake_cifar(tmp_path, monkeypatch):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    rng = np.random.default_rng(0)
    md5 = {}
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    for name in names:
        batch = {
            "data": rng.integers(0, 256, (4, 3072), dtype=np.uint8),
            "labels": rng.integers(0, 10, 4).tolist(),
        }
        (folder / name).write_bytes(pickle.dumps(batch))
        md5[name] = hashlib.md5((folder / name).read_bytes()).hexdigest()
    meta = {
        "label_names": [
            "airplane",
            "automobile",
            "bird",
            "cat",
            "deer",
            "dog",
            "frog",
            "horse",
            "ship",
            "truck",
        ]
    }
    (folder / "batches.meta").write_bytes(pickle.dumps(meta))
    # torchvision checks each file's md5 against the real dataset's: point it at these files
    monkeypatch.setattr(datasets.CIFAR10, "train_list", [[n, md5[n]] for n in names[:5]])
    monkeypatch.setattr(datasets.CIFAR10, "test_list", [["test_batch", md5["test_batch"]]])
    monkeypatch.setattr(
        datasets.CIFAR10,
        "meta",
        {**datasets.CIFAR10.meta, "md5": hashlib.md5((folder / "batches.meta").read_bytes()).hexdigest()},
    )
    return tmp_path


def test_cifar10_reads_torchvision_files(fake_cifar):
    train, test = cifar10(fake_cifar, download=False), cifar10(fake_cifar, train=False, download=False)
    x, y = train.tensors
    assert x.shape == (20, 3, 32, 32) and len(test) == 4
    batch = pickle.loads((fake_cifar / "cifar-10-batches-py/data_batch_1").read_bytes())
    # CIFAR stores each image as 1024 red, then green, then blue values, row by row
    assert torch.equal((x[0] * 255).round().to(torch.uint8).reshape(-1), torch.from_numpy(batch["data"][0]))
    assert y[:4].tolist() == batch["labels"]


def test_missing_dataset_without_download_says_what_to_do(tmp_path):
    with pytest.raises(DatasetUnavailable, match=r"MNIST is not in .*; pass download=True"):
        mnist(tmp_path, download=False)


def test_missing_dataset_offline_says_so_and_names_the_offline_stand_ins(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr(datasets.utils, "urlopen", no_network, raising=False)
    monkeypatch.setattr(datasets.mnist, "download_and_extract_archive", no_network)
    monkeypatch.setattr(datasets.cifar, "download_and_extract_archive", no_network)
    for load, name in ((mnist, "MNIST"), (cifar10, "CIFAR10")):
        with pytest.raises(DatasetUnavailable, match=f"{name} is not in .* could not be downloaded") as err:
            load(tmp_path, download=True)
        assert "mnist_offline()" in str(err.value) and "copy the folder" in str(err.value)


def test_mnist_offline_is_shuffled_real_digits():
    sets = mnist_offline()
    x, y = sets["train"].tensors
    assert x.shape == (4000, 1, 28, 28) and len(sets["test"]) == 1000
    assert 0 <= x.min() and x.max() <= 1 and x.mean() > 0.05
    assert len(torch.unique(y[:100])) == 10  # sorted by label on disk: shuffled here
    assert not set(map(tuple, sets["test"].tensors[0][:50].flatten(1).tolist())) & set(
        map(tuple, x[:2000].flatten(1).tolist())
    )


def test_digits_are_8x8():
    sets = digits()
    assert sets["train"].tensors[0].shape[1:] == (1, 8, 8) and sets["train"].tensors[0].max() <= 1


def test_resize_keeps_labels_and_range():
    d = TensorDataset(torch.rand(3, 1, 28, 28), torch.tensor([1, 2, 3]))
    r = resize(d, 14)
    assert r.tensors[0].shape == (3, 1, 14, 14) and torch.equal(r.tensors[1], d.tensors[1])
    assert resize(d, 28) is d
