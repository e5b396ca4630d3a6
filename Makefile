# Developer commands. `make run` and `make test` are all a fresh clone needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv venv-dev run test test-browser lint fmt typecheck worker worker-bots worker-analyses worker-periodic beat messages up down loadtest bench-bots lock

# Installs come from the lock files (exact versions with their hashes, made from pyproject.toml's
# ranges by `make lock`): requirements/base.txt is what serving needs, requirements/dev.txt adds
# the tests and tools. The project itself is installed without dependencies (editable). Each stamp
# is remade when its lock file (or pyproject.toml) is newer.
PIP := $(BIN)/python -m pip install --quiet
venv: $(VENV)/.installed-base
venv-dev: $(VENV)/.installed-dev

$(VENV)/.installed-base: requirements/base.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) --require-hashes -r requirements/base.txt
	$(PIP) --no-deps -e .
	touch $@

$(VENV)/.installed-dev: requirements/dev.txt $(VENV)/.installed-base
	$(PIP) --require-hashes -r requirements/dev.txt
	touch $@

run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/daphne -b $(HOST) -p $(PORT) siesta_site.asgi:application

# The lock files from pyproject.toml (pip-compile, in the dev lock). `make lock` keeps every pinned
# version that still fits the ranges; `make lock LOCK_ARGS=--upgrade` takes the newest that fit.
LOCK := $(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe \
	--no-emit-index-url --no-emit-find-links $(LOCK_ARGS)
lock: venv-dev
	$(LOCK) -o requirements/base.txt pyproject.toml
	$(LOCK) --extra dev -o requirements/dev.txt pyproject.toml

# Every test, the browser tests last (tests/browser/: skipped, with the reason shown, when
# /usr/bin/chromium is missing; CI installs it). `make test-browser` runs only those.
test: venv-dev
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-browser: venv-dev
	$(BIN)/python -m pytest tests/browser $(PYTEST_ARGS)

lint: venv-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

fmt: venv-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# As CI: every package of the project (pyproject.toml, [tool.mypy]), then the engine alone, strict.
typecheck: venv-dev
	$(BIN)/mypy
	$(BIN)/mypy --strict games/engine

# One worker per queue (docs/operations.md), so that bots, analyses and periodic work never wait
# for each other: `make worker` runs the three at once (Ctrl-C stops them all).
worker: venv
	$(MAKE) -j3 worker-bots worker-analyses worker-periodic

worker-bots: venv
	$(BIN)/celery -A siesta_site worker -Q bots -n bots@%h -c 2 -l info

worker-analyses: venv
	$(BIN)/celery -A siesta_site worker -Q analyses -n analyses@%h -c 1 -l info

worker-periodic: venv
	$(BIN)/celery -A siesta_site worker -Q periodic,celery -n periodic@%h -c 1 -l info

beat: venv
	$(BIN)/celery -A siesta_site beat -l info

# The production-like stack (deploy/up.sh, Procfile): nginx on $(HOST):$(PORT) in front of one
# Daphne per core, Celery workers per queue and beat, PostgreSQL and Redis started when down.
# Under supervisord: a process that exits is restarted alone (`.venv/bin/supervisorctl -c
# var/supervisord.conf status`). Foreground; Ctrl-C (or `make down` from another shell) stops
# everything. Mailed links name http://$(HOST):$(PORT) unless SIESTA_SITE_URL says otherwise.
# The load benchmark's echo socket is off unless asked for: `make up SIESTA_ECHO_WS=1`.
HOST ?= 127.0.0.1
PORT ?= 8000
SIESTA_ECHO_WS ?= 0
up: venv
	HOST=$(HOST) PORT=$(PORT) SIESTA_ECHO_WS=$(SIESTA_ECHO_WS) deploy/up.sh

down:
	@if [ -f var/up.pid ] && kill -0 "$$(cat var/up.pid)" 2>/dev/null; then kill -TERM "$$(cat var/up.pid)"; fi

# Bots benchmark (docs/performance.md): the expert's think time and search rate, then expert
# against hard and hard against medium (2 players, fresh seeds), one process, niced.
BOT_GAMES ?= 100
bench-bots: venv-dev
	nice -n 10 $(BIN)/python -m bench.bots_bench --speed
	nice -n 10 $(BIN)/python -m bench.botmatch --games $(BOT_GAMES) --processes 1 --hard wall_cap=60 expert hard
	nice -n 10 $(BIN)/python -m bench.botmatch --games $(BOT_GAMES) --processes 1 --hard wall_cap=60 hard medium

# Load benchmark against a running `make up SIESTA_ECHO_WS=1` (docs/performance.md): N games over
# WebSockets, and the echo floor (LOADTEST_ARGS=--no-floor against a stack without the echo).
GAMES ?= 20
loadtest: venv-dev
	$(BIN)/python -m bench.loadtest --url http://$(HOST):$(PORT) --games $(GAMES) $(LOADTEST_ARGS)

# Translations: collect every string into locale/<lang>/LC_MESSAGES/*.po (existing translations
# are kept; new or changed strings come out empty or fuzzy), then compile the .mo files. Translate
# the empty and fuzzy entries, run `make messages` again, and commit the .po and .mo files.
LOCALES := -l es -l de -l it -l fr
I18N_IGNORE := --ignore=.venv --ignore=staticfiles --ignore=node_modules --ignore=htmlcov

messages: venv
	$(BIN)/python manage.py makemessages $(LOCALES) --no-obsolete $(I18N_IGNORE)
	$(BIN)/python manage.py makemessages -d djangojs $(LOCALES) --no-obsolete $(I18N_IGNORE)
	$(BIN)/python manage.py compilemessages $(LOCALES) $(I18N_IGNORE)
