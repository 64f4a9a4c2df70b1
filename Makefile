# `make demo` and `make test` each build .venv on first use; Python 3.11+ is all they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	$(BIN)/python examples/fit_polynomial.py

test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples

clean:
	rm -rf $(VENV) build dist .pytest_cache .hypothesis
