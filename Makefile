# Developer commands. `make run` and `make test` are all a fresh clone needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv run test lint fmt typecheck worker beat messages

venv: $(VENV)/.installed

# Reinstall only when pyproject.toml is newer than the stamp.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/daphne -b 127.0.0.1 -p 8000 siesta_site.asgi:application

test: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

fmt: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: venv
	$(BIN)/mypy siesta_site games ratings tournaments social tests

worker: venv
	$(BIN)/celery -A siesta_site worker -l info

beat: venv
	$(BIN)/celery -A siesta_site beat -l info

# Translations: collect every string into locale/<lang>/LC_MESSAGES/*.po (existing translations
# are kept; new or changed strings come out empty or fuzzy), then compile the .mo files. Translate
# the empty and fuzzy entries, run `make messages` again, and commit the .po and .mo files.
LOCALES := -l es -l de -l it -l fr
I18N_IGNORE := --ignore=.venv --ignore=staticfiles --ignore=node_modules --ignore=htmlcov

messages: venv
	$(BIN)/python manage.py makemessages $(LOCALES) --no-obsolete $(I18N_IGNORE)
	$(BIN)/python manage.py makemessages -d djangojs $(LOCALES) --no-obsolete $(I18N_IGNORE)
	$(BIN)/python manage.py compilemessages $(LOCALES) $(I18N_IGNORE)
