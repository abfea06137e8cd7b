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
import ast
import datetime
import functools
import hashlib
import json
import math
import os
import platform
import re
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
NULLS = ROOT / "benchmarks" / "nulls.jsonl"  # the null runs (MINIVIT_NULL), one JSON line each
NULL_SEEDS = {"labels": range(1000, 1008), "noise": range(2000, 2008)}  # one thread, none of the sweep's


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


def _is_claim(node: ast.AST) -> bool:
    """Is `node` a call of ``lesson.claim(...)``?"""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "claim"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "lesson"
    )


def _literal_number(node: ast.AST) -> float | None:
    """The number a literal (``0.3``, ``-1``) holds; None for anything computed."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _literal_number(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    return None


def _code_cells(text: str) -> list[str]:
    """A lesson's code cells, those tagged ``exercise`` left out (they come after every claim and hold
    the learner's answers and their checks)."""
    import jupytext

    cells = jupytext.reads(text, fmt="py:percent").cells
    return [
        c.source.strip()
        for c in cells
        if c.cell_type == "code" and "exercise" not in c.metadata.get("tags", [])
    ]


def _without_bounds(cell: str) -> str:
    """A code cell as its claims' values see it: every ``lesson.claim`` with its literal bound and its
    ``about`` left out (a restated bound or kind judges the recorded values again, it does not change
    them), comments and layout dropped; the cell's text where it does not parse."""
    try:
        tree = ast.parse(cell)
    except SyntaxError:
        return cell
    for node in ast.walk(tree):
        if _is_claim(node):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                node.args[0] = ast.Constant(value="")  # a renamed claim: matched by its place (claim_names)
            if len(node.args) >= 4 and _literal_number(node.args[3]) is not None:
                node.args[3] = ast.Constant(value=0)
            node.keywords = [k for k in node.keywords if k.arg != "about"]
    return ast.unparse(tree)


def claim_names(text: str) -> list[str]:
    """The literal names of a lesson's ``lesson.claim`` calls in the order they stand in its code: a
    claim renamed in a later version of the code is the one at the same place."""
    names = []
    for cell in _code_cells(text):
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            continue
        calls = sorted((n for n in ast.walk(tree) if _is_claim(n)), key=lambda n: (n.lineno, n.col_offset))
        names += [
            n.args[0].value
            for n in calls
            if n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
        ]
    return names


def code_hash(text: str) -> str:
    """The hash of a lesson's code cells: what its claims' values depend on. Prose, comments,
    exercise cells, a claim's literal name and bound and its ``about`` are left out, so runs recorded
    before such an edit keep counting, under the claim's current name and judged against the bound
    the lesson states now."""
    code = "\n\n".join(_without_bounds(cell) for cell in _code_cells(text))
    return hashlib.sha256(code.encode()).hexdigest()[:12]


def claim_specs(text: str) -> dict[str, dict]:
    """Each ``lesson.claim`` of a lesson's source with a literal name: {name: {"op", "bound" (None
    where the bound is computed), "about"}}, as the lesson states them now."""
    specs = {}
    for cell in _code_cells(text):
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (_is_claim(node) and len(node.args) >= 4):
                continue
            name, op = node.args[0], node.args[2]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                continue
            about = next((k.value for k in node.keywords if k.arg == "about"), None)
            specs[name.value] = {
                "op": op.value if isinstance(op, ast.Constant) else None,
                "bound": _literal_number(node.args[3]),
                "about": about.value if isinstance(about, ast.Constant) else "task",
            }
    return specs


def judged(c: dict, spec: dict | None) -> dict:
    """Claim record `c` judged against the bound its lesson states now (`spec`), where that bound is
    a literal and the op is unchanged; else as recorded."""
    if not spec or spec["bound"] is None or spec["op"] != c["op"] or spec["bound"] == c["bound"]:
        return c
    bound = spec["bound"]
    value = c["value"]
    finite = math.isfinite(value)
    gap = (value - bound if c["op"] in (">", ">=") else bound - value) if finite else -math.inf
    ok = (
        finite
        and {">": value > bound, ">=": value >= bound, "<": value < bound, "<=": value <= bound}[c["op"]]
    )
    return {**c, "bound": bound, "margin": gap, "passed": ok}


def code_of_versions(py: Path) -> dict[str, str]:
    """Source hash -> code hash for every committed version of a lesson and the one on disk, so that
    runs recorded before a prose edit still count for the code they ran (worked out once per state
    of the file)."""
    return _versions(py, py.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _versions(py: Path, _mtime: int) -> dict[str, str]:
    versions = {hashlib.sha256(py.read_bytes()).hexdigest()[:12]: code_hash(py.read_text())}
    _names[source_hash(py)] = claim_names(py.read_text())
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
            source = hashlib.sha256(text).hexdigest()[:12]
            if source not in versions:
                versions[source] = code_hash(text.decode())
                _names[source] = claim_names(text.decode())
    return versions


_names: dict[str, list[str]] = {}  # source hash -> its claims' names in order (filled by _versions)


def renamed(record: dict, py: Path) -> dict:
    """`record` with each claim under the name the lesson's current code gives the claim at its place
    (a record of the current code keeps its names)."""
    old, now = _names.get(record["source"]), claim_names(py.read_text())
    if not old or len(old) != len(now) or old == now:
        return record
    to_now = dict(zip(old, now, strict=True))
    return {**record, "claims": [{**c, "name": to_now.get(c["name"], c["name"])} for c in record["claims"]]}


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


RECORD_ASSERTS = """\
# A null run (benchmarks/claims.py --null): every plain `assert` of the lesson is recorded, not raised,
# so the claims after one that fails without training are still recorded, and the assert is seen to fail.
import ast as _ast, json as _json, os as _os


def __null_assert__(test, source):
    try:
        passed = bool(test)
    except Exception as err:  # a test that cannot be read as one truth value
        passed = f"{type(err).__name__}: {err}"
    with open(_os.environ["MINIVIT_CLAIMS"], "a") as f:
        f.write(_json.dumps({"assert": source, "passed": passed}) + "\\n")


class _RecordAsserts(_ast.NodeTransformer):
    def visit_Assert(self, node):
        call = _ast.Call(_ast.Name("__null_assert__", _ast.Load()),
                         [node.test, _ast.Constant(_ast.unparse(node.test)[:300])], [])
        return _ast.fix_missing_locations(_ast.copy_location(_ast.Expr(call), node))


get_ipython().ast_transformers.append(_RecordAsserts())
"""


def record_asserts(notebook: Path) -> None:
    """Put a first cell into a null run's notebook that records each plain ``assert`` (its test and
    whether it held) in the claims file instead of raising it."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(RECORD_ASSERTS))
    nbformat.write(nb, notebook)


def _ends(message: str, head: int = 200, tail: int = 800) -> str:
    """A long error message's start and end: a subprocess's error, quoted at the end of the message
    that reports it, is kept."""
    return message if len(message) <= head + tail else f"{message[:head]} … {message[-tail:]}"


def cell_errors(notebook: Path) -> list[dict]:
    """The cells of an executed notebook that raised (a null run goes on past them, ``--allow-errors``):
    each cell's number, the line that raised where the traceback names one, and the error."""
    import nbformat

    found = []
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            trace = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(out.get("traceback", [])))
            lines = re.findall(r"^-*> *\d+ (.*)$", trace, flags=re.M)
            found.append({"cell": index, "line": (lines[-1] if lines else "").strip()[:300],
                          "error": _ends(f"{out.get('ename')}: {out.get('evalue', '')}")})  # fmt: skip
    return found


def run_lesson(py: Path, seed: int, threads: int, timeout: int, null: str | None = None) -> dict:
    """Run one lesson top to bottom in a fresh kernel (under `null`, a null run: ``MINIVIT_NULL``);
    returns its record."""
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
        if null:
            record_asserts(notebook)
        env = {
            **os.environ,
            "MINIVIT_SEED": str(seed),
            "MINIVIT_THREADS": str(threads),
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            "MINIVIT_CLAIMS": str(claims),
            "MINIVIT_STRICT": "1",
            "MPLBACKEND": "Agg",
            "MINIVIT_NULL": null or "",
        }
        for _attempt in range(2):  # a kernel that dies before it starts (the machine, not the lesson): again
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
                 f"--ExecutePreprocessor.timeout={timeout}", "--ExecutePreprocessor.kernel_name=python3",
                 *(["--allow-errors"] if null else []), str(notebook)],
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
        lines = [json.loads(ln) for ln in claims.read_text().splitlines()] if claims.exists() else []
        found = [c for c in lines if "name" in c]
        asserts = [a for a in lines if "assert" in a]  # a null run's plain asserts (record_asserts)
        failed_asserts = cell_errors(notebook) if null else []
        if failed_asserts and error is None:
            error = f"{len(failed_asserts)} cell(s) raised; the first: {failed_asserts[0]['error']}"
    import torch  # only for its version: the kernel ran the same interpreter

    return {
        "lesson": py.stem,
        "source": hashlib.sha256(source).hexdigest()[:12],
        "code": code_hash(source.decode()),
        "seed": seed,
        "threads": threads,
        **({"null": null, "cell_errors": failed_asserts, "asserts": asserts} if null else {}),
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


def sweep(
    lessons: list[Path], jobs: int, timeout: int, one, two, records: Path = RECORDS, null: str | None = None
) -> None:
    versions = {py.stem: code_of_versions(py) for py in lessons}
    recorded = read_records(records)
    now = [
        r
        for r in recorded
        if r["lesson"] in versions
        and ran_current_code(r, LESSONS / f"{r['lesson']}.py", versions[r["lesson"]])
    ]
    done = {(r["lesson"], r["seed"], r["threads"]) for r in now if r.get("null") == null}
    plans = {py.stem: planned(py.stem, recorded, now) for py in lessons}
    if null:  # null runs: one thread, seeds none of the sweep's
        plans = {name: (NULL_SEEDS[null], range(0)) for name in plans}
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
        record = run_lesson(py, seed, threads, timeout, null)
        with records.open("a") as f:  # one line at a time: an interrupted sweep keeps what ended
            f.write(json.dumps(record) + "\n")
        failed = [c["name"] for c in record["claims"] if not c["passed"]]
        state = "ok" if record["ok"] and not failed else f"FAILED {failed or record['error']}"
        kind = f" null {null}" if null else ""
        print(
            f"{py.stem} seed {seed} threads {threads}{kind}: {record['seconds']:.0f} s, {state}", flush=True
        )

    ones = [t for t in todo if t[2] == 1]
    twos = [t for t in todo if t[2] == 2]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one_run, ones))
    for item in twos:  # two threads each: one lesson at a time
        one_run(item)


def current(records: list[dict]) -> dict[str, list[dict]]:
    """The records of each lesson's current code, by lesson, each claim judged against the bound the
    lesson states now (`judged`)."""
    by_lesson: dict[str, list[dict]] = {}
    for py in sorted(LESSONS.glob("[0-9][0-9]_*.py")):
        versions = code_of_versions(py)
        specs = claim_specs(py.read_text())
        runs = [
            renamed(r, py) for r in records if r["lesson"] == py.stem and ran_current_code(r, py, versions)
        ]
        # a run repeated after a prose edit counts once
        latest = {(r.get("null"), r["seed"], r["threads"]): r for r in runs}
        if latest:
            by_lesson[py.stem] = [
                {**r, "claims": [judged(c, specs.get(c["name"])) for c in r["claims"]]}
                for r in sorted(latest.values(), key=lambda r: (r["threads"], r["seed"]))
            ]
    return by_lesson


def fmt(x: float) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    return f"{x:.3g}" if abs(x) >= 1e-3 else f"{x:.1e}"


def _per_run(runs: list[dict], name: str) -> list[list[dict]]:
    return [[c for c in r["claims"] if c["name"] == name] for r in runs]


def fixed(values: list[float]) -> bool:
    """The same value in every run (two or more): a claim about recorded or exact numbers, which no
    seed and no null run moves."""
    finite = [v for v in values if math.isfinite(v)]
    return (
        len(finite) >= 2
        and len(finite) == len(values)
        and max(finite) - min(finite) <= 1e-9 * max(1.0, abs(finite[0]))
    )


def null_verdict(name: str, nulls: list[dict]) -> dict:
    """How claim `name` fared on the null runs: per null kind, runs failed of runs made, and the
    null's closest value to passing (its largest margin)."""
    kinds: dict[str, dict] = {}
    for kind in dict.fromkeys(r["null"] for r in nulls):
        made = [cs for cs in _per_run([r for r in nulls if r["null"] == kind], name) if cs]
        if not made:
            continue
        failed = sum(not all(c["passed"] for c in cs) for cs in made)
        closest = max((c for cs in made for c in cs), key=lambda c: c["margin"])
        kinds[kind] = {
            "failed": failed,
            "made": len(made),
            "value": closest["value"],
            "margin": closest["margin"],
        }
    return kinds


def fails_its_null(kinds: dict) -> bool:
    """A claim about the task fails every null run it has, or 95% of 20 or more; and it has some."""
    made = sum(k["made"] for k in kinds.values())
    failed = sum(k["failed"] for k in kinds.values())
    return made > 0 and (failed == made or (made >= 20 and failed >= 0.95 * made))


NULL_WORDS = {
    "labels": "every training's labels shuffled (`MINIVIT_NULL=labels`)",
    "noise": "every gradient replaced by noise of its size (`MINIVIT_NULL=noise`)",
}


def table(records: list[dict], null_records: list[dict] = ()) -> str:
    lines = [
        "# Claims, their margins and their nulls",
        "",
        "Every claim a lesson makes about a trained model (or about numbers that change with the seed)",
        "goes through `lesson.claim(name, value, op, bound)`. The margin sweep runs every lesson top to",
        "bottom with seeds 0-19 on one thread and seeds 20-23 on two threads (a lesson whose runs take",
        "under a minute on two threads: seeds 0-43 and 44-47) and records each claim's margin: how far",
        "its value lies from its bound on the passing side (negative: the claim failed). Runs recorded",
        "earlier with other seeds (10 and 11 on two threads) count too. Each claim is judged against the",
        "bound its lesson states now (a restated bound judges the recorded values again).",
        "",
        "    python benchmarks/claims.py                   # resumable; --lessons 05 07 for a few",
        "    python benchmarks/claims.py --null labels     # the null runs (also --null noise)",
        "    python benchmarks/claims.py --table           # redraw this page from what is recorded",
        "",
        "**The null runs.** A bound placed from runs where the effect exists does not show that the",
        "effect exists. So each lesson also runs with the effect's cause taken away (`minivit.nulls`,",
        "seeds none of the sweep's, one thread, `benchmarks/nulls.jsonl`): every training's labels",
        "shuffled (nothing about the task can be learned), and where a claim is about how far training",
        "moves something, every gradient replaced by noise of its size (the optimizer moves every weight",
        "as far, in no direction the task gives). A claim about the task must fail on every null run",
        "(or on 95% of 20 or more). What each claim is about (the `about` column):",
        "",
        "- *task*: an effect of learning the task; it must fail when the labels are shuffled;",
        "- *training*: what any training does, on shuffled labels too (weights move, attention sharpens);",
        "  the lesson says so, and its null is the untrained model the lesson shows beside it;",
        "- *absence*: that something does not happen (a model stays at chance, a table gains no layout);",
        "  a null passes it too, so it is shown against a control that does learn (named in the lesson's",
        "  claims index);",
        "- *untrained*: about random draws, untrained models or what an operation does to any model;",
        "  training is not its cause;",
        "- *fixed*: the same value in every run (recorded results, exact numbers); no seed and no null",
        "  moves it.",
        "",
        f"A claim is flagged (⚠) when it fails a run, when its smallest margin is under a {THIN}th of",
        "its median margin (a claim that only just holds on some machine), or when its runs split into",
        "two groups, the gap between them wider than the spread within each (⚠ 2: some runs took",
        "another route); a claim about the task is flagged ⚠ null when a null run passes it, and",
        f"⚠ near when its null comes within a {THIN}th of the real runs' median margin of passing. Runs",
        "are of each lesson's current code; the machines and torch builds they ran on are listed per",
        "lesson.",
        "",
        "On a learner's machine a claim that misses does not stop the lesson: it prints a warning block",
        "with this run's value, the bound and what this sweep saw (runs passed of runs made, the range),",
        "and the lesson goes on. `make test` and this sweep set `MINIVIT_STRICT=1`: there it fails.",
        "",
    ]
    by_lesson = current(records)
    nulls_by_lesson = current(list(null_records)) if null_records else {}
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
        specs = claim_specs((LESSONS / f"{lesson}.py").read_text())
        nulls = nulls_by_lesson.get(lesson, [])
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
        names: list[str] = []
        for r in runs:
            for c in r["claims"]:
                if c["name"] not in names:
                    names.append(c["name"])
        rows, abouts = [], []
        for name in names:
            per_run = _per_run(runs, name)
            margins = [c["margin"] for cs in per_run for c in cs]
            passed = sum(bool(cs) and all(c["passed"] for c in cs) for cs in per_run)
            first = next(c for cs in per_run for c in cs)
            smallest, median = min(margins), statistics.median(margins)
            about = "fixed" if fixed([c["value"] for cs in per_run for c in cs]) else (
                specs.get(name, {}).get("about", "task"))  # fmt: skip
            abouts.append(about)
            thin = passed < len(runs) or smallest < median / THIN
            flags = ["⚠ 2" if two_groups(margins) else "⚠" if thin else ""]
            kinds = null_verdict(name, nulls) if about != "fixed" else {}
            failed = "; ".join(f"{k['failed']}/{k['made']} {kind}" for kind, k in kinds.items()) or "—"
            closest = "; ".join(fmt(k["value"]) for k in kinds.values()) or "—"
            if about == "task" and kinds:
                if not fails_its_null(kinds):
                    flags.append("⚠ null")
                elif -max(k["margin"] for k in kinds.values()) < median / THIN:
                    flags.append("⚠ near")
            flag = " ".join(filter(None, flags))
            rows.append(
                f"| {name} | {about} | {first['op']} {first['bound']:g} | {passed}/{len(runs)} "
                f"| {fmt(smallest)} | {fmt(median)} | {failed} | {closest} | {flag} |"
            )
        by_kind = {kind: sorted(r["seed"] for r in nulls if r["null"] == kind) for kind in NULL_WORDS}
        made = [f"{len(seeds_)} with {NULL_WORDS[kind]}, seeds {seeds_[0]}-{seeds_[-1]}"
                for kind, seeds_ in by_kind.items() if seeds_]  # fmt: skip
        if "task" not in abouts:
            lines.append("No claim about what training learns of the task: its claims need no null.")
        elif made:
            lines.append(f"Null runs: {'; '.join(made)}; one thread.")
        else:
            lines.append("No null runs of its current code yet.")
        failing: dict[str, list[int]] = {}  # a plain assert's test -> [null runs it failed, runs made]
        for r in nulls:
            for a in r.get("asserts", []):
                seen = failing.setdefault(a["assert"], [0, 0])
                seen[0] += a["passed"] is not True
                seen[1] += 1
            for e in r.get("cell_errors", []):  # plain asserts are recorded, not raised: an error is real
                raised = e["error"][:160]
                lines.append(f"- null run ({r['null']}, seed {r['seed']}): a cell raised `{raised}`")
            if not r["ok"] and "cell_errors" not in r:
                lines.append(f"- null run ({r['null']}, seed {r['seed']}) stopped: `{r['error']}`")
        failing = {test: seen for test, seen in failing.items() if seen[0]}
        if failing:
            lines.append(
                "Plain asserts that fail on null runs (they hold only where the model learned): "
                + "; ".join(f"`assert {test}` ({k}/{n})" for test, (k, n) in failing.items())
                + "."
            )
        lines += [
            "",
            "| claim | about | op bound | runs passed | smallest margin | median margin | null runs failed "
            "| null's closest | |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
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
            made = [cs for cs in _per_run(runs, name) if cs]
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
    parser.add_argument(
        "--null",
        choices=("labels", "noise"),
        help="null runs (minivit.nulls): every training's labels shuffled, or its gradients replaced by "
        "noise; recorded in benchmarks/nulls.jsonl, seeds 1000-1007 (labels) or 2000-2007 (noise), "
        "one thread",
    )
    args = parser.parse_args()
    if args.null and args.records == RECORDS:
        args.records = NULLS
    if args.jobs < 1:
        sys.exit(f"--jobs {args.jobs}: use 1 or more")
    if not args.table:
        from writable import check_writable

        check_writable(parser, args.records, "--records")
        sweep(lessons_named(args.lessons), args.jobs, args.timeout, args.seeds, args.two_thread_seeds,
              args.records, args.null)  # fmt: skip
    records = read_records(args.records)
    if args.records.resolve() not in (RECORDS.resolve(), NULLS.resolve()):  # a check kept apart
        print(held_out(current(records), current(read_records(RECORDS))))  # the course's table stays
        return
    records = read_records(RECORDS)
    TABLE.write_text(table(records, read_records(NULLS)))
    SUMMARY.write_text(json.dumps(summary(records), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {TABLE.relative_to(ROOT)} and {SUMMARY.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
