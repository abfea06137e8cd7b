"""Fashion-MNIST: 70,000 grey 28x28 photos of clothes in 10 classes (Xiao et al. 2017, Zalando).

Read from the first place that has it:

1. torchvision's `FashionMNIST` folder under `root` (what `torchvision.datasets.FashionMNIST(root,
   download=True)` leaves there);
2. the files of Debian's package `dataset-fashion-mnist` (`apt-get install dataset-fashion-mnist`),
   gzipped IDX files in /usr/share/datasets/fashion-mnist;
3. with `download=True`, a download by torchvision into `root` (needs the internet: Colab, most GPU
   machines).

Like `mnist`, it returns a TensorDataset of float images [n, 1, 28, 28] in [0, 1] and long labels
[n]; its `classes` attribute names the labels.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import TensorDataset

from minivit.data.real import DEFAULT_ROOT, DatasetUnavailable

CLASSES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)
SYSTEM_DIR = Path("/usr/share/datasets/fashion-mnist")  # where dataset-fashion-mnist puts its files
APT_PACKAGE = "dataset-fashion-mnist"


def read_idx(path: str | Path) -> np.ndarray:
    """An IDX file of unsigned bytes (MNIST's format), gzipped if its name ends in .gz: a big-endian
    header (0, 0, type 0x08, number of dimensions, then each dimension as 4 bytes), then the data."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError, zlib.error) as err:  # a truncated or damaged gzip stream
        raise ValueError(f"{path} cannot be read ({type(err).__name__}: {err})") from None
    if len(data) < 4 or data[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path} is not an IDX file of unsigned bytes (it starts {data[:4].hex()})")
    ndim = data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path} ends inside its IDX header")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    size = int(np.prod(shape))
    if len(data) - header != size:
        raise ValueError(f"{path} holds {len(data) - header} bytes of data; its header {shape} says {size}")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)


def _dataset(images: torch.Tensor, labels: torch.Tensor) -> TensorDataset:
    data = TensorDataset(images[:, None].float() / 255, labels.long())
    data.classes = list(CLASSES)
    return data


def _from_system(folder: Path, train: bool) -> TensorDataset | None:
    """The Debian package's files in `folder`, or None where they are not there."""
    prefix = "train" if train else "t10k"
    paths = [folder / f"{prefix}-{kind}-idx{d}-ubyte.gz" for kind, d in (("images", 3), ("labels", 1))]
    if not all(p.is_file() for p in paths):
        return None
    try:
        images, labels = (read_idx(p) for p in paths)
        if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels) or labels.max(initial=0) > 9:
            raise ValueError(f"{paths[0]} holds images {images.shape} and {paths[1]} labels {labels.shape}")
    except ValueError as err:
        raise DatasetUnavailable(
            f"Fashion-MNIST's files in {folder} are damaged: {err}; reinstall them "
            f"(apt-get install --reinstall {APT_PACKAGE})"
        ) from None
    return _dataset(torch.from_numpy(images.copy()), torch.from_numpy(labels.copy()))


def fashion_mnist(
    root: str | Path = DEFAULT_ROOT,
    *,
    train: bool = True,
    download: bool = False,
    system_dir: str | Path | None = None,
) -> TensorDataset:
    """Fashion-MNIST's training set (or with `train=False` its test set): images [n, 1, 28, 28] in
    [0, 1], labels [n], and `classes`. From torchvision's folder under `root`, else Debian's files in
    `system_dir` (default SYSTEM_DIR), else, with `download=True`, downloaded by torchvision."""
    from torchvision import datasets

    if Path(root).exists() and not Path(root).is_dir():
        raise ValueError(
            f"the data root {root!s} is a file, not a folder; point --data-root (or MINIVIT_DATA) at a folder"
        )
    try:
        ds = datasets.FashionMNIST(str(root), train=train, download=False)
        return _dataset(ds.data, ds.targets)
    except RuntimeError:
        pass
    folder = Path(SYSTEM_DIR if system_dir is None else system_dir)
    found = _from_system(folder, train)
    if found is not None:
        return found
    where = f"torchvision's FashionMNIST folder under {root!s} nor in {folder}"
    if not download:
        raise DatasetUnavailable(
            f"Fashion-MNIST is neither in {where}: install Debian's package (apt-get install "
            f"{APT_PACKAGE}), or where the internet can be reached pass download=True "
            f"(torchvision downloads it into {root!s})"
        )
    try:
        ds = datasets.FashionMNIST(str(root), train=train, download=True)
    except Exception as err:  # no network: URLError, socket errors, HTTP errors
        reason = " ".join(str(err).split())  # on one line (torchvision's spans several)
        raise DatasetUnavailable(
            f"Fashion-MNIST is neither in {where}, and could not be downloaded ({type(err).__name__}: "
            f"{reason}). Install Debian's package (apt-get install {APT_PACKAGE}), or download it where "
            f'the internet can be reached (`python -c "import torchvision; '
            f"torchvision.datasets.FashionMNIST('data', download=True)\"`) and copy the folder to {root!s}"
        ) from err
    return _dataset(ds.data, ds.targets)
