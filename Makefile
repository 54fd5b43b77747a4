# The two commands of the README: `make run` and `make test`. Each bootstraps .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Compiled modules are written and read again: the tests start four pytest workers and dozens of
# `python -m bot` processes, and with PYTHONDONTWRITEBYTECODE set (some environments set it) each
# of them compiled every module of the project and rewrote every test again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test lint typecheck pytest simulate bench soak clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

# The checks run beside the tests, at the lowest priority: they take the CPU the tests leave idle
# (waiting on subprocesses, a browser, timers) instead of adding their time before the tests.
# Their output is shown after the tests'; either failing fails `make test`.
test: $(STAMP)
	@log=$$(mktemp); \
	(nice -n 19 $(MAKE) -k --no-print-directory lint typecheck >$$log 2>&1) & checks=$$!; \
	$(MAKE) --no-print-directory pytest; tests=$$?; \
	wait $$checks; checked=$$?; cat $$log; rm -f $$log; \
	[ $$checked -eq 0 ] || echo "make test: lint or typecheck failed (above)"; \
	[ $$tests -eq 0 ] && [ $$checked -eq 0 ]

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy games bot

# Three workers a core: many tests wait on a subprocess, a browser or a timer, and more workers
# fill that time (on 2 cores, pytest: 4:21 with one worker a core, 2:39 with two, 2:17 with three).
# Twelve at most: each worker may start its own PostgreSQL server, bots and a browser.
# On a fresh clone the tests are collected once first, so that the workers find them rewritten and
# compiled instead of each doing it at the same moment (warm, the step is skipped).
pytest: $(STAMP)
	@test -d tests/__pycache__ || $(BIN)/python -m pytest -q --collect-only >/dev/null 2>&1 || true
	$(BIN)/python -m pytest -q -n $$(( $$(nproc) * 3 > 12 ? 12 : $$(nproc) * 3 ))

simulate: $(STAMP)
	$(BIN)/python -m bot simulate --game all --players 4 --games 50 --seed 1

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/store.py
	$(BIN)/python bench/bot.py
	$(BIN)/python bench/stats.py

soak: $(STAMP)
	$(BIN)/python bench/soak.py
	$(BIN)/python bench/soak.py --processes 2

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
