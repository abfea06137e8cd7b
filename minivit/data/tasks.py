"""Every task the `minivit` command and the benchmarks train on, by name, with what a model needs
to know about it (channels, classes, native size) and a way to get its test set at another size."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from torch.utils.data import TensorDataset

from minivit.checks import check_whole
from minivit.data import lst, real, synthetic

SYNTHETIC = tuple(synthetic.TASKS)
REAL = ("mnist", "cifar10", "mnist-offline", "digits")
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
    if name not in NAMES:
        raise ValueError(f"unknown task {name!r}; known: {', '.join(NAMES)}")
    check_whole("train_size", train_size, 1)
    check_whole("test_size", test_size, 1)
    if image_size is not None:
        check_whole("image_size", image_size, 1)
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
        if image_size not in (None, 4):
            raise ValueError("the Latin square task is a fixed 4x4 grid of cells; leave out --image-size")
        sets = lst.splits(train_size, test_size, test_size, seed=seed)

        def fixed(s: int) -> TensorDataset:
            raise ValueError("the Latin square task is a fixed 4x4 grid; it has no other resolutions")

        return TaskData(name, sets["train"], sets["test"], 6, 4, 4, fixed)
    if name in ("mnist", "cifar10"):
        load = real.mnist if name == "mnist" else real.cifar10
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
        int(train.tensors[1].max()) + 1,
        size,
        lambda s: real.resize(test, s),
    )
