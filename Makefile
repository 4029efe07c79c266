# Two commands for a newcomer: `make run` and `make test`. Everything else is installed here.
SHELL := /bin/bash
PYTHON ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
UV_VERSION := 0.13.9
export UV_PYTHON_PREFERENCE := only-system
export UV_NO_PROGRESS := 1

.PHONY: install system-deps run test chaos check lint typecheck contracts bench clean

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

install: $(UV)
	$(UV) sync --frozen --all-packages --quiet

system-deps:
	bash scripts/install-system-deps.sh

run: system-deps install
	$(UV) run --frozen --no-sync arm-ka up

test: system-deps install
	$(UV) run --frozen --no-sync pytest $(PYTEST_ARGS)

# The long form of the chaos suite (thousands of files); `make test` runs the short one.
chaos: system-deps install
	CHAOS=long CHAOS_LOGS=artifacts/chaos $(UV) run --frozen --no-sync pytest tests/chaos -s $(PYTEST_ARGS)

check: install lint typecheck contracts

lint:
	$(UV) run --frozen --no-sync ruff check .
	$(UV) run --frozen --no-sync ruff format --check .

typecheck:
	$(UV) run --frozen --no-sync mypy libs/*/src services/*/src

contracts:
	$(UV) run --frozen --no-sync python scripts/check_contract_copy.py

bench: system-deps install
	$(UV) run --frozen --no-sync python -m bench

clean:
	rm -rf $(TOOLS) .venv .var
