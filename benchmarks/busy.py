"""Run a command while other processes keep the machine's cores busy: a noisy, shared CI machine.

    ../.venv/bin/python busy.py --cores 2 -- make -C .. test-browser

Starts `--cores` processes that spin at normal priority (each takes a core when it can), runs the
command, stops them, and prints the command's wall time and exit status; exits with that status.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import subprocess
import sys
import time


def spin() -> None:
    while True:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cores", type=int, default=mp.cpu_count(), help="spinning processes (default: all cores)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given: put it after --, e.g. busy.py --cores 2 -- make -C .. test-browser")
    if args.cores < 1:
        parser.error(f"--cores {args.cores}: give at least 1")
    spinners = [mp.Process(target=spin, daemon=True) for _ in range(args.cores)]
    for p in spinners:
        p.start()
    started = time.perf_counter()
    try:
        status = subprocess.call(command)
    finally:
        for p in spinners:
            p.terminate()
    print(
        f"{' '.join(command)}: exit {status} after {time.perf_counter() - started:.0f} s "
        f"with {args.cores} busy processes beside it",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
