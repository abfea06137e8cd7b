"""Sphinx configuration of the course's website. Build it with `make site` (docs/build.py writes the
sources to docs/_build/src and runs Sphinx on them with this file); serve it with `make serve`.

Sphinx with MyST-NB and the book theme: the notebooks are read as they are committed (execution off:
their outputs are the recorded clean run), MyST reads the Markdown pages, autodoc writes the API
reference from the package's docstrings, and everything the pages load is served with them (MathJax
from sphinx-mathjax-offline, no font or script from the internet), so the site works offline.
"""

import re

from minivit.lesson import REPOSITORY  # the one place the course's repository is named

project = "minivit"
author = "the minivit authors"
copyright = "the minivit authors, MIT license"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx_design",
    "sphinx-mathjax-offline",  # MathJax 3 copied into the site: math renders without the internet
    "sphinx_copybutton",  # a copy button on each block of code
]

# the notebooks are not run: their outputs are the committed seed-0 run
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image", "attrs_inline"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "misc.highlighting_failure", "mystnb.unknown_mime_type"]

exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "sphinx_book_theme"
html_title = "minivit: how Vision Transformers know where things are"
html_static_path = ["_static"]
html_css_files = ["frames.css", "site.css", "home.css"]  # home.css: the lessons on the home page
html_js_files = ["frames.js", "site.js"]  # site.js: the phone menu, search snippets
html_extra_path = ["_build/extra"]  # the explorers' frames (docs/explorers.py)
html_theme_options = {
    "repository_url": f"https://github.com/{REPOSITORY}",
    "use_repository_button": True,
    "show_toc_level": 2,
    "navigation_with_keys": True,
}
html_favicon = "_static/favicon.png"
html_context = {"default_mode": "auto"}  # light or dark as the reader's system is, until they choose

# a copy button on the code a reader runs, not on the outputs (nor the prompts of a console session)
copybutton_selector = "div.highlight pre:not(.cell_output pre)"
copybutton_exclude = ".linenos, .gp, .go"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_inherit_docstrings = False  # a method without its own docstring shows none, not torch's
autodoc_default_options = {"members": True, "undoc-members": False}


# Google-style sections, which napoleon turns into fields; the text around them is plain
SECTION = re.compile(
    r"(Args|Arguments|Parameters|Keyword Args|Other Parameters|Returns?|Raises|Yields?|Examples?|Notes?|"
    r"Attributes|Warnings?|See Also|References):$"
)

RETURNS = re.compile(r"(Returns|Yields):$")
NAMED = re.compile(r"\s*[\w, ]+: ")  # "score: in [0, 1] ...", "r2, accuracy: ..."
ITEM = re.compile(r"\s*(?:[-*]|\d+[.)]) +")  # "- ", "* ", "1. ", "2) "


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip())


def plain_blocks(app, what, name, obj, options, lines):
    """The package's docstrings are plain text, not reStructuredText: an indented block (a formula,
    a table of names) is shown as it is written (a literal block), a list of "- " items is a list,
    and each is set apart by blank lines so that docutils reads no stray indentation. Google-style
    sections are left to napoleon (this runs before it)."""
    out: list[str] = []
    section = None  # the indentation of the Google-style section being passed over
    bullet = None  # the indentation of the text of the "- " item being read
    base = 0  # the indentation of the text being read
    i = 0
    while i < len(lines):
        line = lines[i]
        indent = indentation(line)
        if line.strip() and section is not None and indent <= section:
            section = None
        if section is not None or not line.strip():
            out.append(line)
            i += 1
            continue
        after = next((x for x in lines[i + 1 :] if x.strip()), "")
        if RETURNS.match(line.strip()) and NAMED.match(after) and indentation(after) > indent:
            out += [*([""] if out and out[-1].strip() else []), line.rstrip() + ":"]  # "Returns::"
            i += 1  # its "name: what" lines, shown as written (napoleon would read the names as types)
            continue
        if SECTION.match(line.strip()):
            section, bullet, base = indent, None, indent
            if out and out[-1].strip():
                out.append("")
            out.append(line)
            i += 1
            continue
        if bullet is not None and indent == bullet:  # an item's next line
            out.append(line)
            i += 1
            continue
        if out and indent > base:  # an indented block: shown as written
            block = []
            while i < len(lines) and (not lines[i].strip() or indentation(lines[i]) > base):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            if not out[-1].rstrip().endswith("::"):  # "Returns::" opens its block itself
                out += [*([""] if out[-1].strip() else []), " " * base + "::"]
            out += ["", *block, ""]
            bullet = None
            continue
        item = ITEM.match(line)
        if out and out[-1].strip() and (item or bullet is not None):
            out.append("")  # a list starts, ends or has its next item: a blank line before
        bullet = item.end() if item else None
        base = indent
        out.append(line)
        i += 1
    lines[:] = out


def plain_docstring(app, what, name, obj, options, lines):
    """Keep a `|` or a `*` of the plain text from being read as a substitution or as emphasis (not
    in a literal block, which shows it as written)."""
    literal = None  # the indentation of the "::" that opened the literal block being passed over
    for i, line in enumerate(lines):
        if line.strip() and literal is not None and indentation(line) <= literal:
            literal = None
        if line.rstrip().endswith("::"):
            literal = indentation(line)
        elif literal is None:
            lines[i] = line.replace("|", "\\|").replace("*", "\\*")


def own_members_only(app, what, name, obj, skip, options):
    """A name a module imports from outside the package (`typing.Annotated` in a module's `__all__`)
    is not the package's to document."""
    module = getattr(obj, "__module__", None)
    if isinstance(module, str) and not module.startswith("minivit"):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", plain_blocks, priority=400)  # before napoleon (500)
    app.connect("autodoc-process-docstring", plain_docstring)
    app.connect("autodoc-skip-member", own_members_only)
