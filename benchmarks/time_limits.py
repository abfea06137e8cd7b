"""Every time limit in the unit tests against the time its test takes, idle and on a busy machine.

    PYTEST_ADDOPTS="--durations=0" make test > idle.log                                  # an idle machine
    PYTEST_ADDOPTS="--durations=0" ../.venv/bin/python busy.py --cores 2 -- make -C .. test > busy.log
    ../.venv/bin/python time_limits.py idle.log busy.log

Finds the limits in tests/*.py (a `timeout=` in seconds, a `time.time() + N` deadline) and the
function each sits in. A limit in a test is compared with that test's time; one in a helper with the
longest test of its module (which may not call it: an upper bound). Prints, per limit, the times
in each log and the limit over the first log's time; a ratio under 3 is flagged (exit 1). The
browser tests' waits (Playwright's, in ms) each bound one event, not a test, and are left out: the
busy run is their check.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
BROWSER = {"test_browser.py", "test_site.py"}  # Playwright waits: one event each, in ms
DURATION = re.compile(r"^\s*([\d.]+)s (?:call|setup|teardown)\s+(\S+?)(?:\[.*\])?\s*$")
SLACK = 3  # a limit must be at least this many times the idle time


def limits() -> list[tuple[str, str, float]]:
    """(module, enclosing function, seconds) for every literal time limit in the unit tests."""
    found = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name in BROWSER:
            continue
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for node in ast.walk(fn):
                seconds = None
                if isinstance(node, ast.keyword) and node.arg == "timeout":
                    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int | float):
                        seconds = float(node.value.value)
                elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                    call, limit = node.left, node.right
                    if (
                        isinstance(call, ast.Call)
                        and ast.unparse(call.func) in ("time.time", "time.monotonic")
                        and isinstance(limit, ast.Constant)
                    ):
                        seconds = float(limit.value)
                if seconds is not None:
                    found.append((path.stem, fn.name, seconds))
        for node in ast.walk(tree):  # limits at module level (a script a test runs)
            if (
                isinstance(node, ast.keyword)
                and node.arg == "timeout"
                and isinstance(node.value, ast.Constant)
            ):
                where = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and node in ast.walk(f)]
                if not where:
                    found.append((path.stem, "<module>", float(node.value.value)))
    return found


def durations(log: Path) -> dict[str, float]:
    """{module::test: the longest of its phases and parametrizations} from pytest's --durations."""
    out: dict[str, float] = {}
    for line in log.read_text(errors="replace").splitlines():
        m = DURATION.match(line)
        if m and m.group(2).startswith("tests/"):
            module, _, test = m.group(2).removeprefix("tests/").partition(".py::")
            key = f"{module}::{test}"
            out[key] = max(out.get(key, 0.0), float(m.group(1)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "logs", nargs="+", type=Path, help="make test logs with --durations=0; the first idle"
    )
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.logs if not p.is_file()]
    if missing:
        parser.error(
            f"no such log: {', '.join(missing)} (write one with PYTEST_ADDOPTS=--durations=0 make test > LOG)"
        )
    runs = [durations(p) for p in args.logs]
    if not runs[0]:
        parser.error(
            f"{args.logs[0]} holds no test durations: run make test with PYTEST_ADDOPTS=--durations=0"
        )
    header = ["limit in", "limit (s)"] + [p.name for p in args.logs] + ["limit / first"]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    short = 0
    for module, fn, seconds in sorted(set(limits())):
        if fn.startswith("test_"):
            times = [run.get(f"{module}::{fn}") for run in runs]
        else:  # a helper or a script: the module's longest test bounds the part it times
            times = [
                max((t for k, t in run.items() if k.startswith(f"{module}::")), default=None) for run in runs
            ]
        if times[0] is None:
            continue  # not run here (a GPU test, a skipped one)
        ratio = seconds / max(times[0], 0.01)
        short += ratio < SLACK
        cells = [f"{module}::{fn}", f"{seconds:g}"] + [f"{t:.1f}" if t is not None else "-" for t in times]
        print("| " + " | ".join(cells + [f"{ratio:.1f}" + (" **under 3**" if ratio < SLACK else "")]) + " |")
    print(f"\n{short} limit(s) under {SLACK}x the first log's time")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
