"""Before a benchmark runs anything: can it write where it records? One line if not."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def check_writable(parser: argparse.ArgumentParser, path: Path, what: str) -> None:
    """Exit through `parser` (one line, status 2) unless `path` can be appended to or created:
    before the first run, so that no run's result is lost at its end."""
    path = Path(path)
    problem = None
    if path.is_dir():
        problem = "is a folder, not a file"
    elif not path.parent.is_dir():
        problem = f"is in {path.parent}, which is no folder here"
    elif path.exists() and not os.access(path, os.W_OK):
        problem = "cannot be written (permissions or a read-only disk)"
    elif not path.exists() and not os.access(path.parent, os.W_OK):
        problem = f"cannot be created: {path.parent} is not writable"
    if problem:
        parser.error(f"{what} {path} {problem}; name another file, or fix it, before the runs start")
