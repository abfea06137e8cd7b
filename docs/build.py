"""Build the course's website from the committed notebooks, without running them.

    python docs/build.py            # -> docs/_build/html/index.html (make site)
    python docs/build.py --serve    # build, then serve it on http://127.0.0.1:8000 (make serve)

What it does, in order:
1. writes the site's sources to `docs/_build/src/`, laid out as the repository is, so every relative
   link in the README, the lessons, `solutions/` and `docs/` works on the site as on the code host:
   the README becomes the home page (its lessons table a grid of cards, each with its picture,
   times and Colab link, right after the opening; the set-up below); each `lessons/NN_*.ipynb` a
   page with its recorded outputs (a line of links and times on top, each checked exercise linked
   to its worked solution, the widgets' dead outputs replaced by the explorer's frames);
   `solutions/*.md` pages with each solution folded; every `docs/*.md`, `lessons/CLAIMS.md` and
   `benchmarks/README.md`; a link to a file that is not a page goes to its source on the code host;
2. draws the frames of every lesson's explorers (`docs/explorers.py`; cached in
   `docs/_build/frames/`, redrawn only when the package or a recipe changes), so that each plays on
   its page without a kernel (`docs/_static/frames.js`);
3. runs Sphinx (MyST-NB, sphinx-book-theme; `docs/conf.py`) with the notebooks' execution off; a
   warning fails the build (after every warning is reported);
4. puts each lesson's committed notebook where the page's "Download .ipynb" button points.

On a lesson's page each progress bar shows where the recorded run ended (from the widget's state
saved in the notebook), and `docs/api.md` becomes one page per module under `docs/api/`.

Reading time is the words of a lesson's markdown cells over 200 a minute; run time is the median
time of the margin sweep on one thread, from `lessons/CLAIMS.md`.
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import hashlib
import html
import http.server
import importlib
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
SRC = BUILD / "src"
HTML = BUILD / "html"
FRAMES = BUILD / "frames"
sys.path.insert(0, str(ROOT))
from minivit.lesson import REPOSITORY  # noqa: E402  (the one place the repository is named)

REPO = f"https://github.com/{REPOSITORY}"
COLAB = f"https://colab.research.google.com/github/{REPOSITORY}/blob/main"
WIDGET = "application/vnd.jupyter.widget-view+json"
WORDS_PER_MINUTE = 200
BAR_CELLS = 10  # a progress bar's width in characters, as tqdm draws it

LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)(\))")  # [text](target) and ![alt](target)
HTML_SRC = re.compile(r'((?:src|href)=")([^"]+)(")')
EXPLORER = re.compile(r"widgets\.(\w+_explorer)\(")
CHECK = re.compile(r'exercises\.check\(\s*"(\d\d\.\d+)"')
BADGE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)\n*")
SOLUTION = re.compile(r"^## (\d\d)\.(\d+)\b", re.M)
ARXIV = re.compile(r"(?<![\w/\[])arXiv:? ?(\d{4}\.\d{4,5})\b(?!\]\()")  # "arXiv 2104.09864", not a link
HEADING = re.compile(r"^#{1,4} +(.+?)\s*$", re.M)  # a markdown heading's text
# "Su et al. 2021", "Bao\net al. (2021", "Press and Smith 2022": who, and the year
CITED = re.compile(r"([A-Z][\w'-]+(?:\s+et al\.|\s+(?:&|and)\s+[A-Z][\w'-]+))\s+\(?(\d{4})")
# a row of the README's lessons table: number, title, notebook, question, picture, reading, run, Colab
LESSON_ROW = re.compile(
    r"^\| (?P<number>\d\d) \| \[(?P<title>[^\]]+)\]\(lessons/(?P<notebook>\w+\.ipynb)\):(?P<question>[^|]*)"
    r"\| (?P<picture>[^|]*) \| (?P<reading>\d+) min \| (?P<run>\d+) s \| \[open\]\((?P<colab>[^)\s]+)\) \|$",
    re.M,
)
API_SECTION_NAME = re.compile(r"^\.\. automodule:: (minivit[\w.]*)$", re.M)
# a module's section of docs/api.md: its heading and its automodule block
API_SECTION = re.compile(
    r"^### `(minivit[\w.]*)`\n+(```\{eval-rst\}\n\.\. automodule:: \1\n(?:   [^\n]*\n)*```\n)", re.M
)


def lessons() -> list[Path]:
    return sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))


def pages() -> dict[str, str]:
    """Every page of the site: its path in the repository -> its path among the site's sources."""
    out = {"README.md": "index.md", "solutions/README.md": "solutions/index.md"}
    out |= {f"lessons/{p.name}": f"lessons/{p.name}" for p in lessons()}
    out |= {
        f"solutions/{p.name}": f"solutions/{p.name}" for p in sorted((ROOT / "solutions").glob("[0-9]*.md"))
    }
    out |= {f"docs/{p.name}": f"docs/{p.name}" for p in sorted(DOCS.glob("*.md"))}
    for extra in ("lessons/CLAIMS.md", "benchmarks/README.md"):
        if (ROOT / extra).exists():
            out[extra] = extra
    return out


def rewrite_target(target: str, source: str, site: dict[str, str]) -> str:
    """A link in the repository file `source` as the site needs it: a page -> its page, an image ->
    the copy beside it, a directory with a README -> that page, anything else -> the code host."""
    if re.match(r"^[a-z]+:|^#|^//", target):
        return target
    path, _, anchor = target.partition("#")
    base = Path(source).parent
    resolved = (ROOT / base / path).resolve()
    try:
        rel = resolved.relative_to(ROOT).as_posix()
    except ValueError:
        return target
    if resolved.is_dir() and f"{rel}/README.md" in site:
        rel = f"{rel}/README.md"
    here = Path(site.get(source, source)).parent
    if rel in site:
        new = Path(site[rel])
    elif rel.startswith("assets/") and resolved.is_file():
        new = Path(rel)
    else:
        kind = "tree" if resolved.is_dir() else "blob"
        return f"{REPO}/{kind}/main/{rel}" + (f"#{anchor}" if anchor else "")
    relative = Path(*[".."] * len(here.parts), new) if here.parts else new
    return relative.as_posix() + (f"#{anchor}" if anchor else "")


def rewrite_links(text: str, source: str, site: dict[str, str]) -> str:
    def fix(m):
        return m.group(1) + rewrite_target(m.group(2), source, site) + m.group(3)

    return HTML_SRC.sub(fix, LINK.sub(fix, text))


def run_times() -> dict[str, tuple[int, int]]:
    """Each lesson's median run time and the threads it ran on, from lessons/CLAIMS.md (the margin
    sweep's runs of the lesson's current code): two threads where it has such runs (one lesson at a
    time, as a learner runs it; a lesson's default), else one. A lesson the sweep has not run since
    its code changed has none: its page shows no run time rather than an old one."""
    times = {}
    claims = (ROOT / "lessons" / "CLAIMS.md").read_text()
    for name, line in re.findall(r"^## (\d\d_\w+)\n\n([^\n]*median time[^\n]*)", claims, re.M):
        found = {int(t): int(sec) for sec, t in re.findall(r"(\d+) s on (\d) threads?", line)}
        if found:
            threads = max(found)
            times[name] = (found[threads], threads)
    return times


def threads_said(threads: int) -> str:
    return f"{threads} CPU thread{'s' if threads > 1 else ''}"


def reading_minutes(notebook: dict) -> int:
    words = sum(len("".join(c["source"]).split()) for c in notebook["cells"] if c["cell_type"] == "markdown")
    return max(1, round(words / WORDS_PER_MINUTE))


def duration(seconds: int) -> str:
    return f"{seconds} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def markdown_cell(text: str) -> dict:
    """A markdown cell the site adds, with an id (nbformat 4.5) made from its text."""
    cell_id = "site-" + hashlib.sha1(text.encode()).hexdigest()[:12]
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def solution_labels() -> set[str]:
    """The exercises with a worked solution, as 'NN.k'."""
    found = set()
    for p in (ROOT / "solutions").glob("[0-9]*.md"):
        found |= {f"{a}.{b}" for a, b in SOLUTION.findall(p.read_text())}
    return found


def player(manifest: dict, lesson: str, index: int, name: str, run: dict | None) -> str:
    """The HTML of a frame player: explorer `index` of the lesson (`name`, its function), its
    controls as the page's inputs over its frames (docs/_static/frames.js)."""
    data = json.dumps(manifest).replace("'", "&#39;")
    drawn = (
        f"drawn by a run of this lesson (seed {run['seed']}, {run['threads']} threads) from the "
        "models it trained"
        if run
        else "drawn when the site was built"
    )
    return (
        f'<div class="frame-player" data-lesson="{lesson}" data-explorer="{index}" data-name="{name}" '
        f"data-manifest='{data}'></div>\n\n"
        f"*On this page the controls switch between pictures {drawn}, for "
        f"{len(manifest['frames'])} positions of the explorer's controls; in the notebook (JupyterLab "
        "or Colab) the explorer computes any position.*\n"
    )


def finished_bars(nb: dict) -> dict[str, str]:
    """Each progress bar of the recorded run (tqdm's widget: a label, a bar and a tally in an HBox),
    as text in its last state, by the widget's id. The output's own text is the bar's first state
    ("0%| | 0/625"): the widget's state, saved with the notebook, holds where the run ended."""
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    models = state.get("state", {})
    bars = {}
    for model_id, model in models.items():
        if model.get("model_name") != "HBoxModel":
            continue
        parts = [models.get(c.removeprefix("IPY_MODEL_"), {}) for c in model["state"].get("children", [])]
        names = [p.get("model_name") for p in parts]
        if names != ["HTMLModel", "FloatProgressModel", "HTMLModel"]:
            continue
        label, progress, tally = (p["state"] for p in parts)
        done = progress["value"] / progress["max"] if progress.get("max") else 0.0
        cells = round(done * BAR_CELLS)
        bar = "\u2588" * cells + " " * (BAR_CELLS - cells)
        text = f"{label['value']}|{bar}|{tally['value']}"
        bars[model_id] = html.unescape(text).replace("\u2007", " ")
    return bars


def lesson_page(path: Path, site: dict[str, str], frames: dict, solved: set[str]) -> dict:
    """A lesson's notebook as the site shows it (never executed: its outputs are the recorded run)."""
    nb = json.loads(path.read_text())
    stem = path.stem
    bars = finished_bars(nb)
    nb["metadata"].pop("widgets", None)  # the widgets' state: the page has no kernel to drive them
    source = f"lessons/{path.name}"
    times = run_times()
    line = (
        f"[Open in Colab]({COLAB}/lessons/{path.name}) · [source: `lessons/{stem}.py`]({REPO}/blob/main/"
        f"lessons/{stem}.py) · [notebook]({REPO}/blob/main/lessons/{path.name}) · reading "
        f"~{reading_minutes(nb)} min"
    )
    if stem in times:
        seconds, threads = times[stem]
        line += f" · runs in ~{duration(seconds)} on {threads_said(threads)}"
    cells = []
    explorers = 0  # the lesson's explorers so far: the frames' manifest holds them in this order
    section = nb["cells"][0]["source"] and HEADING.findall("".join(nb["cells"][0]["source"]))[:1]
    section = section[0] if section else stem
    for i, cell in enumerate(nb["cells"]):
        cell = copy.deepcopy(cell)
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            section = (HEADING.findall(text) or [section])[-1]
            text = BADGE.sub("", text)  # the page's own line links to Colab; the badge is an outside image
            cell["source"] = cite(rewrite_links(text, source, site))
            cells.append(cell)
            if i == 0:
                cells.append(markdown_cell(line))
            continue
        if cell["cell_type"] != "code":
            cells.append(cell)
            continue
        for out in cell.get("outputs", []):
            view = out.get("data", {}).pop(WIDGET, None)
            if view and view.get("model_id") in bars:  # a progress bar: where the run ended
                out["data"]["text/plain"] = bars[view["model_id"]]
        if any("image/png" in out.get("data", {}) for out in cell.get("outputs", [])):
            cell["metadata"]["mystnb"] = {"image": {"alt": figure_alt(stem, section, text)}}
        explorer = EXPLORER.search(text)
        if explorer:
            cell["outputs"] = []  # the widget's text stand-in ("VBox(...)") says nothing on a page
            cells.append(cell)
            drawn = frames.get(stem, {}).get("explorers", [])
            if explorers < len(drawn):
                run = frames[stem].get("run")
                cells.append(markdown_cell(player(drawn[explorers], stem, explorers, explorer.group(1), run)))
            else:
                cells.append(
                    markdown_cell(
                        f"*The explorer (`{explorer.group(1)}`) needs a kernel: run the notebook "
                        "(JupyterLab or Colab) to move it.*"
                    )
                )
            explorers += 1
            continue
        cells.append(cell)
        check = CHECK.search(text)
        if check and check.group(1) in solved:
            k = check.group(1)
            cells.append(markdown_cell(f"Worked solution: {{ref}}`exercise {k} <sol-{k.replace('.', '-')}>`"))
    nb["cells"] = cells
    return nb


def figure_alt(stem: str, section: str, code: str) -> str:
    """A figure's alt text on a lesson's page: where it is and what draws it (the cell's opening
    comment, else its last line), for a reader who cannot see it."""
    lines = [line.rstrip() for line in code.splitlines() if line.strip()]
    comment = next((line.lstrip("# ") for line in lines[:1] if line.startswith("#")), None)
    # the last statement that starts a line of its own (not a call's closing lines)
    starts = [line for line in lines if not line[0].isspace() and line[0] not in ")]}\"'#"]
    call = starts[-1] if starts else ""
    call = call if len(call) <= 80 else call[:77] + "..."
    what = comment or (f"drawn by `{call}`" if call else "drawn by the cell above")
    return f"Lesson {stem[:2]}, {section}: figure {what}"


def solutions_page(text: str) -> str:
    """A lesson's solutions with each one folded (a dropdown) under a label the exercises link to."""
    parts = re.split(r"(?m)^(?=## )", text)
    out = [parts[0]]
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        m = re.match(r"## (\d\d)\.(\d+)\b", heading)
        if not m:
            out.append(part)
            continue
        out.append(
            f"(sol-{m.group(1)}-{m.group(2)})=\n{heading}\n\n::::{{dropdown}} The worked solution\n"
            f"{body.strip()}\n::::\n\n"
        )
    return "".join(out)


# the README's opening bullets the home page shows above the lessons (the others below them)
ABOVE_THE_LESSONS = ("You will learn", "Read it", "How long")


def readme_lessons(readme: str) -> list[dict]:
    """The README's lessons table, row by row: the one source of the home page's lessons, pictures,
    times and Colab links (tests/test_readme.py keeps its totals the sums of its rows)."""
    found = []
    for m in LESSON_ROW.finditer(readme):
        picture = re.search(r'src="([^"]+)"', m["picture"])
        found.append(
            {
                "number": m["number"],
                "title": m["title"],
                "stem": Path(m["notebook"]).stem,
                "question": m["question"].strip(),
                "picture": picture.group(1) if picture else None,
                "reading": int(m["reading"]),
                "run": int(m["run"]),
                "colab": m["colab"],
            }
        )
    missing = sorted({p.stem for p in lessons()} - {row["stem"] for row in found})
    if missing:
        raise SystemExit(
            f"README.md's lessons table has no row the home page can read for {', '.join(missing)}: "
            "'| NN | [title](lessons/NN_name.ipynb): question | picture | N min | N s | [open](colab) |'"
        )
    return found


def start_frame(manifest: dict) -> str:
    """The frame of a lesson's first explorer at its starting position (its controls' start
    values), as the lesson's manifest names it ("frames/NN_name/0-K.png", under docs/_build)."""
    first = manifest["explorers"][0]
    key = "-".join(str(c["start"]) for c in first["controls"])
    return first["frames"][key]


def card_picture(row: dict, frames: dict) -> str | None:
    """A lesson's picture on the home page: the README's, else its explorer's starting frame (copied
    into the site's assets by write_sources)."""
    if row["picture"]:
        return row["picture"]
    if row["stem"] in frames:
        return f"assets/{row['stem']}.png"
    return None


def lesson_cards(rows: list[dict], frames: dict) -> str:
    """The lessons as a grid of cards (one column on a phone, two on a wide screen): each with its
    picture, title, question, reading and run times and its Colab link; then the totals."""
    out = [":::::{grid} 1 1 2 2", ":gutter: 3", ":class-container: lesson-cards", ""]
    for row in rows:
        page = f"lessons/{row['stem']}.ipynb"
        picture = card_picture(row, frames)
        out += ["::::{grid-item-card}", ":class-card: lesson-card"]
        if picture:  # as wide as the card
            alt = f"Lesson {row['number']}'s first explorer: {row['title']}"
            out += [f":img-top: {picture}", f":img-alt: {alt}"]
        out += [
            "",
            f"**[{row['number']} · {row['title']}]({page})**",
            "",
            row["question"],
            "",
            ":::{card-footer}",
            f'<span class="lesson-times">{row["reading"]} min reading · {row["run"]} s run</span> · '
            f"[Open in Colab]({row['colab']})",
            ":::",
            "::::",
            "",
        ]
    out += [":::::", ""]
    reading, run = sum(r["reading"] for r in rows), sum(r["run"] for r in rows)
    out += [
        f'<p class="lesson-total"><strong>All {len(rows)} lessons: {reading} min of reading (about '
        f"{reading / 60:.0f} hours) and {run} s of runs (about {run / 60:.0f} minutes)</strong>, "
        "read in order from lesson 00.</p>",
        "",
    ]
    return "\n".join(out)


def home_page(readme: str, site: dict[str, str], frames: dict | None = None) -> str:
    """The home page: the README's opening (what the course is, what you will learn, how to start,
    how long), then its lessons as cards with their pictures, times and Colab links, from the
    README's table (`readme_lessons`), then the rest of the README (set-up last); with a table of
    contents for the sidebar (hidden on the page)."""
    rows = readme_lessons(readme)
    text = rewrite_links(readme, "README.md", site)
    head, *sections = re.split(r"(?m)^(?=## )", text)
    title, _, intro = head.partition("\n")
    blocks = [b.strip() for b in re.split(r"\n\s*\n", intro) if b.strip()]
    top, after = blocks[:1], []  # what the course is; the rest of the opening below the cards, but
    for block in blocks[1:]:  # what you will learn, how to start and how long, above them
        items = re.split(r"(?m)^(?=- )", block) if block.startswith("- ") else [block]
        above = [i for i in items if i.startswith(tuple(f"- **{label}" for label in ABOVE_THE_LESSONS))]
        top += ["".join(above).strip()] if above else []
        after += ["".join(i for i in items if i not in above).strip()] if len(above) < len(items) else []
    lessons_at = next((i for i, s in enumerate(sections) if s.startswith("## Lessons")), None)
    if lessons_at is None:
        raise SystemExit("README.md has no '## Lessons' section for the home page's cards")
    section = sections.pop(lessons_at)
    table = re.search(r"(?m)^\|.*\|\n(?:\|.*\|\n?)+", section)
    cards = lesson_cards(rows, frames or {}) + "\n" + "\n\n".join(after) + "\n\n"
    section = section[: table.start()] + cards + section[table.end() :].lstrip("\n")
    page = "\n\n".join([title, *top]) + "\n\n" + section.rstrip("\n") + "\n\n" + "".join(sections)
    pages_in = lambda prefix: [v for k, v in site.items() if k.startswith(prefix) and v != "index.md"]  # noqa: E731
    toc = ["```{toctree}", ":hidden:", ":caption: Lessons", ""]
    toc += [p.removesuffix(".ipynb") for p in pages_in("lessons/") if p.endswith(".ipynb")]
    toc += ["```", "", "```{toctree}", ":hidden:", ":caption: Exercises", ""]
    toc += [
        "solutions/index",
        *[p.removesuffix(".md") for p in pages_in("solutions/") if p != "solutions/index.md"],
    ]
    toc += ["```", "", "```{toctree}", ":hidden:", ":caption: The package", ""]
    toc += [p.removesuffix(".md") for p in pages_in("docs/")]
    toc += [
        p.removesuffix(".md") for p in ("lessons/CLAIMS.md", "benchmarks/README.md") if p in site.values()
    ]
    toc += ["docs/references", "```", ""]
    # no "Contents" column on the home page: its width goes to the lessons' pictures
    front = "---\nhtml_theme.sidebar_secondary.remove: true\n---\n\n"
    return front + page.rstrip("\n") + "\n\n" + "\n".join(toc)


def module_summary(module: str) -> str:
    """The first paragraph of a module's docstring, read from its file (nothing imported), as one line
    of Markdown."""
    base = ROOT / Path(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    doc = ast.get_docstring(ast.parse(path.read_text())) if path.is_file() else None
    first = " ".join((doc or "").split("\n\n")[0].split())
    return re.sub(r"([*$|<])", r"\\\1", first)


def documented_elsewhere(module: str, documented: set[str]) -> list[str]:
    """The names in a module's `__all__` that another module of the API reference defines."""
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return []  # Sphinx says why, when it documents the module
    names = getattr(imported, "__all__", [])
    return [
        n for n in names if getattr(getattr(imported, n, None), "__module__", module) in documented - {module}
    ]


def api_pages(text: str) -> tuple[str, dict[str, str]]:
    """docs/api.md as the site shows it: one page per module (its `automodule` section), and the
    reference page a list of the modules under its headings, each with its docstring's first
    paragraph, linked to its page."""
    pages = {}
    documented = set(API_SECTION_NAME.findall(text))

    def entry(m: re.Match) -> str:
        module = m.group(1)
        block = m.group(2)
        elsewhere = documented_elsewhere(module, documented)
        if elsewhere:  # a name the module re-exports is documented on its own module's page
            block = block.replace(
                "   :members:\n", f"   :members:\n   :exclude-members: {', '.join(elsewhere)}\n"
            )
        # the docstrings' blocks shown as written are plain text, not Python
        pages[module] = f"# `{module}`\n\n```{{eval-rst}}\n.. highlight:: text\n```\n\n{block}"
        summary = module_summary(module)
        return f"- [`{module}`](api/{module}.md)" + (f": {summary}" if summary else "") + "\n"

    index = API_SECTION.sub(entry, text)
    index = re.sub(r"(?m)^(- \[`[^\n]*\n)\n+(?=- \[`)", r"\1", index)  # one list per heading
    toc = ["```{toctree}", ":hidden:", ":maxdepth: 1", "", *[f"api/{m}" for m in pages], "```", ""]
    return index.rstrip("\n") + "\n\n" + "\n".join(toc), pages


def arxiv_label(number: str) -> str:
    return "arxiv-" + number.replace(".", "-")


def cite(text: str) -> str:
    """Each "arXiv NNNN.NNNNN" of a lesson's text (not in code) linked to its entry in the references."""
    parts = re.split(r"(```.*?```|`[^`\n]*`)", text, flags=re.S)
    for i in range(0, len(parts), 2):
        parts[i] = ARXIV.sub(lambda m: f"{{ref}}`arXiv {m.group(1)} <{arxiv_label(m.group(1))}>`", parts[i])
    return "".join(parts)


def citations() -> dict[str, dict]:
    """Every paper the lessons cite by its arXiv number: who and when (the "Su et al. 2021" before
    the number, where the text names them) and the lessons that cite it."""
    found: dict[str, dict] = {}
    for path in lessons():
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            for m in ARXIV.finditer(text):
                entry = found.setdefault(m.group(1), {"by": None, "lessons": []})
                before = CITED.findall(text[max(0, m.start() - 80) : m.start()])
                if before and not entry["by"]:
                    entry["by"] = " ".join(f"{before[-1][0]} {before[-1][1]}".split())  # over a line break
                if path.stem not in entry["lessons"]:
                    entry["lessons"].append(path.stem)
    return dict(sorted(found.items()))


def references_page(found: dict[str, dict]) -> str:
    """The papers the lessons cite, each with its link to arxiv.org and to the lessons that cite it."""
    out = [
        "# References",
        "",
        "The papers the lessons cite, by their arXiv number (the year and month of the preprint, then "
        "its number): each links to its abstract on arxiv.org and to the lessons that cite it. In a "
        "lesson, a paper's arXiv number links here.",
        "",
    ]
    for number, entry in found.items():
        cited = ", ".join(f"[{stem[:2]}](../lessons/{stem}.ipynb)" for stem in entry["lessons"])
        who = f"{entry['by']}: " if entry["by"] else ""
        lesson = "lessons" if len(entry["lessons"]) > 1 else "lesson"
        link = f"[arXiv {number}](https://arxiv.org/abs/{number})"
        out += [f"({arxiv_label(number)})=", f"{who}{link}, cited in {lesson} {cited}", ""]
    return "\n".join(out)


def write_if_changed(path: Path, text: str) -> None:
    """Write `path` only when its text changes, so that Sphinx rebuilds only the pages that changed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_sources(frames: dict) -> None:
    site = pages()
    solved = solution_labels()
    written = set()
    for repo_path, site_path in site.items():
        text = (ROOT / repo_path).read_text()
        if repo_path == "README.md":
            text = home_page(text, site, frames)
        elif repo_path.endswith(".ipynb"):
            text = json.dumps(lesson_page(ROOT / repo_path, site, frames, solved), indent=1)
        elif repo_path.startswith("solutions/") and repo_path != "solutions/README.md":
            text = solutions_page(rewrite_links(text, repo_path, site))
        else:
            text = rewrite_links(text, repo_path, site)
        if repo_path == "docs/api.md":
            text, modules = api_pages(text)
            for module, page in modules.items():
                write_if_changed(SRC / "docs" / "api" / f"{module}.md", page)
                written.add(SRC / "docs" / "api" / f"{module}.md")
        write_if_changed(SRC / site_path, text)
        written.add(SRC / site_path)
    write_if_changed(SRC / "docs" / "references.md", references_page(citations()))
    written.add(SRC / "docs" / "references.md")
    for picture in sorted((ROOT / "assets").glob("*")):
        write_bytes = SRC / "assets" / picture.name
        write_bytes.parent.mkdir(parents=True, exist_ok=True)
        if not write_bytes.exists() or write_bytes.read_bytes() != picture.read_bytes():
            shutil.copyfile(picture, write_bytes)
        written.add(write_bytes)
    for row in readme_lessons((ROOT / "README.md").read_text()):  # a lesson the README has no picture of:
        if not row["picture"] and row["stem"] in frames:  # its explorer's first frame on the home page
            frame, copy_to = BUILD / start_frame(frames[row["stem"]]), SRC / "assets" / f"{row['stem']}.png"
            if not copy_to.exists() or copy_to.read_bytes() != frame.read_bytes():
                shutil.copyfile(frame, copy_to)
            written.add(copy_to)
    for stale in [p for p in SRC.rglob("*") if p.is_file() and p not in written]:
        stale.unlink()  # a page or picture removed from the repository


def build(quiet: bool = False) -> float:
    start = time.time()
    sys.path.insert(0, str(DOCS))
    import explorers  # docs/explorers.py: the frames of every lesson's explorers

    frames = explorers.build_all(FRAMES, quiet=quiet)
    write_sources(frames)
    extra = BUILD / "extra"
    if extra.exists():
        shutil.rmtree(extra)
    shutil.copytree(FRAMES, extra / "frames", ignore=shutil.ignore_patterns("*.key"))
    # -W --keep-going: every warning is reported, then fails the build (a page that renders wrong
    # says so here rather than on the site)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(DOCS), "-j", "1", "-W", "--keep-going"]
    command += [str(SRC), str(HTML)]
    # Sphinx rebuilds the pages whose sources (and autodoc's modules) changed; a change to conf.py's
    # functions it does not see, so a changed conf.py starts from a fresh environment
    conf_key, stamp = hashlib.sha256((DOCS / "conf.py").read_bytes()).hexdigest(), BUILD / "conf.key"
    if not stamp.exists() or stamp.read_text() != conf_key:
        command.append("-E")
    if quiet:
        command.append("-q")
    if subprocess.run(command, cwd=ROOT).returncode != 0:
        stamp.unlink(missing_ok=True)  # the next build starts afresh: an unchanged page warns again
        raise SystemExit(
            "the site's build failed: Sphinx's warnings above fail it (docs/build.py runs it with -W)"
        )
    stamp.write_text(conf_key)
    for path in lessons():  # "Download .ipynb" gives the lesson's own notebook, not the page's source
        shutil.copyfile(path, HTML / "_sources" / "lessons" / path.name)
    return time.time() - start


def serve(port: int) -> None:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(HTML))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"serving the course on http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


def _port(text: str) -> int:
    """--port as argparse takes it: a whole number 0 to 65535, else one line naming the option."""
    if not text.strip().isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port; use a whole number 0 to 65535, e.g. 8000")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", action="store_true", help="serve the built site after building it")
    parser.add_argument("--no-build", action="store_true", help="with --serve: serve the last build")
    parser.add_argument("--port", type=_port, default=8000, help="0 to 65535 (0: any free port)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--times", action="store_true", help="print each lesson's reading and run time")
    args = parser.parse_args()
    if args.times:
        runs = run_times()
        for p in lessons():
            seconds, threads = runs.get(p.stem, (None, None))
            unswept = "not yet swept with its current code"
            run = f"{duration(seconds)} on {threads_said(threads)}" if seconds else unswept
            print(f"{p.stem}: reading {reading_minutes(json.loads(p.read_text()))} min, run {run}")
        return
    if not args.no_build:
        seconds = build(args.quiet)
        print(f"site built in {seconds:.0f} s: {HTML / 'index.html'}")
    if args.serve:
        serve(args.port)


if __name__ == "__main__":
    main()
