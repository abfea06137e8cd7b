"""The margin sweep: every lesson run with many seeds and two thread counts, every claim's margin.

Each lesson's claims about trained models go through `minivit.lesson.claim`, which records the
value, the bound and the margin when ``MINIVIT_CLAIMS`` names a file. This script runs each lesson
(its .py, the reviewed source) top to bottom in a fresh kernel with ``MINIVIT_SEED`` and
``MINIVIT_THREADS`` set, seeds 0-19 on one thread (two lessons at a time on two cores) and seeds
20-23 on two threads (a lesson whose runs take under a minute: seeds 0-43 and 44-47, 48 runs), and
writes:

- `benchmarks/claims.jsonl`: one JSON line per lesson x seed x threads, appended as each run ends
  (the hashes of the lesson's source and of its code cells, the machine, torch, seconds, the error if
  the lesson stopped, and every claim's record). A re-run skips what is recorded for the lesson's
  current code, so the sweep can be stopped and resumed; a lesson whose code changed is run again,
  one whose prose or exercise cells alone changed is not (runs recorded before the edit are matched
  to the code they ran through the lesson's git history). The key is the lesson's own code: a change
  in the package that moves a lesson's numbers (a setting's step count, say) is not seen, so make
  the lesson show it (print the changed setting) or its old runs will still count.
- `lessons/CLAIMS.md`: a table per lesson, a row per claim: runs passed, smallest and median margin;
  a claim is flagged when it fails a run, when its smallest margin is under a fifth of its median,
  or when its runs split into two groups (a gap between them wider than the spread within each:
  some runs took another route).
- `minivit/experiments/recorded/claims.json`: per lesson and claim, runs passed of runs made and the
  range of the values; it ships in the package, and a claim that misses on a learner's machine
  quotes it (`minivit.lesson.claim`).

    python benchmarks/claims.py                       # the whole sweep (several hours on 2 cores)
    python benchmarks/claims.py --lessons 05 07       # a few lessons
    python benchmarks/claims.py --table               # only rewrite the table from what is recorded
    python benchmarks/claims.py --records /tmp/check.jsonl --seeds 300 --two-thread-seeds 301
        # a check kept apart: new seeds, recorded in another file, reported against the sweep
        # (failed claims, margins below the sweep's smallest); the course's table is left alone
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
RECORDS = ROOT / "benchmarks" / "claims.jsonl"
TABLE = LESSONS / "CLAIMS.md"
SUMMARY = ROOT / "minivit" / "experiments" / "recorded" / "claims.json"
ONE_THREAD = range(20)  # seeds run on one thread, two lessons at a time
TWO_THREADS = range(20, 24)  # seeds run on two threads, one lesson at a time
QUICK = 60  # a lesson whose runs take less (median seconds) gets twice the runs:
QUICK_ONE_THREAD, QUICK_TWO_THREADS = range(44), range(44, 48)
THIN = 5  # a smallest margin under median / THIN is flagged


def planned(lesson: str, records: list[dict], now: list[dict] = ()) -> tuple[range, range]:
    """The seeds a lesson is swept with: (one thread, two threads); twice as many for a quick one.
    Quick by its two-thread runs (its run time as the README gives it): those of its current code
    (`now`) where there are some, else all of them, else by every run of it."""
    mine = [r for r in records if r["lesson"] == lesson]
    seconds = (
        [r["seconds"] for r in now if r["lesson"] == lesson and r.get("threads") == 2]
        or [r["seconds"] for r in mine if r.get("threads") == 2]
        or [r["seconds"] for r in mine]
    )
    if seconds and statistics.median(seconds) < QUICK:
        return QUICK_ONE_THREAD, QUICK_TWO_THREADS
    return ONE_THREAD, TWO_THREADS


def two_groups(values: list[float]) -> bool:
    """Do `values` split into two groups, the gap between them wider than the spread within each?
    (Runs that took two routes; a margin can be thick and still hide a second route.)"""
    ordered = sorted(values)
    if len(ordered) < 4:
        return False
    gaps = [b - a for a, b in zip(ordered[:-1], ordered[1:], strict=True)]
    cut = max(range(len(gaps)), key=gaps.__getitem__)
    low, high = ordered[: cut + 1], ordered[cut + 1 :]
    scale = abs(statistics.median(ordered)) / THIN  # a gap this small is rounding (0.999 against 1.0)
    return gaps[cut] > max(low[-1] - low[0], high[-1] - high[0], scale)


def source_hash(py: Path) -> str:
    return hashlib.sha256(py.read_bytes()).hexdigest()[:12]


def code_hash(text: str) -> str:
    """The hash of a lesson's code cells: what its claims' values depend on (prose edits keep it).
    Cells tagged ``exercise`` are left out: they come after every claim and hold the learner's
    answers and their checks, so an exercise added or changed keeps the runs recorded."""
    import jupytext

    cells = jupytext.reads(text, fmt="py:percent").cells
    code = "\n\n".join(
        c.source.strip()
        for c in cells
        if c.cell_type == "code" and "exercise" not in c.metadata.get("tags", [])
    )
    return hashlib.sha256(code.encode()).hexdigest()[:12]


def code_of_versions(py: Path) -> dict[str, str]:
    """Source hash -> code hash for every committed version of a lesson and the one on disk, so that
    runs recorded before a prose edit still count for the code they ran."""
    versions = {hashlib.sha256(py.read_bytes()).hexdigest()[:12]: code_hash(py.read_text())}
    rel = py.relative_to(ROOT).as_posix()
    try:
        commits = subprocess.run(
            ["git", "log", "--format=%H", "--", rel], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return versions  # not a git checkout: only the records with a code hash count
    for commit in commits:
        text = subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=ROOT, capture_output=True).stdout
        if text:
            versions.setdefault(hashlib.sha256(text).hexdigest()[:12], code_hash(text.decode()))
    return versions


def ran_current_code(record: dict, py: Path, versions: dict[str, str]) -> bool:
    """Did `record` run the lesson's current code? Its source's code hash is computed again where the
    source is in the lesson's history (so a record keeps counting when what the hash leaves out
    changes, e.g. exercise cells), else the hash the record stored is used."""
    code = versions.get(record["source"]) or record.get("code")
    current = versions.get(source_hash(py)) or code_hash(py.read_text())  # edited since the sweep began
    return code is not None and code == current


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def read_records(path: Path = RECORDS) -> list[dict]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                print(f"skipping a damaged line of {path.name}", file=sys.stderr)
    return records


def run_lesson(py: Path, seed: int, threads: int, timeout: int) -> dict:
    """Run one lesson top to bottom in a fresh kernel; returns its record."""
    source = py.read_bytes()  # the text that runs is the text that is hashed, even if py is edited meanwhile
    with tempfile.TemporaryDirectory(prefix="claims-") as tmp:
        notebook = Path(tmp) / f"{py.stem}.ipynb"
        claims = Path(tmp) / "claims.jsonl"
        (Path(tmp) / py.name).write_bytes(source)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "jupytext",
                "--quiet",
                "--to",
                "ipynb",
                "-o",
                str(notebook),
                str(Path(tmp) / py.name),
            ],
            check=True,
        )
        env = {
            **os.environ,
            "MINIVIT_SEED": str(seed),
            "MINIVIT_THREADS": str(threads),
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            "MINIVIT_CLAIMS": str(claims),
            "MINIVIT_STRICT": "1",
            "MPLBACKEND": "Agg",
        }
        for _attempt in range(2):  # a kernel that dies before it starts (the machine, not the lesson): again
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
                 f"--ExecutePreprocessor.timeout={timeout}", "--ExecutePreprocessor.kernel_name=python3",
                 str(notebook)],
                env=env, cwd=py.parent, capture_output=True, text=True,
            )  # fmt: skip
            seconds = time.perf_counter() - start
            if done.returncode == 0 or "Kernel died before replying to kernel_info" not in done.stderr:
                break
            claims.unlink(missing_ok=True)
        error = None
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
            errors = [ln for ln in lines if "Error" in ln or "Exception" in ln]
            if errors:  # the first error raised and the last one reported (a subprocess's, say)
                error = " … ".join(dict.fromkeys([errors[0], errors[-1]]))[:500]
            else:
                error = (lines or [f"exit status {done.returncode}"])[-1][:500]
        found = [json.loads(ln) for ln in claims.read_text().splitlines()] if claims.exists() else []
    import torch  # only for its version: the kernel ran the same interpreter

    return {
        "lesson": py.stem,
        "source": hashlib.sha256(source).hexdigest()[:12],
        "code": code_hash(source.decode()),
        "seed": seed,
        "threads": threads,
        "ok": error is None,
        "error": error,
        "seconds": round(seconds, 1),
        "claims": found,
        "torch": torch.__version__,
        "cpu": cpu_name(),
        "date": datetime.date.today().isoformat(),
    }


def lessons_named(prefixes: list[str] | None) -> list[Path]:
    every = sorted(LESSONS.glob("[0-9][0-9]_*.py"))
    if not prefixes:
        return every
    chosen = [py for py in every if any(py.stem.startswith(p) for p in prefixes)]
    unknown = [p for p in prefixes if not any(py.stem.startswith(p) for py in every)]
    if unknown:
        sys.exit(f"no lesson starts with {', '.join(unknown)}; lessons: {', '.join(p.stem for p in every)}")
    return chosen


def sweep(lessons: list[Path], jobs: int, timeout: int, one, two, records: Path = RECORDS) -> None:
    versions = {py.stem: code_of_versions(py) for py in lessons}
    recorded = read_records(records)
    now = [
        r
        for r in recorded
        if r["lesson"] in versions
        and ran_current_code(r, LESSONS / f"{r['lesson']}.py", versions[r["lesson"]])
    ]
    done = {(r["lesson"], r["seed"], r["threads"]) for r in now}
    plans = {py.stem: planned(py.stem, recorded, now) for py in lessons}
    todo = []  # seed by seed, the lessons side by side (one thread first, then two)
    for threads, asked in ((1, one), (2, two)):
        index = threads - 1
        chosen = {py.stem: set(asked if asked is not None else plans[py.stem][index]) for py in lessons}
        for seed in sorted(set().union(*chosen.values())):
            todo += [
                (py, seed, threads)
                for py in lessons
                if seed in chosen[py.stem] and (py.stem, seed, threads) not in done
            ]
    print(f"{len(todo)} runs to do ({len(done)} recorded)", flush=True)

    def one_run(item):
        py, seed, threads = item
        record = run_lesson(py, seed, threads, timeout)
        with records.open("a") as f:  # one line at a time: an interrupted sweep keeps what ended
            f.write(json.dumps(record) + "\n")
        failed = [c["name"] for c in record["claims"] if not c["passed"]]
        state = "ok" if record["ok"] and not failed else f"FAILED {failed or record['error']}"
        print(f"{py.stem} seed {seed} threads {threads}: {record['seconds']:.0f} s, {state}", flush=True)

    ones = [t for t in todo if t[2] == 1]
    twos = [t for t in todo if t[2] == 2]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one_run, ones))
    for item in twos:  # two threads each: one lesson at a time
        one_run(item)


def current(records: list[dict]) -> dict[str, list[dict]]:
    """The records of each lesson's current source, by lesson."""
    by_lesson: dict[str, list[dict]] = {}
    for py in sorted(LESSONS.glob("[0-9][0-9]_*.py")):
        versions = code_of_versions(py)
        runs = [r for r in records if r["lesson"] == py.stem and ran_current_code(r, py, versions)]
        latest = {(r["seed"], r["threads"]): r for r in runs}  # a run repeated after a prose edit counts once
        if latest:
            by_lesson[py.stem] = sorted(latest.values(), key=lambda r: (r["threads"], r["seed"]))
    return by_lesson


def fmt(x: float) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    return f"{x:.3g}" if abs(x) >= 1e-3 else f"{x:.1e}"


def table(records: list[dict]) -> str:
    lines = [
        "# Claims and their margins",
        "",
        "Every claim a lesson makes about a trained model (or about numbers that change with the seed)",
        "goes through `lesson.claim(name, value, op, bound)`. The margin sweep runs every lesson top to",
        "bottom with seeds 0-19 on one thread and seeds 20-23 on two threads (a lesson that runs in under",
        "a minute: seeds 0-43 and 44-47) and records each claim's margin: how far its value lies from its",
        "bound on the passing side (negative: the claim failed). Runs recorded earlier with other seeds",
        "(10 and 11 on two threads) count too.",
        "",
        "    python benchmarks/claims.py    # resumable; --lessons 05 07 for a few; --table to redraw",
        "",
        f"A claim is flagged (⚠) when it fails a run, when its smallest margin is under a {THIN}th of",
        "its median margin (a claim that only just holds on some machine), or when its runs split into",
        "two groups, the gap between them wider than the spread within each (⚠ 2: some runs took",
        "another route). Runs are of each lesson's current source; the machines and torch builds they",
        "ran on are listed per lesson.",
        "",
        "On a learner's machine a claim that misses does not stop the lesson: it prints a warning block",
        "with this run's value, the bound and what this sweep saw (runs passed of runs made, the range),",
        "and the lesson goes on. `make test` and this sweep set `MINIVIT_STRICT=1`: there it fails.",
        "",
    ]
    by_lesson = current(records)
    every = [py.stem for py in sorted(LESSONS.glob("[0-9][0-9]_*.py"))]
    wanted = {name: sum(map(len, planned(name, records, by_lesson.get(name, [])))) for name in every}
    short = [
        f"{name} ({len(by_lesson.get(name, []))} of {wanted[name]})"
        for name in every
        if len(by_lesson.get(name, [])) < wanted[name]
    ]
    if short:
        lines += [f"Not yet run as many times as planned with their current code: {', '.join(short)}.", ""]
    for lesson, runs in by_lesson.items():
        machines = sorted({f"{r['cpu']}, torch {r['torch']}" for r in runs})
        stopped = [r for r in runs if not r["ok"]]
        seconds = {t: statistics.median(r["seconds"] for r in runs if r["threads"] == t) for t in (1, 2)
                   if any(r["threads"] == t for r in runs)}  # fmt: skip
        lines += [f"## {lesson}", ""]
        seeds = ", ".join(str(r["seed"]) + ("" if r["threads"] == 1 else "×2") for r in runs)
        lines.append(
            f"{len(runs)} runs (seeds {seeds}; ×2: two threads); median time "
            + ", ".join(f"{s:.0f} s on {t} thread{'s' if t > 1 else ''}" for t, s in seconds.items())
            + f"; {'; '.join(machines)}."
        )
        for r in stopped:
            lines.append(f"- ⚠ seed {r['seed']}, {r['threads']} threads: the lesson stopped: `{r['error']}`")
        lines += [
            "",
            "| claim | op bound | runs passed | smallest margin | median margin | |",
            "|---|---|---|---|---|---|",
        ]
        names: list[str] = []
        for r in runs:
            for c in r["claims"]:
                if c["name"] not in names:
                    names.append(c["name"])
        for name in names:
            per_run = [[c for c in r["claims"] if c["name"] == name] for r in runs]
            margins = [c["margin"] for cs in per_run for c in cs]
            passed = sum(bool(cs) and all(c["passed"] for c in cs) for cs in per_run)
            first = next(c for cs in per_run for c in cs)
            smallest, median = min(margins), statistics.median(margins)
            thin = passed < len(runs) or smallest < median / THIN
            flag = "⚠ 2" if two_groups(margins) else "⚠" if thin else ""
            lines.append(
                f"| {name} | {first['op']} {first['bound']:g} | {passed}/{len(runs)} | {fmt(smallest)} "
                f"| {fmt(median)} | {flag} |"
            )
        lines.append("")
    return "\n".join(lines)


def held_out(check: dict[str, list[dict]], swept: dict[str, list[dict]]) -> str:
    """Runs kept apart from the sweep (`--records` another file, seeds the bounds were not set on)
    against the sweep's: per lesson, its runs and times, every lesson that stopped, every claim that
    failed and every one whose margin is below the sweep's smallest (outside what the sweep saw)."""
    lines = []
    for lesson, runs in check.items():
        smallest = {}
        for r in swept.get(lesson, []):
            for c in r["claims"]:
                smallest[c["name"]] = min(smallest.get(c["name"], math.inf), c["margin"])
        times = ", ".join(f"seed {r['seed']} on {r['threads']}: {r['seconds']:.0f} s" for r in runs)
        lines.append(f"{lesson}: {len(runs)} runs ({times})")
        for r in runs:
            if not r["ok"]:
                lines.append(f"  seed {r['seed']}, {r['threads']} threads: STOPPED `{r['error']}`")
            for c in r["claims"]:
                if not c["passed"]:
                    lines.append(f"  seed {r['seed']}: FAILED {c['name']!r}: margin {fmt(c['margin'])}")
                elif c["margin"] < smallest.get(c["name"], -math.inf):
                    lines.append(
                        f"  seed {r['seed']}: {c['name']!r}: margin {fmt(c['margin'])}, "
                        f"below the sweep's smallest {fmt(smallest[c['name']])}"
                    )
    return "\n".join(lines)


def summary(records: list[dict]) -> dict:
    """Per lesson and claim: op, bound, runs passed of runs made and the range of the values (the
    worst value of each run), as `minivit.lesson.claim` quotes them to a learner whose run misses."""
    lessons: dict[str, dict] = {}
    for lesson, runs in current(records).items():
        claims: dict[str, dict] = {}
        for name in dict.fromkeys(c["name"] for r in runs for c in r["claims"]):
            per_run = [[c for c in r["claims"] if c["name"] == name] for r in runs]
            made = [cs for cs in per_run if cs]
            values = [c["value"] for cs in made for c in cs if math.isfinite(c["value"])]
            claims[name] = {
                "op": made[0][0]["op"],
                "bound": made[0][0]["bound"],
                "passed": sum(all(c["passed"] for c in cs) for cs in made),
                "runs": len(made),
                "low": min(values, default=math.nan),
                "high": max(values, default=math.nan),
            }
        lessons[lesson] = claims
    return {
        "provenance": {
            "command": "python benchmarks/claims.py --table",
            "what": "the margin sweep's runs of each lesson's current code (benchmarks/claims.jsonl)",
        },
        "lessons": lessons,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lessons", nargs="*", help="lesson numbers or name prefixes (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="one-thread runs at a time (default 2)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds a cell may run (default 1800)")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="*",
        help="only these one-thread seeds (default 0-19; 0-43 for a quick lesson)",
    )
    parser.add_argument(
        "--two-thread-seeds", type=int, nargs="*", help="default 20-23 (44-47 for a quick lesson)"
    )
    parser.add_argument("--table", action="store_true", help="only rewrite the table from the records")
    parser.add_argument(
        "--records",
        type=Path,
        default=RECORDS,
        help="the JSON-lines file of runs; another than benchmarks/claims.jsonl is a check kept apart: "
        "reported against the sweep, the course's table left alone",
    )
    args = parser.parse_args()
    if args.jobs < 1:
        sys.exit(f"--jobs {args.jobs}: use 1 or more")
    if not args.table:
        sweep(lessons_named(args.lessons), args.jobs, args.timeout, args.seeds, args.two_thread_seeds,
              args.records)  # fmt: skip
    records = read_records(args.records)
    if args.records.resolve() != RECORDS.resolve():  # a check kept apart: the course's table stays
        print(held_out(current(records), current(read_records(RECORDS))))
        return
    TABLE.write_text(table(records))
    SUMMARY.write_text(json.dumps(summary(records), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {TABLE.relative_to(ROOT)} and {SUMMARY.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
