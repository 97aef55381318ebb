# jobctrl — two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_HOME ?= $(CURDIR)/.demo-home
DEMO_PORT ?= 8765

.PHONY: demo test test-pg-rest test-faults lint format bench docs clean install

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
# Every test but the process-heavy fault tests marked `heavy_fault` (test-faults).
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --durations=30 -m 'not heavy_fault'

# CI's second pass: the PostgreSQL variants of the workflow tests `make test` runs on SQLite
# only (tests/conftest.py, PG_REST_ENV), and of the other store-touching integration modules
# (PG_REST_MODULES), so every workflow and store-touching integration test runs on both.
test-pg-rest: $(STAMP)
	JOBCTRL_TEST_PG_REST=1 $(BIN)/python -m pytest -q -n 2 --dist worksteal --durations=10 tests/integration

# CI's last pass: the fault tests that each keep a core busy for two minutes and more
# (twenty kill -9s of a worker; three workers and three adders on PostgreSQL, one killed;
# a worker through a minute of rate limits), and a worker through a database locked for
# twenty seconds (34 s: worksteal gives it and the PostgreSQL test to one worker, 150 s,
# while the other runs the rate limits and the kill test, 225 s),
# marked `heavy_fault`; `make test` leaves them out for its time (docs/PERFORMANCE.md,
# "Suite time, second pass"). `pytest tests/fault` alone still runs them with the rest.
test-faults: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --durations=10 -m heavy_fault tests/fault

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format src tests bench scripts
	$(BIN)/ruff check --fix src tests bench scripts

bench: $(STAMP)
	$(BIN)/python bench/prepare.py

# docs/CLI.md and docs/API.md from the click commands and the OpenAPI schema, docs/MCP.md
# from the MCP server's tools (tests/unit/test_generated_docs.py and test_mcp_docs.py fail
# when they are out of date).
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py
	$(BIN)/python scripts/gen_mcp_docs.py

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache
