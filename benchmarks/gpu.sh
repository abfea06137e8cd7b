#!/usr/bin/env bash
# The checks and the recorded run that need a CUDA GPU, in one go:
#
#     bash benchmarks/gpu.sh [OUTDIR]          # default minivit/experiments/recorded
#
# 1. the GPU tests (tests/test_gpu.py: bf16 and fp16 training, torch.compile, augmentation on the
#    device, torchrun, the ensemble), at most 150 s;
# 2. the capstone on Fashion-MNIST with the CIFAR-10 run's model (setting fashion-gpu), three seeds,
#    written to OUTDIR/capstone_fashion_gpu.json after each seed: a re-run carries on from the seeds
#    already there. Fashion-MNIST must be where minivit finds it (Debian's dataset-fashion-mnist, or
#    torchvision's folder under data/). Where OUTDIR is another folder, the file's provenance names
#    it: say where it was copied ("copied_to") when publishing it.
set -uo pipefail
out=${1:-minivit/experiments/recorded}
python=${PYTHON:-python3}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$python" -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"
# the whole report goes to OUTDIR/gpu_tests.txt (a failure's traceback included); its last lines here
timeout 150 "$python" -m pytest -q -o addopts= -p no:cacheprovider -m gpu tests/test_gpu.py >"$out/gpu_tests.txt" 2>&1
grep -E "^(FAILED|ERROR)|passed|failed" "$out/gpu_tests.txt" | tail -n 12
start=$(date +%s)
"$python" -m minivit.experiments.capstone --setting fashion-gpu --seeds 0 1 2 --device cuda \
    --out "$out/capstone_fashion_gpu.json" >"$out/capstone_gpu.log" 2>"$out/capstone_gpu.err"
status=$?
tail -n 12 "$out/capstone_gpu.log"
[ $status -eq 0 ] || tail -n 20 "$out/capstone_gpu.err"
echo "capstone: exit $status after $(($(date +%s) - start)) s"
exit $status
