#!/usr/bin/env bash
# Every lesson's claims on a machine with a CUDA GPU, the way a learner on Colab's GPU meets them:
#
#     bash benchmarks/gpu_lessons.sh OUTDIR [SEED]      # default seed 100 (no claim was tuned on it)
#
# Each lesson's .py runs top to bottom as a script (MPLBACKEND=Agg, one CPU thread each, all lessons
# at once), with MINIVIT_CLAIMS set, so a claim that misses is recorded and the lesson goes on. The
# lessons keep their models on the CPU there (`minivit.lesson.setup`): this checks that they do, and
# their claims on another CPU and torch build. Writes OUTDIR/gpu_lessons.jsonl (a line per lesson:
# seed, GPU, CPU, torch, seconds, exit status, the last error line, every claim's record) and
# OUTDIR/gpu_lessons_logs.tar.gz (each lesson's output). Lesson 09 is left out: on a GPU it trains
# on CIFAR-10, which it must download. LESSONS="02 05" runs only those. Needs minivit's dependencies
# (ipywidgets, mlxtend) and Debian's Fashion-MNIST files (lesson 08) in /usr/share/datasets/fashion-mnist.
# The run of 2026-11-27 (seed 100, an H200 machine's Xeon, torch 2.11) is benchmarks/gpu_lessons.jsonl.
set -uo pipefail
out=${1:?usage: gpu_lessons.sh OUTDIR [SEED]}
seed=${2:-100}
python=${PYTHON:-python3}
limit=${LESSON_LIMIT:-420}
work=$(mktemp -d)
mkdir -p "$out"
export MPLBACKEND=Agg PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PWD" MINIVIT_SEED=$seed MINIVIT_THREADS=1
for py in lessons/[0-9][0-9]_*.py; do
    name=$(basename "$py" .py)
    [ "${name:0:2}" = 09 ] && continue
    [ -n "${LESSONS:-}" ] && [[ " $LESSONS " != *" ${name:0:2} "* ]] && continue
    (
        start=$(date +%s.%N)
        MINIVIT_CLAIMS="$work/$name.claims" timeout "$limit" "$python" "$py" >"$work/$name.log" 2>&1
        echo "$? $start $(date +%s.%N)" >"$work/$name.rc"
    ) &
done
wait
"$python" - "$work" "$out/gpu_lessons.jsonl" "$seed" <<'EOF'
import json, sys
from pathlib import Path
import torch
work, target, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), None)
with target.open("a") as out:
    for rc in sorted(work.glob("*.rc")):
        name = rc.stem
        code, start, end = rc.read_text().split()
        log = (work / f"{name}.log").read_text(errors="replace").splitlines()
        errors = [line for line in log if "Error" in line or "Traceback" in line]
        claims_file = work / f"{name}.claims"
        claims = [json.loads(l) for l in claims_file.read_text().splitlines()] if claims_file.exists() else []
        row = {"lesson": name[:2], "seed": seed, "threads": 1, "gpu": gpu, "cpu": cpu, "torch": torch.__version__,
               "seconds": round(float(end) - float(start), 1), "exit": int(code),
               "error": errors[-1] if int(code) and errors else None, "claims": claims}
        out.write(json.dumps(row) + "\n")
        missed = [c["name"] for c in claims if not c["passed"]]
        print(f"{name}: exit {code}, {row['seconds']:.0f} s, {len(claims)} claims, missed {missed}"
              + (f"; {row['error']}" if row["error"] else ""))
EOF
tar -czf "$out/gpu_lessons_logs.tar.gz" -C "$work" .
