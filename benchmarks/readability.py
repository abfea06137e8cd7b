"""How each lesson reads: the length of its main path, its sentences, and how soon it shows a picture.

The measure of the course's readability targets (a guide; the real test is a learner who reads the
lesson). For every lesson notebook (`lessons/NN_*.ipynb`, whose markdown is the paired .py's):

- **main path**: the words of markdown before the first `## Going deeper`, `## What we covered`,
  `## Exercises` or `## Claims index` heading. A formula (`$...$`, `$$...$$`) or a code span counts
  as one word; a token with no letter or digit (a table's `|`, a lone dash) is not a word; a link
  counts its text, not its address.
- **mean sentence**: words per sentence on the main path. Sentences end at `.`, `!`, `?`, `:` or `;`
  before a space and a new start (a capital, a digit, a formula, a quote or a bracket; a colon or
  semicolon that goes on in lower case joins its clauses), and at every list item and paragraph end.
  Headings and table rows are not sentences (their words still count on the main path). `e.g.`,
  `i.e.`, `et al.` and `vs.` do not end a sentence.
- **long**: sentences of more than 40 words.
- **first figure**: the main-path words before the first code cell that shows a picture: one whose
  recorded output holds an image, or that calls an explorer or view of `minivit.widgets`
  (`widgets.x_explorer(...)`, `widgets.x_view(...)`). Run the notebook first so its outputs are recorded.
- **reading time**: main-path words at 200 words a minute, and the whole lesson's markdown (Going
  deeper, summary, exercises and claims index included) at the same pace.

Targets (issue 54): main path at most 1,500 words for lessons 00-06 and 2,000 for 07-12; mean
sentence at most 20 words; at most 3 sentences over 40 words; a figure or explorer within the first
400 words.

    python benchmarks/readability.py               # every lesson
    python benchmarks/readability.py --lesson 05   # one lesson
    python benchmarks/readability.py --long        # also list each lesson's sentences over 40 words
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
STOP = re.compile(r"^##\s+(Going deeper|What we covered|Exercises|Claims index)\b", re.IGNORECASE)
EXPLORER = re.compile(r"\bwidgets\.\w+_(explorer|view)\s*\(")
WPM = 200
LONG = 40
TARGET_SENTENCE = 20
TARGET_LONG = 3
TARGET_FIRST = 400


def target_words(number: int) -> int:
    return 1500 if number <= 6 else 2000


FORMULA = "\x00F\x00"  # one word for each formula or code span
# a sentence ends at . ! ? : ; before a space and a new start (a capital, a digit, a formula, a quote or a
# bracket): a colon or semicolon that goes on in lower case ("three seeds: 0.71, 0.69") joins its clauses
SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+(?=[A-Z0-9\x00\"'(\[*_])")
ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|et al|vs|cf|approx|Fig|Eq|Sec|resp)\.", re.IGNORECASE)


def _plain(text: str) -> str:
    """Markdown with formulas and code spans as one token, links as their text, no HTML comments."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)
    text = re.sub(r"```.*?```", f" {FORMULA} ", text, flags=re.DOTALL)
    text = re.sub(r"\$\$.+?\$\$", f" {FORMULA} ", text, flags=re.DOTALL)
    text = re.sub(r"(?<!\\)\$[^$\n]+?(?<!\\)\$", FORMULA, text)
    text = re.sub(r"`[^`\n]+`", FORMULA, text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a badge: an image inside a link
    text = re.sub(r"<[^>\n]+>", " ", text)  # HTML tags
    return ABBREVIATIONS.sub(lambda m: m.group(0)[:-1] + "\x01", text)  # no sentence end here


def _is_word(token: str) -> bool:
    return FORMULA in token or any(ch.isalnum() for ch in token)


def words(text: str) -> int:
    return sum(_is_word(t) for t in _plain(text).split())


def sentences(text: str) -> list[list[str]]:
    """The sentences of a markdown cell, each as its list of words."""
    out: list[list[str]] = []
    blocks: list[str] = []
    current: list[str] = []
    for line in _plain(text).splitlines():
        stripped = line.strip()
        breaks_before = (
            not stripped
            or stripped.startswith(("#", "|", "- ", "* ", "> "))
            or re.match(r"\d+\.\s", stripped) is not None
        )
        if breaks_before and current:
            blocks.append(" ".join(current))
            current = []
        if stripped and not stripped.startswith(("#", "|")):  # a heading or a table row is not a sentence
            current.append(stripped)
    if current:
        blocks.append(" ".join(current))
    for block in blocks:
        for piece in SENTENCE_END.split(block):
            tokens = [t for t in piece.split() if _is_word(t)]
            if tokens:
                out.append(tokens)
    return out


def _shows_picture(cell: dict) -> bool:
    source = "".join(cell.get("source", ""))
    if EXPLORER.search(source):
        return True
    for output in cell.get("outputs", []):
        if any(kind.startswith("image/") for kind in output.get("data", {})):
            return True
    return False


@dataclass
class Reading:
    lesson: str
    number: int
    main_words: int = 0
    all_words: int = 0
    sentences: list[list[str]] = field(default_factory=list)
    first_figure: int | None = None  # main-path words before it; None: no figure on the main path
    recorded: bool = True  # False: no code cell has outputs (the notebook was never run)

    @property
    def mean_sentence(self) -> float:
        return sum(map(len, self.sentences)) / max(len(self.sentences), 1)

    @property
    def long(self) -> list[list[str]]:
        return [s for s in self.sentences if len(s) > LONG]

    def checks(self) -> dict[str, bool]:
        return {
            "words": self.main_words <= target_words(self.number),
            "sentence": self.mean_sentence <= TARGET_SENTENCE,
            "long": len(self.long) <= TARGET_LONG,
            "figure": self.first_figure is not None and self.first_figure <= TARGET_FIRST,
        }


def read(notebook: Path) -> Reading:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    reading = Reading(notebook.stem, int(notebook.name[:2]))
    main = True
    reading.recorded = any(c.get("outputs") for c in cells if c["cell_type"] == "code")
    for cell in cells:
        source = "".join(cell.get("source", ""))
        if cell["cell_type"] == "markdown":
            n = words(source)
            reading.all_words += n
            if main and any(STOP.match(line.strip()) for line in source.splitlines()):
                # the words of this cell before the stop heading still belong to the main path
                head = []
                for line in source.splitlines():
                    if STOP.match(line.strip()):
                        break
                    head.append(line)
                before = "\n".join(head)
                reading.main_words += words(before)
                reading.sentences += sentences(before)
                main = False
            elif main:
                reading.main_words += n
                reading.sentences += sentences(source)
        elif cell["cell_type"] == "code" and main and reading.first_figure is None and _shows_picture(cell):
            reading.first_figure = reading.main_words
    return reading


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def table(readings: list[Reading]) -> str:
    head = (
        "| lesson | main words | mean sentence | over 40 | first figure "
        "| read main (min) | read all (min) | targets |\n|---|---|---|---|---|---|---|---|"
    )
    rows = [head]
    for r in readings:
        c = r.checks()
        first = "none" if r.first_figure is None else str(r.first_figure)
        rows.append(
            f"| {r.lesson} | {r.main_words} / {target_words(r.number)} {mark(c['words'])} "
            f"| {r.mean_sentence:.1f} {mark(c['sentence'])} | {len(r.long)} {mark(c['long'])} "
            f"| {first} {mark(c['figure'])} | {r.main_words / WPM:.0f} | {r.all_words / WPM:.0f} "
            f"| {sum(c.values())}/4 |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lesson", nargs="*", help="lesson numbers (e.g. 05 07); default every lesson")
    parser.add_argument("--long", action="store_true", help="also print the sentences over 40 words")
    args = parser.parse_args(argv)
    notebooks = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))
    if args.lesson:
        wanted = {n.zfill(2) for n in args.lesson}
        notebooks = [nb for nb in notebooks if nb.name[:2] in wanted]
        if not notebooks:
            parser.error(f"no lesson notebook numbered {' '.join(sorted(wanted))} in {LESSONS}")
    readings = [read(nb) for nb in notebooks]
    print(f"$ python benchmarks/readability.py{' --lesson ' + ' '.join(args.lesson) if args.lesson else ''}")
    print(
        "targets: main path ≤ 1,500 words (00-06) or ≤ 2,000 (07-12); "
        f"mean sentence ≤ {TARGET_SENTENCE} words; ≤ {TARGET_LONG} sentences over {LONG} words; "
        f"a figure or explorer within the first {TARGET_FIRST} words; reading at {WPM} words a minute\n"
    )
    print(table(readings))
    for r in readings:
        if not r.recorded:
            print(
                f"\n{r.lesson}: no recorded outputs; only explorer calls count as figures "
                "(run the notebook first)"
            )
        if args.long and r.long:
            print(f"\n{r.lesson}: {len(r.long)} sentences over {LONG} words")
            for s in r.long:
                print(f"  ({len(s)}) " + " ".join(s).replace(FORMULA, "$…$").replace("\x01", "."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
