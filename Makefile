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

# `make bench` builds bench/.venv (glassgrad editable + PyTorch 2.13.0, HIPS autograd, MyGrad)
# and runs bench/run.py; BENCH_ARGS passes options, e.g. make bench BENCH_ARGS="--quick --only W1,W6".
BENCH_VENV := bench/.venv
BENCH_BIN := $(BENCH_VENV)/bin
BENCH_ARGS ?=

.PHONY: bench

$(BENCH_BIN)/python:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_BIN)/pip install --quiet --upgrade pip

$(BENCH_VENV)/.installed: pyproject.toml bench/requirements.txt | $(BENCH_BIN)/python
	$(BENCH_BIN)/pip install --quiet -e . -r bench/requirements.txt
	touch $@

bench: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/run.py $(BENCH_ARGS)
