"""What the command-line fault tests share: a small `minivit train` run, and the check that a refusal
is one line with exit status 2."""

import os
import re

from minivit.cli import main

BASE = ["train", "--task", "relation", "--train-size", "64", "--test-size", "16", "--quiet", "--threads", "1"]
SMALL = [*BASE, "--steps", "2", "--dim", "16", "--batch-size", "16"]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def run_cli(argv, capsys):
    """`minivit` run in this process: (exit status, what it wrote to stderr)."""
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    return code, capsys.readouterr().err.strip()


def one_line(code, err, says):
    """A refusal: exit status 2, one line, no traceback, and `says` (a string or a pattern) in it."""
    assert code == 2, f"exit {code}: {err}"
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert says in err or re.search(says, err), f"{says!r} not in {err!r}"
