PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo test test-long test-gpu typecheck unit bench clean array-api

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,bench]"
	touch $(STAMP)

# the demo extra (matplotlib, scikit-learn) is for `make demo` alone: `make test` never needs it
$(DEMO_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[dev,bench,demo]"
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(PY) -m examples

typecheck: $(STAMP)
	$(PY) -m mypy src tests benchmarks examples

# one pytest worker per core (pytest-xdist): the suite is CPU-bound; an idle
# worker takes tests from a busy one's queue (worksteal), so the slow
# JAX-oracle properties do not leave one core waiting at the end
unit: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(PY) -m pytest -n auto --dist worksteal

test-long: $(STAMP)
	HYPOTHESIS_PROFILE=long $(PY) -m pytest -n auto

# mypy (one core, ~30 s) runs beside the tests, not before them, where it
# would leave the second core idle for its whole run
test: $(STAMP)
	$(MAKE) --no-print-directory -j2 typecheck unit

# the suite with typedax on the GPU (JAX, the oracle, picks its own default:
# the same GPU where its CUDA plugin is installed). Several workers share the
# GPU: each process allocates on demand instead of preallocating 75% of it.
# GPU_PYTHON: an interpreter that has the CUDA plugin (no venv is made).
GPU_PYTHON ?= $(PY)
GPU_WORKERS ?= 4
# -rfE: the failures' one-line summary at the end (pytest -q prints only an F
# per failure as it goes). The tests of JAX 0.10.2's surface (pinned_jax) skip
# where the GPU machine has another JAX; mypy and array-api-compat/-extra (the
# dev extra) are needed there too.
test-gpu:
	TYPEDAX_PLATFORM=cuda XLA_PYTHON_CLIENT_PREALLOCATE=false HYPOTHESIS_PROFILE=ci \
		$(GPU_PYTHON) -m pytest -n $(GPU_WORKERS) --dist worksteal -rfE $(GPU_TESTS)

# the array API conformance suite (data-apis/array-api-tests, not part of
# `make test`: it takes minutes) against typedax.numpy and jax.numpy, module by
# module, 20 examples a test, derandomized, complex dtypes skipped; prints the
# table of docs/array-api.md. ARRAY_API_TESTS: a checkout of the suite with its
# array-api submodule (git clone --recursive https://github.com/data-apis/array-api-tests)
ARRAY_API_TESTS ?= ../array-api-tests
array-api: $(STAMP)
	$(PY) tools/array_api.py $(ARRAY_API_TESTS) --out array-api-results

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .hypothesis
