"""The course's website (`make site`), opened in headless Chromium as a reader meets it.

The site is built from the committed notebooks (docs/build.py; the explorers' frames are cached in
docs/_build/frames), served on loopback, and the home page, every lesson page and every page of
solutions/ and docs/ are opened. Each must load without a console error or a failed request, have
its math rendered by MathJax (no raw `$$` left in the text), every image loaded, and every link to
another page of the site resolve (the page, and the anchor where the link names one). Each lesson's
frame player (its first explorer; every lesson has one) must switch its picture when a slider is
moved, as a reader moves it (keyboard).

Needs Debian's `chromium` and the `playwright` package, as tests/test_browser.py; elsewhere the
module is skipped with the reason. Run it with `make test-site` (part of `make test`).
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest

from tests.chromium import CHROMIUM, FLAGS, sync_playwright_or_skip

ROOT = Path(__file__).parent.parent
HTML = ROOT / "docs" / "_build" / "html"
LESSONS = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))

pytestmark = pytest.mark.browser
sync_playwright = sync_playwright_or_skip()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    """The built site served on loopback: its base URL. Builds it first (cached frames: seconds)."""
    subprocess.run([sys.executable, str(ROOT / "docs" / "build.py"), "--quiet"], check=True, cwd=ROOT)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(HTML)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield b
        b.close()


def pages() -> list[str]:
    """The pages a reader opens: home, every lesson, every solutions page and every docs/*.md page."""
    out = ["index.html"] + [f"lessons/{name}.html" for name in LESSONS]
    out += [f"solutions/{p.stem}.html" for p in sorted((ROOT / "solutions").glob("[0-9]*.md"))]
    out += ["solutions/index.html"] + [f"docs/{p.stem}.html" for p in sorted((ROOT / "docs").glob("*.md"))]
    return out


def target_exists(url: str, base: str) -> str | None:
    """None if a link within the site resolves (its page, and its anchor if it names one), else why not."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.unquote(parts.path.removeprefix(urllib.parse.urlsplit(base).path))
    file = HTML / path
    if file.is_dir():
        file = file / "index.html"
    if not file.is_file():
        return f"no page {path}"
    if parts.fragment and file.suffix == ".html":
        text = file.read_text(errors="replace")
        if f'id="{parts.fragment}"' not in text:
            return f"{path} has no anchor #{parts.fragment}"
    return None


def open_page(browser, url: str):
    """The page at `url` once loaded and typeset, with the console errors and failed requests seen."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url} ({r.failure})"))
    page.goto(url, wait_until="load")
    page.evaluate(
        "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
        " ? MathJax.startup.promise.then(() => true) : true"
    )
    page.wait_for_load_state("networkidle")
    return page, errors


def broken_images(page) -> list[str]:
    return page.evaluate(
        "() => [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
    )


@pytest.mark.parametrize("path", pages())
def test_page(site, browser, path):
    page, errors = open_page(browser, site + path)
    try:
        assert not errors, f"{path}: " + "; ".join(errors)
        text = page.inner_text("main")
        assert "$$" not in text, f"{path}: raw $$ left in the text (math not rendered)"
        source = path.replace(".html", ".ipynb" if path.startswith("lessons/") else ".md")
        source = "README.md" if path == "index.html" else source
        source = "solutions/README.md" if path == "solutions/index.html" else source
        raw = (ROOT / source).read_text()
        if source.endswith(".ipynb"):  # the lesson's text, not its code and outputs
            cells = json.loads(raw)["cells"]
            raw = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        if re.search(r"\$[^$\s][^$\n]*\$", raw) and not path.startswith("docs/api"):
            assert page.locator("mjx-container").count() > 0, f"{path}: its $...$ math was not typeset"
        assert not broken_images(page), f"{path}: images that did not load: {broken_images(page)}"
        links = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
        internal = sorted({u for u in links if u.startswith(site)})
        assert internal, f"{path}: no links to the rest of the site (navigation missing)"
        broken = [f"{u}: {why}" for u in internal if (why := target_exists(u, site))]
        assert not broken, f"{path}: links that do not resolve: {broken}"
    finally:
        page.close()


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_page(site, browser, lesson):
    """A lesson page links to Colab and its source; its checked exercises link to their solutions;
    its first explorer switches its picture when a slider moves."""
    page, errors = open_page(browser, f"{site}lessons/{lesson}.html")
    try:
        hrefs = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
        assert any("colab.research.google.com" in h for h in hrefs), f"{lesson}: no Open-in-Colab link"
        assert any(h.endswith(f"lessons/{lesson}.py") for h in hrefs), f"{lesson}: no link to its source"
        checks = re.findall(
            r'exercises\.check\(\s*\\?"(\d\d\.\d+)', (ROOT / "lessons" / f"{lesson}.py").read_text()
        )
        solved = re.findall(r"^## (\d\d\.\d+)", (ROOT / "solutions" / f"{lesson}.md").read_text(), re.M)
        for k in sorted(set(checks) & set(solved)):
            assert any(h.endswith(f"#sol-{k.replace('.', '-')}") for h in hrefs), f"{lesson}: {k} not linked"
        players = page.locator(".frame-player")
        assert players.count() >= 1, f"{lesson}: its first explorer has no frames (make frames)"
        image = players.first.locator("img.frame-image")
        before = image.get_attribute("src")
        slider = players.first.locator("input[type=range]").first
        slider.focus()
        page.keyboard.press("End" if slider.input_value() != slider.get_attribute("max") else "Home")
        page.wait_for_function(
            "([img, src]) => img.getAttribute('src') !== src && img.complete && img.naturalWidth > 0",
            arg=[image.element_handle(), before],
            timeout=10_000,
        )
        assert image.get_attribute("src") != before
        assert not errors, f"{lesson}: " + "; ".join(errors)
    finally:
        page.close()


def test_every_lesson_is_a_page(site):
    for lesson in LESSONS:
        assert (HTML / "lessons" / f"{lesson}.html").is_file(), f"lesson {lesson} has no page"
    assert (HTML / "search.html").is_file(), "the site has no search page"
    assert (HTML / "searchindex.js").is_file(), "the site has no search index"
