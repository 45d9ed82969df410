# The two commands of the README: `make run` and `make test`. Everything else is what they use.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
STAMP := $(VENV)/.installed
LOCK := requirements.lock
PG_TEST_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test

.PHONY: run test setup system-deps migrate import serve lint validate pytest bench services lock clean

run: setup migrate import serve

test: setup services lint validate pytest

setup: system-deps $(STAMP)

system-deps:
	@bash scripts/system-deps.sh

# Every Python dependency, transitive ones included, from the lock file with its hashes.
# setup.py builds the zygote's fork loop (runner/sandbox/_forkserver.c) in place. The light client
# (clients/python, package `torchdrill`) holds the learner commands the server's CLI registers; it
# goes in first so that the server's `torchdrill` console script (the superset) is the one left.
$(STAMP): $(LOCK) pyproject.toml setup.py runner/sandbox/_forkserver.c clients/python/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --require-hashes -r $(LOCK)
	$(PY) -m pip install -q --no-deps -e clients/python
	$(PY) -m pip install -q --no-deps -e .
	@touch $(STAMP)

migrate:
	$(VENV)/bin/alembic upgrade head

import:
	$(VENV)/bin/torchdrill problems import problems

serve:
	PORT=$(PORT) $(PY) -m app

services:
	@bash scripts/ensure-services.sh

lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

validate:
	$(VENV)/bin/torchdrill problems validate --matrix problems

pytest:
	TORCHDRILL_TEST_DATABASE_URL=$(PG_TEST_URL) $(VENV)/bin/pytest -q -p no:cacheprovider

# Each benchmark prints its figures against its targets and exits 1 when one is missed; every part
# still runs, and `make bench` fails at the end if any part did.
bench: setup
	@rm -f var/bench.failed && mkdir -p var
	$(PY) -m bench.judge || touch var/bench.failed
	$(PY) -m bench.web || touch var/bench.failed
	$(PY) -m bench.page_ready || touch var/bench.failed
	$(PY) -m bench.scale --submissions 300 --clients 8
	TORCHDRILL_TEST_DATABASE_URL=$(PG_TEST_URL) $(PY) -m bench.scale_faults || touch var/bench.failed
	$(PY) -m bench.history --postgres-url $(PG_TEST_URL) || touch var/bench.failed
	$(PY) -m bench.similarity || touch var/bench.failed
	$(PY) -m bench.lti || touch var/bench.failed
	$(PY) -m bench.discussion_listing --postgres-url $(PG_TEST_URL) || touch var/bench.failed
	$(PY) -m bench.picker || touch var/bench.failed
	$(PY) -m bench.analytics --postgres-url $(PG_TEST_URL) || touch var/bench.failed
	$(PY) -m bench.solutions_listing --postgres-url $(PG_TEST_URL) || touch var/bench.failed
	@if test -e var/bench.failed; then echo "make bench: a target was missed (see [FAIL] above)"; exit 1; fi

# After changing a pin in requirements.txt or requirements-dev.txt: regenerate the lock (hashes).
lock:
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
		--no-emit-find-links -o $(LOCK) requirements-dev.txt

clean:
	rm -rf $(VENV) var
