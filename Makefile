# Two commands for a fresh clone (needs only Python >= 3.10 with pip and venv):
#   make lab    set everything up in .venv and open the course in JupyterLab
#   make test   set everything up in .venv and run every test (unit tests, lint, nbval on every lesson,
#               every lesson in JupyterLab in headless Chromium, every lesson with two more seeds, the website)
# and for the website: make site (build it into docs/_build/html), make serve (build and serve it)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test test-seeds test-browser test-site site serve frames lint lessons clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[dev]"
	touch $(STAMP)

# as root (containers, some cloud machines) JupyterLab refuses to start without --allow-root
lab: $(STAMP)
	$(BIN)/jupyter lab lessons/ $(if $(filter 0,$(shell id -u)),--allow-root,)

# Every lesson runs twice, each time with another seed and thread count than the committed run's (seed
# 0, two threads): under nbval with seed 1, then in JupyterLab in headless Chromium with seed 2, each
# on one thread, two lessons at a time on two cores. The unit tests run on two workers, one thread each.
test: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not browser" tests
	$(MAKE) test-seeds
	$(MAKE) test-browser
	$(MAKE) test-site

# The seed check: every lesson under nbval with another seed than the committed run's (seed 0) and
# another thread count (1, where it ran on 2). Each assert must still hold, and each output nbval
# compares must come out as committed (a compared output may not depend on the seed, the thread
# count or the machine). The browser tests are the third seed: seed 2, one thread. MINIVIT_STRICT=1: a
# claim that misses fails the check (a learner's run shows a warning block and goes on instead).
test-seeds: $(STAMP)
	MINIVIT_STRICT=1 MINIVIT_SEED=1 MINIVIT_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n 2 --dist loadfile lessons

# only the browser tests: the lessons in JupyterLab in headless Chromium (needs Debian's chromium),
# each lesson with the third seed (2; a failing assert is a cell error), two lessons at a time, each
# with its own server and one thread (the lessons' small models gain little from a second thread,
# and one lesson's browser waits overlap the other's compute)
test-browser: $(STAMP)
	MINIVIT_STRICT=1 MINIVIT_SEED=2 MINIVIT_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n 2 --dist load -m browser tests/test_browser.py

# The website: the committed notebooks (not re-run), solutions/, docs/*.md and the API reference, built
# offline with Sphinx and MyST-NB into docs/_build/html; every lesson's explorers as frames: drawn
# at build time where it needs no training (docs/explorers.py, cached in docs/_build/frames), else
# recorded by a run of the lesson (docs/frames/, committed; `make frames` after such a lesson changes)
site: $(STAMP)
	$(BIN)/python docs/build.py

serve: $(STAMP)
	$(BIN)/python docs/build.py --serve

# the frames of the explorers that show a trained model: each such lesson run top to bottom with the
# committed run's seed and threads (0, 2), every explorer writing its frames into docs/frames/NN/
frames: $(STAMP)
	$(BIN)/python docs/explorers.py --record

# the website in headless Chromium (builds it first): every page loads without a console error, its
# math typeset, its images loaded and its links resolved; an explorer's slider switches its picture
test-site: $(STAMP)
	$(BIN)/python -m pytest -m browser tests/test_site.py

# lint, and every lesson's pair still the same cells (`ruff check --fix` on a lesson's .py alone leaves
# its .ipynb as it was: `jupytext --to ipynb --update lessons/NN_topic.py` carries the .py's cells
# into its notebook; re-run it if code changed)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check minivit tests benchmarks
	$(BIN)/python -m pytest -q tests/test_lessons.py -k test_pair_holds_the_same_cells

# After editing a lesson's .py: update its .ipynb pair and re-run it top to bottom with outputs.
lessons: $(STAMP)
	for py in lessons/[0-9][0-9]_*.py; do \
		$(BIN)/jupytext --to ipynb --update "$$py" && \
		$(BIN)/jupyter nbconvert --to notebook --execute --inplace "$${py%.py}.ipynb" || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache docs/_build
