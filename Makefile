# `make run`: set up and serve the platform on the embedded default (SQLite, filesystem
# broker, one worker). `make test`: set up and run every test. `make bench`: benchmarks.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
STAMP  := $(VENV)/.installed
NPM_STAMP := frontend/node_modules/.installed

.PHONY: install frontend run worker test test-python test-frontend lint types check-types bench clean

# The Python client (client/, its own package, with the outside trainers' tracking callback) is
# installed beside the platform: its tests run against a live server.
$(STAMP): pyproject.toml client/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ./client -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

$(NPM_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

# The SPA is rebuilt only when something it is built from changed since the last build.
FRONTEND_SOURCES := $(shell find frontend/src frontend/public frontend/index.html \
  frontend/vite.config.ts frontend/tsconfig*.json frontend/package.json -type f 2>/dev/null)
FRONTEND_BUILD := frontend/dist/index.html

$(FRONTEND_BUILD): $(NPM_STAMP) $(FRONTEND_SOURCES)
	cd frontend && npm run build
	touch $(FRONTEND_BUILD)

frontend: $(FRONTEND_BUILD)

run: install frontend
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py bootstrap --url http://$(HOST):$(PORT)
	@echo "Starting a Celery worker (queues gpu, cpu, default), a serving worker (queue serve: model replicas) and the web server (uvicorn), each restarted if it dies; Ctrl-C stops them all."
	$(BIN)/python -m crucible.supervise --host $(HOST) --port $(PORT)

worker: install
	$(BIN)/celery -A crucible worker -Q gpu,cpu,default -c 2 -l INFO

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python scripts/check_layering.py

types: install $(NPM_STAMP)
	$(BIN)/python manage.py spectacular --file frontend/openapi/schema.yaml --validate --fail-on-warn
	cd frontend && npm run gen:types
	$(BIN)/python client/generate_types.py

# The committed OpenAPI schema and the front end's generated types must match the API.
check-types: install $(NPM_STAMP)
	$(BIN)/python manage.py spectacular --file var/schema.check.yaml --validate --fail-on-warn
	@diff -q var/schema.check.yaml frontend/openapi/schema.yaml >/dev/null || \
	  (echo "frontend/openapi/schema.yaml is stale: run 'make types'"; exit 1)
	cd frontend && npm run check:types-fresh

test-frontend: $(NPM_STAMP)
	cd frontend && npm run typecheck && npm run lint && npm test

# The browser tests run in their own process: the browser driver keeps an event loop in
# the test thread, which the rest of the suite must not inherit.
test-python: install frontend
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest --ignore=tests/e2e --durations=40
	$(BIN)/pytest tests/e2e --durations=15

test: lint check-types test-frontend test-python

bench: install
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf var frontend/dist
