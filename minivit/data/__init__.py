"""Data for the course: procedural image tasks rendered at any resolution from a seed, the Latin
square task, and real images (MNIST, Fashion-MNIST, CIFAR-10, offline stand-ins)."""

from minivit.data import lst
from minivit.data.fashion import fashion_mnist
from minivit.data.real import DatasetUnavailable, cifar10, digits, mnist, mnist_offline, resize
from minivit.data.synthetic import (
    RELATIONS,
    SHAPES,
    TASKS,
    SyntheticTask,
    make_task,
    odd_one_out,
    relation,
    render_cells,
    shuffle_patches,
    where,
    which_shape,
)
from minivit.data.tasks import TaskData, TaskShape, load_task, real_images, task_shape

__all__ = [
    "RELATIONS",
    "SHAPES",
    "TASKS",
    "DatasetUnavailable",
    "SyntheticTask",
    "TaskData",
    "TaskShape",
    "cifar10",
    "digits",
    "fashion_mnist",
    "load_task",
    "lst",
    "make_task",
    "mnist",
    "mnist_offline",
    "odd_one_out",
    "real_images",
    "relation",
    "render_cells",
    "resize",
    "shuffle_patches",
    "task_shape",
    "where",
    "which_shape",
]
