# Every target is idempotent: the venv is built once and reinstalled only when setup.cfg changes.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP_BASE := $(VENV)/.installed-base
STAMP_TEST := $(VENV)/.installed-test
JOBS ?= 2

.PHONY: demo test lint bench bench-quick enzyme-tests fixtures tutorials clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP_BASE): setup.cfg pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	touch $@

$(STAMP_TEST): setup.cfg pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $@ $(STAMP_BASE)

demo: $(STAMP_TEST)
	$(PY) -m enzyme_py demo

test: $(STAMP_TEST)
	$(PY) -m ruff check enzyme_py tests benchmarks
	$(PY) -m pytest -n $(JOBS) -q tests

lint: $(STAMP_TEST)
	$(PY) -m ruff check enzyme_py tests benchmarks

bench: $(STAMP_TEST)
	$(PY) benchmarks/run_all.py

bench-quick: $(STAMP_TEST)
	$(PY) benchmarks/run_all.py --quick

# Enzyme's own integration tests (ENZYME_INTEGRATION_TESTS=<Enzyme>/enzyme/test/Integration)
enzyme-tests: $(STAMP_BASE)
	$(PY) benchmarks/enzyme_suite.py -j $(JOBS)

fixtures: $(STAMP_BASE)
	$(PY) tests/corpus/regen.py

tutorials: $(STAMP_TEST)
	$(PY) tutorials/build.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
