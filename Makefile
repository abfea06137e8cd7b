# Two commands for a fresh clone (needs only Python >= 3.10 with pip and venv):
#   make lab    set everything up in .venv and open the course in JupyterLab
#   make test   set everything up in .venv and run every test (unit tests, lint, nbval on every lesson,
#               every lesson in JupyterLab in headless Chromium)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test test-browser lint lessons clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[dev]"
	touch $(STAMP)

# as root (containers, some cloud machines) JupyterLab refuses to start without --allow-root
lab: $(STAMP)
	$(BIN)/jupyter lab lessons/ $(if $(filter 0,$(shell id -u)),--allow-root,)

test: $(STAMP) lint
	$(BIN)/python -m pytest

# only the browser tests: the lessons in JupyterLab in headless Chromium (needs Debian's chromium)
test-browser: $(STAMP)
	$(BIN)/python -m pytest -m browser tests/test_browser.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check minivit tests benchmarks

# After editing a lesson's .py: update its .ipynb pair and re-run it top to bottom with outputs.
lessons: $(STAMP)
	for py in lessons/[0-9][0-9]_*.py; do \
		$(BIN)/jupytext --to ipynb --update "$$py" && \
		$(BIN)/jupyter nbconvert --to notebook --execute --inplace "$${py%.py}.ipynb" || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
