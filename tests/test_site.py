"""The course's website (`make site`), opened in headless Chromium as a reader meets it.

The site is built from the committed notebooks (docs/build.py; the explorers' frames are cached in
docs/_build/frames), served on loopback, and the home page, every lesson page and every page of
solutions/ and docs/ are opened. Each must load without a console error or a failed request, have
its math rendered by MathJax (no raw `$$` left in the text), every image loaded, and every link to
another page of the site resolve (the page, and the anchor where the link names one). Every
explorer of every lesson has a frame player, whose controls are inputs of their kind, offer every
value the lesson's text names and switch the picture when moved as a reader moves them (keyboard,
clicks), with alt text and a spoken read-out; at 390 px the figures' text stays legible.

The home page opens on the lessons (within the first screen at 1280x800, before the set-up): a card
for each row of the README's lessons table with its picture (not a thumbnail), its reading and run
times and its Colab link, and the total, the sum of the rows; on a phone one card to a row.

On a phone (390x844) and a tablet (768x1024) the menu, the page's contents and search must work
(tapped, as a reader taps them), and no page may be wider than the screen; on a desktop the menu
button collapses the sidebar. The colours follow the reader's system (light or dark); code cells
have copy buttons; "Download .ipynb" gives the lesson's own notebook; progress bars show where the
recorded run ended; search snippets are the pages' text; the API reference is a page per module;
each arXiv number in a lesson links to its entry on the references page. The build itself fails on
any Sphinx warning (docs/build.py runs it with -W).

Needs Debian's `chromium` and the `playwright` package, as tests/test_browser.py; elsewhere the
module is skipped with the reason. Run it with `make test-site` (part of `make test`).
"""

from __future__ import annotations

import functools
import html
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


def open_page(browser, url: str, **context):
    """The page at `url` once loaded and typeset, with the console errors and failed requests seen;
    `context`: the browser's options for it (viewport, has_touch, color_scheme)."""
    page = browser.new_page(**context)
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


EXPLORER = re.compile(r"widgets\.(\w+_explorer)\(")


def code_of(lesson: str) -> str:
    """The code cells of a lesson's notebook."""
    nb = json.loads((ROOT / "lessons" / f"{lesson}.ipynb").read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def named_values() -> dict:
    """docs/explorers.py's NAMED: the control values each lesson's text names, by explorer."""
    sys.path.insert(0, str(ROOT / "docs"))
    import explorers

    return explorers.NAMED


PLAYER_STATE = """(root) => {
  const img = root.querySelector("img.frame-image");
  return {src: img.getAttribute("src"), alt: img.alt, key: img.dataset.key,
          status: root.querySelector(".frame-status").textContent};
}"""


def check_player(page, player, lesson: str, k: int, name: str) -> None:
    """Explorer `k` of a lesson plays: its controls are inputs of their kind (toggles or a menu for
    a choice, a slider with the value read out for a number, and a play button for training time),
    every value the lesson's text names is among its positions, each move of a control that says it
    moves something switches the picture, its alt names the positions and the figure's titles, and
    a screen reader hears the new picture."""
    manifest = json.loads(player.get_attribute("data-manifest"))
    where = f"{lesson}, explorer {k} ({name})"
    assert player.get_attribute("data-name") == name, f"{where}: the player is another explorer's"
    for control, values in named_values().get(lesson, {}).get(k, {}).items():
        labels = next(c["labels"] for c in manifest["controls"] if c["name"] == control)
        missing = [
            v for v in values if not {str(v), f"{v:g}" if isinstance(v, float) else str(v)} & set(labels)
        ]
        assert not missing, f"{where}: the text names {control} = {missing}; the page offers {labels}"
    moved = 0
    for c in manifest["controls"]:
        row = player.locator(f'.frame-control[data-control="{c["name"]}"]')
        assert row.count() == 1, f"{where}: no row for the control {c['name']}"
        if len(c["labels"]) < 2:
            assert "fixed here" in row.inner_text(), f"{where}: {c['name']} has one position, unsaid"
            continue
        before = page.evaluate(PLAYER_STATE, player.element_handle())
        last = c["labels"][-1] if c["start"] != len(c["labels"]) - 1 else c["labels"][0]
        if c["kind"] == "choice":
            toggles, menu = row.locator("button[role=radio]"), row.locator("select")
            assert toggles.count() + menu.count() > 0, (
                f"{where}: the choice {c['name']} is not toggles or a menu"
            )
            assert row.locator("input[type=range]").count() == 0, (
                f"{where}: the choice {c['name']} is a slider"
            )
            if toggles.count():
                assert toggles.count() == len(c["labels"])
                toggles.nth(c["labels"].index(last)).click()
                assert toggles.nth(c["labels"].index(last)).get_attribute("aria-checked") == "true"
            else:
                menu.select_option(label=last)
        else:
            slider = row.locator("input[type=range]")
            assert slider.count() == 1, f"{where}: the number {c['name']} has no slider"
            assert slider.get_attribute("aria-valuetext") == c["labels"][c["start"]], (
                f"{where}: a screen reader hears {c['name']}'s index, not its value"
            )
            slider.focus()
            page.keyboard.press("End" if last == c["labels"][-1] else "Home")
            assert slider.get_attribute("aria-valuetext") == last
            assert row.locator(".frame-readout").inner_text() == last
            if c["kind"] == "time":
                assert row.locator("button.frame-play").count() == 1, (
                    f"{where}: {c['name']} has no play button"
                )
        page.wait_for_function(
            "([root, key]) => { const i = root.querySelector('img.frame-image');"
            " return i.dataset.key !== key && i.complete && i.naturalWidth > 0; }",
            arg=[player.element_handle(), before["key"]],
            timeout=10_000,
        )
        after = page.evaluate(PLAYER_STATE, player.element_handle())
        assert last in after["alt"] and after["alt"].startswith(name), f"{where}: the alt {after['alt']!r}"
        assert after["status"] == after["alt"], f"{where}: the move is not read out"
        note = row.locator(".frame-note")
        if (
            after["src"] != before["src"]
            and manifest["hashes"][after["key"]] != manifest["hashes"][before["key"]]
        ):
            moved += 1
            assert not note.is_visible(), f"{where}: {c['name']} moved the picture yet says it moves nothing"
    assert moved, f"{where}: no control moved the picture"
    times = [c for c in manifest["controls"] if c["kind"] == "time" and len(c["labels"]) > 1]
    for c in times:  # play from the start: the readout walks on by itself
        row = player.locator(f'.frame-control[data-control="{c["name"]}"]')
        seen = row.locator(".frame-readout").inner_text()
        row.locator("button.frame-play").click()
        assert row.locator("button.frame-play").get_attribute("aria-pressed") == "true"
        page.wait_for_function(
            "([row, seen]) => row.querySelector('.frame-readout').textContent !== seen",
            arg=[row.element_handle(), seen],
            timeout=10_000,
        )
        row.locator("button.frame-play").click()
        assert row.locator("button.frame-play").get_attribute("aria-pressed") == "false"


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_page(site, browser, lesson):
    """A lesson page links to Colab and its source; its checked exercises link to their solutions;
    every explorer plays (`check_player`)."""
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
        alts = page.evaluate("() => [...document.images].map(i => [i.getAttribute('src'), i.alt])")
        unsaid = [src for src, alt in alts if not alt or alt.endswith(".png") or alt == src]
        assert not unsaid, f"{lesson}: pictures without alt text: {unsaid[:3]}"
        explorers = EXPLORER.findall(code_of(lesson))
        players = page.locator(".frame-player")
        assert players.count() == len(explorers), (
            f"{lesson}: {players.count()} players for its {len(explorers)} explorers (make frames)"
        )
        for k, name in enumerate(explorers):
            check_player(page, players.nth(k), lesson, k, name)
        assert not errors, f"{lesson}: " + "; ".join(errors)
    finally:
        page.close()


def test_the_explorers_text_is_legible_on_a_phone(site, browser):
    """At 390 px every explorer's figure is shown no narrower than keeps its smallest text at
    MIN_TEXT_PX (9 px; a wider figure scrolls sideways within its frame, and says so), while the
    page itself stays within the screen."""
    from minivit.widgets.frames import MIN_TEXT_PX

    page = browser.new_page(**PHONE)
    small, wide = [], []
    try:
        for lesson in LESSONS:
            page.goto(f"{site}lessons/{lesson}.html", wait_until="load")
            page.wait_for_function(
                "() => [...document.querySelectorAll('img.frame-image')]"
                ".every(i => i.complete && i.naturalWidth > 0)"
            )
            found = page.evaluate(
                """() => [...document.querySelectorAll('.frame-player')].map(p => {
                  const m = JSON.parse(p.dataset.manifest), img = p.querySelector('img.frame-image');
                  const box = p.querySelector('.frame-figure');
                  return {name: p.dataset.name, shown: img.getBoundingClientRect().width,
                          natural: img.naturalWidth, text: m.text_px,
                          scrolls: box.scrollWidth > box.clientWidth + 1,
                          hint: !p.querySelector('.frame-hint').hidden};
                })"""
            )
            for f in found:
                text = f["text"] * f["shown"] / f["natural"]
                if text < MIN_TEXT_PX - 0.01:
                    small.append(f"{lesson} {f['name']}: {text:.1f} px")
                if f["scrolls"] != f["hint"]:
                    wide.append(f"{lesson} {f['name']}: scrolls {f['scrolls']}, says so {f['hint']}")
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= PHONE["viewport"]["width"], f"{lesson}: the page is {width} px wide on a phone"
        assert not small, f"figure text under {MIN_TEXT_PX} px at 390 px: {small}"
        assert not wide, f"a figure scrolls sideways without saying so (or says so and does not): {wide}"
    finally:
        page.close()


def test_every_lesson_is_a_page(site):
    for lesson in LESSONS:
        assert (HTML / "lessons" / f"{lesson}.html").is_file(), f"lesson {lesson} has no page"
    assert (HTML / "search.html").is_file(), "the site has no search page"
    assert (HTML / "searchindex.js").is_file(), "the site has no search index"


# A phone and a tablet (portrait, touch), and a desktop, as the theme's layouts change at 992 px
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
TABLET = {"viewport": {"width": 768, "height": 1024}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1366, "height": 900}}
SIZES = pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone 390x844", "tablet 768x1024"])


def visible(page, selector: str):
    """The one element matching `selector` that a reader can see (the theme repeats its buttons)."""
    found = page.locator(selector).locator("visible=true")
    assert found.count() == 1, f"{found.count()} visible {selector} on the page"
    return found.first


@SIZES
def test_the_menu_opens_and_leads_to_another_lesson(site, browser, size):
    """The menu button (the primary sidebar's toggle) opens the list of pages; a lesson in it opens."""
    page, errors = open_page(browser, f"{site}lessons/05_rope.html", **size)
    try:
        visible(page, "button.primary-toggle").tap()
        menu = page.locator("#pst-primary-sidebar-modal")
        page.wait_for_function(
            "() => document.querySelector('#pst-primary-sidebar-modal').open", timeout=5_000
        )
        link = menu.locator("a[href='06_alibi.html']")
        assert link.is_visible(), "the menu is open but its lesson list cannot be seen"
        link.tap()
        page.wait_for_url("**/lessons/06_alibi.html", timeout=10_000)
        assert not errors, "; ".join(errors)
    finally:
        page.close()


@SIZES
def test_the_contents_open_and_close(site, browser, size):
    """The contents button (the secondary sidebar's toggle) opens the page's sections; Escape closes it."""
    page, errors = open_page(browser, f"{site}lessons/05_rope.html", **size)
    try:
        visible(page, "button.secondary-toggle").tap()
        page.wait_for_function(
            "() => document.querySelector('#pst-secondary-sidebar-modal').open", timeout=5_000
        )
        sections = page.locator("#pst-secondary-sidebar-modal nav.page-toc a[href^='#']").locator(
            "visible=true"
        )
        assert sections.count() >= 3, f"the contents show {sections.count()} sections"
        page.keyboard.press("Escape")
        page.wait_for_function(
            "() => !document.querySelector('#pst-secondary-sidebar-modal').open", timeout=5_000
        )
        assert not errors, "; ".join(errors)
    finally:
        page.close()


def search_results(page, query: str) -> list[str]:
    """The snippets of the search results for `query`, once the search page has finished."""
    page.wait_for_function(
        "() => /Search finished/.test(document.querySelector('#search-results')?.innerText ?? '')",
        timeout=30_000,
    )
    assert query.lower() in page.url.lower()
    return page.locator("#search-results li p.context").all_inner_texts()


@SIZES
def test_no_page_scrolls_sideways(site, browser, size):
    """On a phone and a tablet every page fits the screen's width: a long word or piece of inline
    code wraps (tables and code blocks scroll within themselves)."""
    page = browser.new_page(**size)
    try:
        wide = {}
        for path in pages():
            page.goto(site + path, wait_until="load")
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > size["viewport"]["width"]:
                wide[path] = width
        assert not wide, f"pages wider than the screen ({size['viewport']['width']} px): {wide}"
    finally:
        page.close()


@SIZES
def test_search_from_a_phone_and_a_tablet(site, browser, size):
    """The search button opens the search field; a query lists pages, each with a snippet of its text."""
    page, errors = open_page(browser, f"{site}lessons/05_rope.html", **size)
    try:
        visible(page, "button.search-button").tap()
        field = visible(page, "input[name=q]")
        field.fill("rotary")
        field.press("Enter")
        snippets = search_results(page, "rotary")
        assert snippets, "no result for 'rotary'"
        assert page.locator("#search-results li").count() >= 3
        assert not errors, "; ".join(errors)
    finally:
        page.close()


@pytest.mark.parametrize("query", ["rope", "sinusoid", "probe"])
def test_search_snippets_are_the_pages_text(site, browser, query):
    """A result's snippet is text of the page (near the word looked for), not the page's menus."""
    page, errors = open_page(browser, f"{site}search.html?q={query}", **DESKTOP)
    try:
        snippets = search_results(page, query)
        assert len(snippets) >= 3, f"{query}: {len(snippets)} snippets"
        menus = [s for s in snippets if re.search(r"System\s+Settings|Light\s+Dark|\.ipynb\s+\.pdf", s)]
        assert not menus, f"{query}: snippets made of the page's menus: {menus[:2]}"
        near = [s for s in snippets if query in s.lower()]
        assert len(near) >= len(snippets) // 2, f"{query}: snippets without the word: {snippets[:3]}"
        assert not errors, "; ".join(errors)
    finally:
        page.close()


def test_on_a_desktop_the_menu_button_collapses_the_sidebar(site, browser):
    page, errors = open_page(browser, f"{site}lessons/05_rope.html", **DESKTOP)
    try:
        sidebar = page.locator("#pst-primary-sidebar")
        assert sidebar.is_visible()
        toggle = visible(page, "button.primary-toggle")
        toggle.click()
        page.wait_for_function(
            "() => getComputedStyle(document.querySelector('#pst-primary-sidebar')).visibility === 'hidden'",
            timeout=5_000,
        )
        toggle.click()
        page.wait_for_function(
            "() => getComputedStyle(document.querySelector('#pst-primary-sidebar')).visibility === 'visible'",
            timeout=5_000,
        )
        assert not errors, "; ".join(errors)
    finally:
        page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_colours_follow_the_readers_system(site, browser, scheme):
    page, _ = open_page(browser, f"{site}index.html", color_scheme=scheme)
    try:
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
    finally:
        page.close()


def test_code_has_copy_buttons_and_outputs_none(site, browser):
    page, errors = open_page(browser, f"{site}lessons/05_rope.html")
    try:
        inputs = page.locator("div.cell_input div.highlight pre").count()
        buttons = page.locator("div.cell_input button.copybtn").count()
        assert inputs > 10 and buttons == inputs, f"{buttons} copy buttons for {inputs} code cells"
        assert page.locator("div.cell_output button.copybtn").count() == 0, "a copy button on an output"
        assert not errors, "; ".join(errors)
    finally:
        page.close()


@pytest.mark.parametrize("lesson", [LESSONS[0], "05_rope"])
def test_download_gives_the_lessons_own_notebook(site, browser, lesson):
    page, _ = open_page(browser, f"{site}lessons/{lesson}.html")
    try:
        link = page.locator(f"a[href$='_sources/lessons/{lesson}.ipynb']")
        assert link.count() >= 1, f"{lesson}: no download link to its notebook"
        body = page.request.get(link.first.evaluate("a => a.href")).body()
        assert body == (ROOT / "lessons" / f"{lesson}.ipynb").read_bytes(), f"{lesson}: not its own notebook"
    finally:
        page.close()


def test_progress_bars_show_where_the_run_ended(site):
    """A training's progress bar (a tqdm widget, gone on a static page) shows its last state, as the
    notebook saved it, not its first ("0%| | 0/625")."""
    bars = 0
    for lesson in LESSONS:
        text = (HTML / "lessons" / f"{lesson}.html").read_text()
        frozen = re.findall(r"\s0%\|\s*\|\s*0/\d+", text)
        assert not frozen, f"{lesson}: {len(frozen)} progress bars at 0%"
        bars += len(re.findall(r"\d+%\|\u2588+\s*\|\s*\d+/\d+", text))
    assert bars >= 30, f"{bars} finished progress bars on the lesson pages"


def test_the_api_reference_is_a_page_per_module(site):
    """docs/api.md's modules each get a page (linked from the reference's page, which lists them);
    no page holds the whole package, and a module's plain-text formulas keep their lines."""
    modules = re.findall(r"automodule:: (minivit[\w.]*)", (ROOT / "docs" / "api.md").read_text())
    index = (HTML / "docs" / "api.html").read_text()
    for module in modules:
        page = HTML / "docs" / "api" / f"{module}.html"
        assert page.is_file(), f"{module} has no page"
        assert f'id="module-{module}"' in page.read_text(), f"{module}'s page does not document it"
        assert f'href="api/{module}.html"' in index, f"the API reference does not link {module}'s page"
    sizes = {
        p.name: p.stat().st_size
        for p in [HTML / "docs" / "api.html", *(HTML / "docs" / "api").glob("*.html")]
    }
    assert max(sizes.values()) < 400_000, f"an API page of {max(sizes.values())} bytes"
    assert "typing.Annotated" not in (HTML / "docs" / "api" / "minivit.checks.html").read_text()
    liere = (HTML / "docs" / "api" / "minivit.posenc.liere.html").read_text()
    blocks = [html.unescape(re.sub(r"<[^>]+>", "", b)) for b in re.findall(r"<pre>(.*?)</pre>", liere, re.S)]
    formula = "R(x) = exp(x_r A_1 + x_c A_2),   A_1, A_2 skew-symmetric (A^T = -A), learned,"
    assert any(formula in b for b in blocks), "liere's formula is not shown as written"


def test_citations_link_to_the_references(site):
    """Each "arXiv NNNN.NNNNN" in a lesson's text links to its entry on the references page, which
    links to the paper on arxiv.org."""
    references = (HTML / "docs" / "references.html").read_text()
    for lesson in LESSONS:
        cells = json.loads((ROOT / "lessons" / f"{lesson}.ipynb").read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        page = (HTML / "lessons" / f"{lesson}.html").read_text()
        for number in sorted(set(re.findall(r"arXiv:? ?(\d{4}\.\d{4,5})", text))):
            label = "arxiv-" + number.replace(".", "-")
            assert f'references.html#{label}"' in page, f"{lesson}: arXiv {number} not linked"
            assert f'id="{label}"' in references, f"the references have no entry for arXiv {number}"
            assert f"https://arxiv.org/abs/{number}" in references
    sys.path.insert(0, str(ROOT / "docs"))
    import build

    unsaid = sorted(n for n, entry in build.citations().items() if not entry["by"])
    assert not unsaid, f"references with no authors (name them before the number, 'Su et al. 2021'): {unsaid}"


def lesson_cards(page) -> list[dict]:
    """The home page's lesson cards as a reader sees them: each one's lesson link, picture (its
    rendered box and whether it loaded), times, Colab link and place on the page."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.lesson-cards .lesson-card')].map(card => {
            const img = card.querySelector('img');
            const box = img ? img.getBoundingClientRect() : null;
            const links = [...card.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
            return {
                top: card.getBoundingClientRect().top + window.scrollY,
                links,
                colab: links.filter(h => h.includes('colab.research.google.com')),
                picture: img ? {top: box.top + window.scrollY, width: box.width,
                                loaded: img.complete && img.naturalWidth > 0, alt: img.alt} : null,
                times: card.querySelector('.lesson-times')?.innerText ?? '',
            };
        })"""
    )


def test_the_home_page_opens_on_the_lessons_each_with_its_picture_times_and_colab(site, browser):
    """At 1280x800 the lessons start within the first screen, before the set-up; each lesson of the
    README's table has a card with its picture (as wide as its card, the card half the page's width
    at most two to a row), its reading and run times and its Colab link, as the README's row says."""
    from tests.test_readme import rows

    table = rows()
    page, errors = open_page(browser, f"{site}index.html", viewport={"width": 1280, "height": 800})
    try:
        cards = lesson_cards(page)
        assert len(cards) == len(LESSONS), (
            f"{len(cards)} lesson cards on the home page for {len(LESSONS)} lessons"
        )
        first = cards[0]["picture"]
        assert first and first["top"] < 800 - 100, (
            f"the first lesson's picture starts {first and first['top']:.0f} px down: not in the first screen"
        )
        start = page.evaluate("() => document.getElementById('start').getBoundingClientRect().top + scrollY")
        assert start > cards[-1]["top"], "the set-up (Start) comes before the lessons"
        article = page.evaluate("() => document.querySelector('article.bd-article').clientWidth")
        for lesson, card in zip(LESSONS, cards, strict=True):
            title, reading, run, colab = table[f"{lesson}.ipynb"]
            assert f"lessons/{lesson}.html" in card["links"], f"card for {lesson} links {card['links']}"
            picture = card["picture"]
            assert picture and picture["loaded"], f"{lesson}'s card has no picture that loads"
            assert picture["alt"].strip() and not picture["alt"].endswith(".png"), (
                f"{lesson}: alt {picture['alt']!r}"
            )
            assert picture["width"] >= 0.4 * article, (
                f"{lesson}'s picture is {picture['width']:.0f} px wide on a {article} px page: a thumbnail"
            )
            assert card["times"] == f"{reading} min reading · {run} s run", f"{lesson}: {card['times']!r}"
            assert card["colab"] == [colab], f"{lesson}'s Colab link is {card['colab']}, the README's {colab}"
        assert not errors, "; ".join(errors)
    finally:
        page.close()


def test_the_home_pages_total_is_the_sum_of_its_lessons(site, browser):
    from tests.test_readme import rows

    table = rows().values()
    reading, run = sum(r[1] for r in table), sum(r[2] for r in table)
    page, _ = open_page(browser, f"{site}index.html")
    try:
        times = [
            re.fullmatch(r"(\d+) min reading · (\d+) s run", t)
            for t in page.locator(".lesson-times").all_inner_texts()
        ]
        assert len(times) == len(table) and all(times), "a card without its times"
        shown = (sum(int(t[1]) for t in times), sum(int(t[2]) for t in times))
        assert shown == (reading, run), f"the cards add up to {shown}, the README's table to {reading, run}"
        total = page.locator(".lesson-total").inner_text()
        said = f"All {len(table)} lessons: {reading} min of reading"
        assert said in total and f"and {run} s of runs" in total, (
            f"the total says {total!r}: sums {reading}, {run}"
        )
    finally:
        page.close()


def test_on_a_phone_the_home_pages_lessons_are_one_column_of_full_width_pictures(site, browser):
    page, errors = open_page(browser, f"{site}index.html", **PHONE)
    try:
        width = PHONE["viewport"]["width"]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width, (
            "the page scrolls sideways"
        )
        cards = lesson_cards(page)
        assert len(cards) == len(LESSONS)
        tops = [c["top"] for c in cards]
        assert tops == sorted(tops) and len(set(tops)) == len(tops), "the cards are not one column"
        narrow = {
            lesson: round(c["picture"]["width"])
            for lesson, c in zip(LESSONS, cards, strict=True)
            if c["picture"]["width"] < 0.75 * width
        }
        assert not narrow, f"pictures narrower than 3/4 of a {width} px screen: {narrow}"
        assert not errors, "; ".join(errors)
    finally:
        page.close()
