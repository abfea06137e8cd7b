"""The README as the course's front door: a row for every lesson with the notebook's own title and
its Colab link, and the website's address, both built from `minivit.lesson.REPOSITORY` (the one place
the repository is named); totals that are the table's; the license pyproject names, and a citation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from minivit.lesson import REPOSITORY

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
NOTEBOOKS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
ROW = re.compile(
    r"^\| (\d\d) \| \[([^\]]+)\]\(lessons/(\w+\.ipynb)\):.*"  # number, title, notebook
    r"\| (\d+) min \| (\d+) s \| \[open\]\(([^)\s]+)\) \|$",  # reading, run, Colab
    re.M,
)


def rows() -> dict[str, tuple[str, int, int, str]]:
    """The lessons table: notebook -> (title, reading minutes, run seconds, Colab link)."""
    return {nb: (title, int(read), int(run), colab) for _, title, nb, read, run, colab in ROW.findall(README)}


def title(path: Path) -> str:
    """A lesson's title: its first heading, without the "NN · " in front."""
    cells = json.loads(path.read_text())["cells"]
    heading = next(
        line for c in cells if c["cell_type"] == "markdown" for line in "".join(c["source"]).splitlines()
    )
    return re.sub(r"^# \d\d · ", "", heading)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_lesson_has_a_row_with_its_own_title_and_its_colab_link(path):
    row = rows().get(path.name)
    assert row, f"README.md's lessons table has no row for lessons/{path.name}: add one (see the others)"
    assert row[0] == title(path), (
        f"README.md calls {path.stem} {row[0]!r}; the lesson's title is {title(path)!r}"
    )
    colab = f"https://colab.research.google.com/github/{REPOSITORY}/blob/main/lessons/{path.name}"
    assert row[3] == colab, f"README.md's Colab link for {path.stem} is {row[3]}; REPOSITORY makes it {colab}"


def test_the_website_is_the_repositorys_pages_site_and_no_other():
    owner, name = REPOSITORY.split("/")
    site = f"https://{owner}.github.io/{name}/"
    assert site in README, f"README.md does not link the website, {site} (from REPOSITORY)"
    others = set(re.findall(r"https://[\w.-]+\.github\.io/[\w.-]+/?", README)) - {site}
    assert not others, f"README.md links another website than {site}: {sorted(others)}"


def test_the_totals_are_the_tables():
    table = rows().values()
    reading, run = sum(r[1] for r in table), sum(r[2] for r in table)
    assert f"| **all {len(table)}** | | **{reading} min** | **{run} s** |" in README, (
        f"README.md's totals row should read {reading} min and {run} s, the sums of its table"
    )
    intro = README.split("## Start")[0]
    assert f"{reading} minutes of reading" in intro and f"{run} s of runs" in intro, (
        f"README.md's opening should give the totals: {reading} minutes of reading, {run} s of runs"
    )


def test_the_license_is_pyprojects_and_the_citation_names_the_repository():
    assert re.search(r'^license = "MIT"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n\nCopyright (c) ")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "MIT" and cff["authors"]
    assert cff["repository-code"] == f"https://github.com/{REPOSITORY}"
    owner, name = REPOSITORY.split("/")
    assert cff["url"] == f"https://{owner}.github.io/{name}/"
