# The two commands of the README: `make run` and `make test`. Each bootstraps .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest simulate bench soak clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy games bot

# Two workers a core: many tests wait on a subprocess, a browser or a timer, and a second worker
# per core fills that time (on 2 cores: 4:21 with one worker a core, 3:14 with two).
pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n $$(( $$(nproc) * 2 ))

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
