# `make demo` and `make test` each build .venv on first use; Python 3.11+ is all they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo demo-distributed test test-thorough lint clean system-deps coverage

# `pip install -e .` compiles these with Cython (setup.py), so an install is redone when one of them changes;
# the list is src/glassgrad/_native.py's, and the .pxd files beside them give their C types.
CORE_SOURCES := $(shell $(PYTHON) -c 'import runpy; print(*("src/" + m.replace(".", "/") + ".py" for m in runpy.run_path("src/glassgrad/_native.py")["COMPILED_MODULES"]))')
INSTALL_INPUTS := pyproject.toml setup.py src/glassgrad/_native.py $(CORE_SOURCES) $(wildcard src/glassgrad/*.pxd src/glassgrad/*/*.pxd src/glassgrad/*/*.pyx)
# pip shows setup.py's line about a failed compile only with -v; after an install, this says it in one line.
SAY_CORE_PATH = $(1) -c 'import glassgrad; glassgrad._compiled or print("glassgrad: no compiled core was built (no working C compiler?); the pure-Python path runs")'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(INSTALL_INPUTS) | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	$(call SAY_CORE_PATH,$(BIN)/python)
	touch $@

$(VENV)/.installed-test: $(INSTALL_INPUTS) | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	$(call SAY_CORE_PATH,$(BIN)/python)
	touch $(VENV)/.installed $@

$(VENV)/.installed-demo: $(INSTALL_INPUTS) | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[demo]'
	$(call SAY_CORE_PATH,$(BIN)/python)
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed-demo
	$(BIN)/python examples/digits_cnn.py

$(VENV)/.installed-distributed: $(INSTALL_INPUTS) | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[demo,distributed]'
	$(call SAY_CORE_PATH,$(BIN)/python)
	touch $(VENV)/.installed $@

# The digits convnet trained on 2 MPI processes against 1 (MPICH and mpi4py come from PyPI).
demo-distributed: $(VENV)/.installed-distributed
	$(BIN)/python examples/digits_ddp.py

# The whole suite on the compiled core, then the pure-Python path (GLASSGRAD_PURE=1, the same sources run by the
# interpreter) on the tests of what the core compiles: every derivative-table entry's gradcheck and forward-mode
# check, autograd, functorch transforms, diagnostics (creation sites walk frames), operators, views and in-place
# ops, optimizers and ReLU (the NumPy routes of the compiled loops), tensors in shared memory (share_memory_ lives in
# the compiled tensor), and the switch itself. About 2 minutes; the whole suite twice would take 12. The
# diagnostics' tests of the doctor on real PyTorch (its side effects on real libraries, the Jupyter kernel) run no
# glassgrad op, so they run once, on the compiled pass.
PURE_PATH_TESTS := tests/test_native.py tests/autograd tests/func tests/diagnostics tests/optim \
	--ignore=tests/diagnostics/test_doctor_side_effects.py --ignore=tests/diagnostics/test_ipython.py \
	tests/ops/test_core_ops.py tests/ops/test_operators.py tests/ops/test_subscript.py tests/ops/test_inplace_extra.py \
	tests/ops/test_strided_extra.py tests/ops/test_loops.py tests/nn/test_layers.py tests/libraries/test_low_precision_dtypes.py \
	tests/libraries/test_shared_memory.py
PURE_PATH_OP_CHECKS := test_gradcheck or test_forward_mode

# pytest-xdist runs each pass in this many processes: CI has 2 cores and one pytest process keeps only one of them
# busy. TEST_WORKERS=0 runs everything in one process (for debugging).
TEST_WORKERS ?= 2

test: $(VENV)/.installed-test system-deps
	$(BIN)/ruff check src tests examples tools
	$(BIN)/python -m pytest -n $(TEST_WORKERS)
	GLASSGRAD_PURE=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) $(PURE_PATH_TESTS)
	GLASSGRAD_PURE=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) tests/ops/test_op_properties.py -k "$(PURE_PATH_OP_CHECKS)"

# The same suite drawing new hypothesis examples every run (500 per property): for exploring, not for CI.
test-thorough: $(VENV)/.installed-test system-deps
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest

# Graphviz lays out exported graphs and headless Chromium checks the HTML report; both are Debian
# packages, installed here when missing and when apt-get can run (as root). Elsewhere the tests
# that need them are skipped with a reason.
system-deps:
	@if command -v dot >/dev/null && command -v chromium >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing graphviz and chromium (Debian packages) for the rendering tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz chromium >/dev/null; \
	else echo "note: graphviz or chromium is missing; the rendering tests will be skipped"; fi

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests examples tools

# How much of PyTorch 2.13's public API glassgrad has, over every public submodule of torch (docs/coverage.md explains
# the counting); COVERAGE_ARGS passes options, e.g. make coverage COVERAGE_ARGS="--list lacking" or "--namespace torch.random".
COVERAGE_ARGS ?=

coverage: $(VENV)/.installed-test
	$(BIN)/python tools/coverage.py $(COVERAGE_ARGS)

clean:
	rm -rf $(VENV) build dist .pytest_cache .hypothesis
	find src -name '*.so' -delete

# `make bench` builds bench/.venv (glassgrad editable + PyTorch 2.13.0, HIPS autograd, MyGrad)
# and runs bench/run.py; BENCH_ARGS passes options, e.g. make bench BENCH_ARGS="--quick --only W1,W6".
BENCH_VENV := bench/.venv
BENCH_BIN := $(BENCH_VENV)/bin
BENCH_ARGS ?=

.PHONY: bench

$(BENCH_BIN)/python:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_BIN)/pip install --quiet --upgrade pip

$(BENCH_VENV)/.installed: $(INSTALL_INPUTS) bench/requirements.txt | $(BENCH_BIN)/python
	$(BENCH_BIN)/pip install --quiet -e . -r bench/requirements.txt
	$(call SAY_CORE_PATH,$(BENCH_BIN)/python)
	touch $@

bench: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/run.py $(BENCH_ARGS)

.PHONY: bench-diagnostics
bench-diagnostics: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/diagnostics_overhead.py

.PHONY: bench-torch-glass
bench-torch-glass: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/torch_glass_overhead.py

.PHONY: bench-forward-hessian
bench-forward-hessian: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/forward_hessian.py

# transformers and Lightning scripts (examples/libraries) on glassgrad and PyTorch; needs the test extra's libraries
.PHONY: bench-libraries
bench-libraries: $(VENV)/.installed-test
	$(BIN)/python bench/libraries.py

.PHONY: bench-ddp
bench-ddp: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/ddp_scaling.py

.PHONY: bench-gemm
bench-gemm: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/gemm_orientation.py $(BENCH_ARGS)

.PHONY: bench-per-sample-grads
bench-per-sample-grads: $(BENCH_VENV)/.installed
	$(BENCH_BIN)/python bench/per_sample_grads.py $(BENCH_ARGS)

# The doctor on real PyTorch against the plain loop: tiny GPT-2 and BERT (transformers), a Lightning fit, a CNN under
# activation checkpointing, and leaking loops (bench/doctor_overhead.py; transformers and lightning come with .[test]).
.PHONY: bench-doctor
bench-doctor: $(VENV)/.installed-test
	$(BIN)/python bench/doctor_overhead.py $(BENCH_ARGS)
	$(BIN)/python -m glassgrad.cli run bench/doctor_overhead.py $(BENCH_ARGS)
