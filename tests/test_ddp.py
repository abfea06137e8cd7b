"""`minivit train` under torchrun: two processes (gloo, CPU) follow one process's loss curve."""

import json
import subprocess
import sys

import pytest
import torch

from minivit.train import load_checkpoint

TRAIN = (
    "train --task relation --position sincos2d --patch-size 8 --dim 32 --train-size 512 --test-size 64 "
    "--steps 40 --batch-size 64 --threads 1 --device cpu --quiet"
).split()


def run(cmd, cwd):
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
def test_two_processes_follow_the_loss_curve_of_one(tmp_path):
    run([sys.executable, "-m", "minivit.cli", *TRAIN, "--out", "one"], tmp_path)
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    out = run([*torchrun, "-m", "minivit.cli", *TRAIN, "--out", "two"], tmp_path)
    assert "2 processes" in out and out.count("train accuracy") == 1  # one process speaks
    one, two = (json.loads((tmp_path / d / "history.json").read_text()) for d in ("one", "two"))
    assert len(one["loss"]) == len(two["loss"]) == 40
    assert one["loss"][-1] < one["loss"][0] - 0.02  # the curve moves, so matching it means something
    assert torch.allclose(torch.tensor(one["loss"]), torch.tensor(two["loss"]), rtol=1e-4, atol=1e-5)
    assert torch.allclose(torch.tensor(one["accuracy"]), torch.tensor(two["accuracy"]), atol=1e-6)
    a, b = (load_checkpoint(tmp_path / d)["model"] for d in ("one", "two"))
    for name in a:
        assert torch.allclose(a[name], b[name], rtol=1e-4, atol=1e-5), name
