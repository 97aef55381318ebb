# jobctrl — two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_HOME ?= $(CURDIR)/.demo-home
DEMO_PORT ?= 8765

.PHONY: demo test lint format bench clean install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	JOBCTRL_HOME=$(DEMO_HOME) $(BIN)/jobctrl demo --serve $(DEMO_PORT)

# Both cores: pytest-xdist, two worker processes (each starts its own Temporal dev server).
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --durations=30

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

bench: $(STAMP)
	$(BIN)/python bench/prepare.py

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache
