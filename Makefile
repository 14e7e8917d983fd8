PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo test test-long typecheck unit bench clean

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

test: typecheck unit

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .hypothesis
