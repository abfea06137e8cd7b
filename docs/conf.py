"""Sphinx configuration of the course's website. Build it with `make site` (docs/build.py writes the
sources to docs/_build/src and runs Sphinx on them with this file); serve it with `make serve`.

Sphinx with MyST-NB and the book theme: the notebooks are read as they are committed (execution off:
their outputs are the recorded clean run), MyST reads the Markdown pages, autodoc writes the API
reference from the package's docstrings, and everything the pages load is served with them (MathJax
from sphinx-mathjax-offline, no font or script from the internet), so the site works offline.
"""

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
html_css_files = ["frames.css"]
html_js_files = ["frames.js"]
html_extra_path = ["_build/extra"]  # the explorers' frames (docs/explorers.py)
html_theme_options = {
    "repository_url": f"https://github.com/{REPOSITORY}",
    "use_repository_button": True,
    "show_toc_level": 2,
    "navigation_with_keys": True,
}
html_favicon = "_static/favicon.png"
html_context = {"default_mode": "light"}  # the theme's light/dark switch starts at a valid mode

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}


def plain_docstring(app, what, name, obj, options, lines):
    """The package's docstrings are plain text, not reStructuredText: keep a `|` or a `*` from being
    read as a substitution or as emphasis."""
    for i, line in enumerate(lines):
        lines[i] = line.replace("|", "\\|").replace("*", "\\*")


def setup(app):
    app.connect("autodoc-process-docstring", plain_docstring)
