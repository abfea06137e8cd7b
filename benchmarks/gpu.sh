#!/usr/bin/env bash
# The checks and the recorded run that need a CUDA GPU, in one go:
#
#     bash benchmarks/gpu.sh [LOGDIR]          # logs in LOGDIR, default runs/gpu
#
# 1. the GPU tests (tests/test_gpu.py: bf16 and fp16 training, torch.compile, augmentation on the
#    device, torchrun, the ensemble), at most 150 s; the whole report in LOGDIR/gpu_tests.txt;
# 2. lesson 09's GPU comparison: the capstone on Fashion-MNIST with the CIFAR-10 run's model
#    (setting fashion-gpu), three seeds, written to minivit/experiments/recorded/
#    capstone_fashion_gpu.json after each seed; a re-run carries on from the seeds already there.
#    Fashion-MNIST must be where minivit finds it (Debian's dataset-fashion-mnist, or torchvision's
#    folder under data/). On a machine whose files do not come back by themselves, copy that file
#    out after each call (e.g. `timeout 540 bash benchmarks/gpu.sh "$OUT"; cp minivit/experiments/
#    recorded/capstone_fashion_gpu.json "$OUT"/`) and back before the next.
set -uo pipefail
logs=${1:-runs/gpu}
python=${PYTHON:-python3}
recorded=minivit/experiments/recorded/capstone_fashion_gpu.json
mkdir -p "$logs"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$python" -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"
timeout 150 "$python" -m pytest -q -o addopts= -p no:cacheprovider -m gpu tests/test_gpu.py >"$logs/gpu_tests.txt" 2>&1
grep -E "^(FAILED|ERROR)|passed|failed" "$logs/gpu_tests.txt" | tail -n 12
start=$(date +%s)
"$python" -m minivit.experiments.capstone --setting fashion-gpu --seeds 0 1 2 --device cuda \
    --out "$recorded" >"$logs/capstone_gpu.log" 2>"$logs/capstone_gpu.err"
status=$?
tail -n 12 "$logs/capstone_gpu.log"
[ $status -eq 0 ] || tail -n 20 "$logs/capstone_gpu.err"
echo "capstone: exit $status after $(($(date +%s) - start)) s"
exit $status
