import os
from dataclasses import replace

import matplotlib
import pytest
import torch

from minivit.data import lst

matplotlib.use("Agg")
torch.set_num_threads(1)  # tiny models: one thread is fastest and immune to CPU contention
# and one thread in every process a test starts (`minivit train`, torchrun, a kernel): the tests run
# on two workers, so a worker's share of two cores is one, and more threads only wait on a busy machine
for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture(autouse=True)
def _best_device():
    """`minivit.lesson.setup` pins device=None to the CPU for the rest of the process; undo it."""
    from minivit import devices

    yield
    devices.prefer_device(None)


def _write_reference_folder(folder, per_grade=20, study=104):
    """A small copy of the reference's processed_data: the three puzzle CSVs and LST_data.mat."""
    from scipy.io import savemat

    for grade, name in zip(lst.GRADES, lst.REFERENCE_FILES, strict=True):
        s = lst.generate(per_grade, seed=len(grade), mix={grade: 1.0})
        rows = [
            f"{i},,{grade.title()},{p},{a}"
            for i, (p, a) in enumerate(zip(s.strings(), (s.tensors[1] + 1).tolist(), strict=True))
        ]
        (folder / name).write_text("ID,LST_num,condition,puzzles,solutions\n" + "\n".join(rows) + "\n")
    s = lst.generate(300, seed=7)
    answers = (s.tensors[1] + 1).tolist()
    # trials 99-101 hold puzzles whose answers are 1, 2, 3 but are stored wrong, as in the real file
    picks = list(range(99)) + [answers.index(a, 99) for a in (1, 2, 3)] + list(range(99, 99 + study - 102))
    cells = s.cells[picks].clone()
    cells[cells == lst.QUERY] = 9
    stored = [answers[i] for i in picks]
    stored[99:102] = [4, 1, 2]
    task = torch.cat([cells, torch.tensor(stored)[:, None]], 1).to(torch.uint8).numpy()
    savemat(folder / lst.STUDY_FILE, {"taskData": task})
    return s.cells[picks[:108]]


@pytest.fixture
def reference_folder():
    """Writes a small copy of the reference's processed_data into a folder; returns the study's cells."""
    return _write_reference_folder


@pytest.fixture
def tiny_resolution(monkeypatch):
    """`tiny_resolution(**changes)`: a resolution sweep small enough for a test (odd_one_out trained
    3 steps at 16 px, tested at 8, 16 and 24; four variants in two trainings), with `changes` to its
    fields, registered as setting "tiny" for `resolution.main(["--settings", "tiny", ...])`."""
    from minivit.experiments import resolution

    tiny = resolution.Setting(
        "odd_one_out",
        16,
        (8, 16, 24),
        patch_size=4,
        dim=16,
        depth=1,
        heads=2,
        steps=3,
        batch_size=16,
        train_examples=32,
        test_examples=16,
        variants=("learned", "learned-antialias", "rope-mixed", "rope-mixed-interp"),
    )

    def register(**changes):
        setting = replace(tiny, **changes)
        monkeypatch.setitem(resolution.SETTINGS, "tiny", setting)
        return setting

    return register
