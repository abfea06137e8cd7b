"""The docs' hand-kept lists of encodings, against their one source: the registry and the package's files.

A new encoding is one registry line (docs/adding_an_encoding.md); these fail until the pages that
list encodings say so too, with the line to add.
"""

from __future__ import annotations

import re
from pathlib import Path

from minivit.posenc import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
NUMBERS += " sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four"
WORDS = {word: n for n, word in enumerate(NUMBERS.split())}


def test_the_api_reference_documents_every_encoding_module_and_no_module_that_is_gone():
    api = (ROOT / "docs" / "api.md").read_text()
    documented = set(re.findall(r"automodule:: (minivit[\w.]*)", api))
    posenc = {
        f"minivit.posenc.{p.stem}" for p in (ROOT / "minivit" / "posenc").glob("*.py") if p.stem != "__init__"
    }
    missing = sorted(posenc - documented)
    assert not missing, (
        f"docs/api.md documents no {', '.join(missing)}: add a section "
        f"'### `{missing[0]}`' with '.. automodule:: {missing[0]}' (see the others)"
    )
    modules = set()
    for p in (ROOT / "minivit").rglob("*.py"):
        parts = p.relative_to(ROOT).with_suffix("").parts
        modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    gone = sorted(documented - modules)
    assert not gone, f"docs/api.md documents modules that do not exist: {gone}"


def encodings_table() -> list[str]:
    """The names in the first column of docs/package.md's table of positional encodings."""
    text = (ROOT / "docs" / "package.md").read_text().split("## Positional encodings", 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row.split("|")[1])]


def test_the_encodings_table_names_every_registered_encoding_and_no_other():
    named = encodings_table()
    missing = [name for name in REGISTRY if name not in named]
    assert not missing, (
        f"docs/package.md's encodings table has no row for {missing}: add one (see the others)"
    )
    unknown = [name for name in named if name not in REGISTRY]
    assert not unknown, f"docs/package.md's encodings table names {unknown}, which the registry does not hold"
    assert len(named) == len(set(named)), f"an encoding named twice in docs/package.md's table: {named}"


def test_every_count_of_the_encodings_in_the_docs_is_the_registrys():
    pattern = re.compile(
        rf"\b(\d+|{'|'.join(sorted(WORDS, key=len, reverse=True))}) positional encodings", re.I
    )
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for found in pattern.findall(page.read_text().replace("\n", " ")):
            n = int(found) if found.isdigit() else WORDS[found.lower()]
            assert n == len(REGISTRY), (
                f"{page.relative_to(ROOT)} counts {found} positional encodings; the registry holds "
                f"{len(REGISTRY)}: write that"
            )
