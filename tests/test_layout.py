"""The package keeps a file to a concept: no module under minivit/ is longer than 400 lines (nanoGPT's
model.py is about 330). A module that grows past it is split by concept into a package whose
`__init__.py` hands the names on, as `minivit/analysis/` does."""

from __future__ import annotations

from pathlib import Path

import minivit

ROOT = Path(minivit.__file__).parent
LIMIT = 400


def lengths() -> dict[str, int]:
    return {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in ROOT.rglob("*.py")}


def test_no_module_is_longer_than_400_lines():
    long = {name: n for name, n in lengths().items() if n > LIMIT}
    assert not long, f"modules over {LIMIT} lines (split them by concept): {long}"
