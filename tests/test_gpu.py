"""The GPU path, on a GPU: `pytest -m gpu` (every test here is skipped where CUDA is missing).

bf16 and fp16 training (with loss scaling), torch.compile (plain and CUDA graphs), augmentation on
the device, a step that never waits for the device, torchrun (one process; two over NCCL where there
are two GPUs), and the ensemble.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from minivit import ViT, ViTConfig
from minivit.augment import Augment
from minivit.ensemble import fit_ensemble
from minivit.plan import plan_for
from minivit.train import _Run, check_fit_options, fit, seed_everything

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]


def data(n=512, seed=0, device="cuda"):
    from torch.utils.data import TensorDataset

    g = torch.Generator().manual_seed(seed)
    y = torch.randint(3, (n,), generator=g)
    x = torch.rand(n, 3, 16, 16, generator=g) * 0.5
    x[torch.arange(n), y] += 0.5
    return TensorDataset(x.to(device), y.to(device))


def model(seed=0, **kw):
    seed_everything(seed)
    return ViT(ViTConfig(image_size=16, patch_size=4, dim=32, heads=2, depth=2, num_classes=3, **kw))


def learns(history) -> bool:
    first, last = history.loss[:10], history.loss[-10:]
    return sum(last) / len(last) < 0.8 * sum(first) / len(first)


@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp32"])
def test_training_learns_in_each_precision(precision):
    m = model()
    h = fit(m, data(), steps=120, lr=3e-3, precision=precision, device="cuda", progress=False)
    assert learns(h) and all(torch.isfinite(p).all() for p in m.parameters())
    assert next(m.parameters()).device.type == "cuda"


def test_fp16_scales_the_loss_and_bf16_does_not():
    for precision, scaled in (("fp16", True), ("bf16", False)):
        settings = check_fit_options(steps=5, batch_size=32, lr=1e-3)
        m, d = model(), data()
        run = _Run(m, d, plan_for(m, d, settings, device="cuda", precision=precision))
        assert run.step.scaler.is_enabled() is scaled
        run.train(None, 1, 1, 1, None, False, None, 5)
        if scaled:
            assert run.step.scaler.get_scale() > 1  # the loss was scaled up and the steps went through


@pytest.mark.parametrize("mode", [True, "reduce-overhead"])
def test_a_compiled_model_trains_like_the_eager_one(mode):
    kw = dict(steps=60, lr=3e-3, precision="fp32", device="cuda", progress=False)
    eager = fit(model(), data(), **kw)
    compiled = fit(model(), data(), compile=mode, **kw)
    assert learns(compiled)
    torch.testing.assert_close(compiled.loss[:5], eager.loss[:5], atol=1e-3, rtol=1e-3)


def test_augmentation_runs_on_the_device():
    x, y = data(64).tensors
    g = torch.Generator(device="cuda").manual_seed(0)
    out, target = Augment.recipe("deit")(x, y, 3, g)
    assert out.device.type == target.device.type == "cuda" and out.shape == x.shape
    h = fit(model(), data(), steps=40, augment=Augment.recipe("deit"), device="cuda", progress=False)
    assert len(h.loss) == 40


def test_a_step_never_waits_for_the_device():
    settings = check_fit_options(steps=20, batch_size=32, lr=1e-3)
    m, d = model(), data()
    run = _Run(m, d, plan_for(m, d, settings, device="cuda", precision="bf16"))
    run.meter.add(0, *run.step(0, *run.batch(0)))  # first step: allocations, lazy init
    torch.cuda.set_sync_debug_mode("error")
    try:
        for step in range(1, 10):
            run.meter.add(step, *run.step(step, *run.batch(step)))
    finally:
        torch.cuda.set_sync_debug_mode("default")
    run.meter.flush()
    assert len(run.history.loss) == 10


@pytest.mark.parametrize("processes", [1, 2])
def test_torchrun_trains_on_the_gpu(tmp_path, processes):
    """One process under torchrun joins no process group (nothing to share) and trains as a plain
    run; two (on a machine with two GPUs) join one over NCCL, a GPU each."""
    if torch.cuda.device_count() < processes:
        pytest.skip(f"needs {processes} GPUs")
    script = tmp_path / "run.py"
    script.write_text(
        "import torch\n"
        "from minivit.train import init_distributed, fit\n"
        "from tests.test_gpu import data, model\n"
        "rank, world, device = init_distributed()\n"
        "grouped = torch.distributed.is_initialized()\n"
        "backend = torch.distributed.get_backend() if grouped else None\n"
        "m = model()\n"
        "h = fit(m, data(), steps=20, device=device, progress=False)\n"
        "assert len(h.loss) == 20 and next(m.parameters()).device.type == 'cuda'\n"
        "if grouped:\n"
        "    torch.distributed.destroy_process_group()\n"
        "print('trained', world, grouped, backend)\n"
    )
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node"]
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run(
        [*torchrun, str(processes), str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    expected = "trained 1 False None" if processes == 1 else "trained 2 True nccl"
    assert expected in done.stdout, done.stdout[-2000:]


def test_the_ensemble_matches_single_runs_on_the_gpu(monkeypatch):
    seeds = [0, 1, 2]
    kw = dict(steps=30, batch_size=32, lr=3e-3, precision="fp32", device="cuda", progress=False)
    # full float32 in the matrix products and in cuDNN's convolutions (the patch embedding), which
    # by default may use TF32 (about 1e-3 relative): the ensemble's batched kernels and a single
    # run's are other kernels, and only in full precision do they agree to 1e-4 after 30 steps
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    ensemble = [model(s) for s in seeds]
    fit_ensemble(ensemble, data(), seeds=seeds, **kw)
    for seed, member in zip(seeds, ensemble, strict=True):
        single = model(seed)
        fit(single, data(), seed=seed, **kw)
        for p, q in zip(member.parameters(), single.parameters(), strict=True):
            torch.testing.assert_close(p, q, atol=1e-4, rtol=1e-4)
    kw |= dict(steps=120, precision="bf16")
    trained = fit_ensemble([model(s) for s in range(8)], data(), seeds=range(8), **kw)
    assert all(learns(h) for h in trained)


def test_analyses_take_a_gpu_model_and_cpu_inputs():
    """A model trained on the GPU, images and vectors made on the CPU: the analyses move the inputs to
    the model, and their numbers match the same model's on the CPU."""
    from minivit import analysis
    from minivit.widgets.models import shuffle_view

    cpu = model(position="learned")
    gpu = model(position="learned").cuda()
    gpu.load_state_dict(cpu.state_dict())
    images = torch.rand(2, 3, 16, 16)
    on_gpu, on_cpu = analysis.block_tokens(gpu, images), analysis.block_tokens(cpu, images)
    for name in ("inputs", "outputs"):
        for a, b in zip(on_gpu[name], on_cpu[name], strict=True):
            torch.testing.assert_close(a.cpu(), b, atol=1e-3, rtol=1e-3)
    content = torch.randn(3, 32)
    scores = analysis.same_content_scores(gpu, content).cpu()
    torch.testing.assert_close(scores, analysis.same_content_scores(cpu, content), atol=1e-3, rtol=1e-3)
    table = torch.randn(16, 32, device="cuda")
    assert abs(analysis.structure_score(table, (4, 4)) - analysis.structure_score(table.cpu(), (4, 4))) < 1e-4
    shuffle_view({"gpu": gpu}, images[0], seed=0, patch_size=4)


def test_a_lesson_keeps_its_models_on_the_cpu_where_there_is_a_gpu():
    from minivit import devices, lesson

    assert devices.pick_device().type == "cuda"
    lesson.setup()
    assert devices.pick_device() == torch.device("cpu")
    lesson.setup(device=None)
    assert devices.pick_device().type == "cuda"
