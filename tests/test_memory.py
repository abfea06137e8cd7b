"""The memory estimate that `minivit train` and `fit` check before building is close to what a
training step takes (measured as the rise of a process's anonymous resident memory on the CPU)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from minivit import ViT, ViTConfig, posenc
from minivit.memory import estimate
from minivit.model import count_parameters

# one step of fit's loop in a fresh process; prints how far its anonymous resident memory rose during
# the step (sampled every half millisecond; the step takes about a second). Resident pages that a
# file backs (torch's libraries) are left out: the kernel may drop and reload them at any time.
STEP = """
import json, os, sys, threading
import torch
import torch.nn.functional as F
from minivit import ViT, ViTConfig
torch.set_num_threads(1)
page = os.sysconf("SC_PAGE_SIZE")
def anonymous():  # /proc/self/statm: resident pages minus those a file backs
    with open("/proc/self/statm") as f:
        fields = f.read().split()
    return (int(fields[1]) - int(fields[2])) * page
peak, done = [0], threading.Event()
def watch():
    while not done.is_set():
        peak[0] = max(peak[0], anonymous())
        done.wait(0.0005)
config = ViTConfig(**json.loads(sys.argv[1]))
model = ViT(config)
opt = torch.optim.AdamW(model.parameters())
x, y = torch.rand(32, 3, *config.image_size), torch.randint(config.num_classes, (32,))
for batch in (1, 32):  # the first, one image, loads the kernels
    if batch == 32:
        before = anonymous()
        watcher = threading.Thread(target=watch)
        watcher.start()
    F.cross_entropy(model(x[:batch]), y[:batch]).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
done.set()
watcher.join()
print(peak[0] - before)
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("position", ["none", "alibi2d", "rope-axial"])
def test_the_estimate_of_a_step_is_within_a_quarter_of_the_measured_peak(position):
    fields = {"image_size": 96, "patch_size": 4, "position": position}
    out = subprocess.run(
        [sys.executable, "-c", STEP, json.dumps(fields)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    measured = int(out.stdout.split()[-1])
    est = estimate(ViTConfig(**fields), batch_size=32, evaluation_batch=0).total
    assert 0.75 < est / measured < 1.25, (position, est / 1e6, measured / 1e6)


def test_a_logit_bias_on_the_cpu_costs_its_attention_weights_and_a_gpu_does_not():
    plain = estimate(ViTConfig(image_size=96, position="none"), batch_size=32, evaluation_batch=0)
    bias = estimate(ViTConfig(image_size=96, position="alibi2d"), batch_size=32, evaluation_batch=0)
    tokens, heads, depth = 576, 2, 2
    assert bias.per_image - plain.per_image == 2 * heads * tokens**2 * depth * 4  # logits and weights
    on_gpu = estimate(
        ViTConfig(image_size=96, position="alibi2d"), batch_size=32, evaluation_batch=0, device_type="cuda"
    )
    assert on_gpu.per_image == plain.per_image


SHAPES = [{}, {"pool": "cls"}, {"norm_first": False, "mlp_ratio": 2.5, "in_channels": 1, "patch_size": 3,
          "image_size": (9, 12), "dim": 48, "heads": 3, "depth": 3, "num_classes": 7}]  # fmt: skip


@pytest.mark.parametrize("position", list(posenc.REGISTRY))
def test_the_parameters_counted_from_a_config_are_those_of_the_model(position):
    for shape in SHAPES:
        config = ViTConfig(position=position, **shape)
        built = sum(p.numel() for p in ViT(config).parameters())
        assert count_parameters(config) == built, (position, shape)
        assert estimate(config, batch_size=8).total == estimate(config, batch_size=8, model=ViT(config)).total
        assert estimate(config, batch_size=8, encoding=False).total <= estimate(config, batch_size=8).total
