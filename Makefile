# kafkatui: `make demo` opens the dashboard on a simulated cluster, `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-matrix lint typecheck unit soak test-hdfs bench tools clean lock

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kafkatui needs Python 3.11 or newer")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[test]'
	touch $(STAMP)

## tools: Debian's kcat (integration tests), a JDK 17+ (PySpark, real Kafka) and Maven (Kafka's jars for
## `kafkatui lab`); installed with apt-get when root.
tools:
	@bash .ci/tools.sh

demo: $(STAMP)
	$(VENV)/bin/kafkatui --demo

lint: $(STAMP)
	$(VENV)/bin/ruff format --check --quiet kafkatui tests bench
	$(VENV)/bin/ruff check kafkatui tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

test: $(STAMP) tools lint
	$(PY) -m pytest -q -ra --rerun-show-tracebacks --durations=30 tests

# the real-Kafka suite (tests/lab) on the Kafka lines `make test` does not run, one line (one lab) at a time;
# `make test-matrix MATRIX="4.2 2.8"` picks lines (ZooKeeper ones run the tests that apply to them)
MATRIX ?= 4.3 4.2 4.1 4.0
test-matrix: $(STAMP) tools
	@set -e; for line in $(MATRIX); do \
	  echo "== Kafka $$line"; start=$$(date +%s); \
	  KAFKATUI_LAB_LINES=$$line $(PY) -m pytest -q -ra --rerun-show-tracebacks --durations=10 -k 'not test_lab_cli and not test_acl' tests/lab; \
	  echo "== Kafka $$line: $$(( $$(date +%s) - start )) s"; \
	done

soak: $(STAMP)
	$(PY) -m pytest -q -ra -m soak tests

# the replay job on hdfs:// alone (also part of `make test`; a MiniDFSCluster from Hadoop's jars, mvn fetches them once)
test-hdfs: $(STAMP)
	$(PY) -m pytest -q -ra -m hdfs tests/history/test_replay_hdfs.py

bench: $(STAMP) tools
	$(PY) -m pip install -q -c constraints.txt -e '.[bench]'  # DuckDB: the replay bench's anchor, bench-only
	$(PY) bench/run.py

## lock: upgrade every dependency on purpose: a scratch venv takes the newest releases allowed by
## pyproject.toml (test and bench extras), and constraints.txt is rewritten from it. Review the diff, run
## make test (snapshots first: a new Textual can change every screen), then commit both.
lock:
	rm -rf .venv-lock
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install -q --upgrade pip
	.venv-lock/bin/python -m pip install -q -e '.[test,bench]'
	{ sed -n '1,2p' constraints.txt; .venv-lock/bin/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf .venv-lock

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
