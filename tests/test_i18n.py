"""Languages: every page in every language, and catalogues that are complete and compiled.

To refresh the catalogues after adding strings: ``make messages``, translate the empty and fuzzy
entries of ``locale/*/LC_MESSAGES/*.po``, ``make messages`` again, and commit the .po and .mo files.
"""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.games.factories import make_game

LOCALE_DIR = Path(settings.LOCALE_PATHS[0])
LANGUAGES = [code for code, _ in settings.LANGUAGES]
TRANSLATED = [code for code in LANGUAGES if code != settings.LANGUAGE_CODE]

# A phrase each page shows, in each language (the text of the catalogues or of the rules pages).
PHRASES: dict[str, dict[str, str]] = {
    "home": {
        "en": "Play Siesta online",
        "es": "Juega a Siesta en línea",
        "de": "Spiele Siesta online",
        "it": "Gioca a Siesta online",
        "fr": "Jouez à Siesta en ligne",
    },
    "rules": {
        "en": "Your turn must score at least 1 point for you.",
        "es": "Debes anotar al menos 1 punto para ti mismo en cada turno.",
        "de": "Dein Zug muss dir mindestens 1 Punkt einbringen.",
        "it": "Devi segnare almeno 1 punto per te stesso a ogni turno.",
        "fr": "Vous devez marquer au moins 1 point pour vous-même à chaque tour.",
    },
    "login": {
        "en": "Log in",
        "es": "Iniciar sesión",
        "de": "Anmelden",
        "it": "Accedi",
        "fr": "Se connecter",
    },
    "register": {
        "en": "Create an account",
        "es": "Crea una cuenta",
        "de": "Konto erstellen",
        "it": "Crea un account",
        "fr": "Créer un compte",
    },
    "lobby": {
        "en": "Open games",
        "es": "Partidas abiertas",
        "de": "Offene Spiele",
        "it": "Partite aperte",
        "fr": "Parties ouvertes",
    },
    "leaderboard": {
        "en": "How ratings work",
        "es": "Cómo funciona el Elo",
        "de": "Wie die Wertungen funktionieren",
        "it": "Come funziona l’Elo",
        "fr": "Comment fonctionne l’Elo",
    },
    "ratings_about": {
        "en": "Which games count",
        "es": "Qué partidas cuentan",
        "de": "Welche Spiele zählen",
        "it": "Quali partite contano",
        "fr": "Quelles parties comptent",
    },
    "game": {
        "en": "Replay the turns so far",
        "es": "Repetir los turnos jugados hasta ahora",
        "de": "Die bisherigen Züge wiederholen",
        "it": "Rivedi i turni giocati finora",
        "fr": "Revoir les tours joués jusqu",  # the apostrophe is escaped in the page
    },
}
# The rules page's title is in the catalogue, its prose in templates/rules/rules_<language>.html.
RULES_TITLES = {
    "en": "Rules of Siesta",
    "es": "Reglas de Siesta",
    "de": "Spielregeln von Siesta",
    "it": "Regole di Siesta",
    "fr": "Règles de Siesta",
}


@pytest.fixture
def page_url(db):
    """The URL of a page by its name; the game page gets a game of its own."""

    def url(name: str) -> str:
        if name == "game":
            return reverse("game", args=[make_game().pk])
        return reverse(name)

    return url


def _text(response) -> str:
    assert response.status_code == 200
    return re.sub(r"\s+", " ", response.content.decode())


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(PHRASES))
def test_page_follows_accept_language(client, page_url, name, language):
    html = _text(client.get(page_url(name), HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5"))
    assert f'<html lang="{language}">' in html
    assert PHRASES[name][language] in html


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(PHRASES))
def test_page_follows_the_language_cookie(client, page_url, name, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    # The cookie wins over the browser's preference.
    other = "de" if language != "de" else "fr"
    html = _text(client.get(page_url(name), HTTP_ACCEPT_LANGUAGE=other))
    assert f'<html lang="{language}">' in html
    assert PHRASES[name][language] in html


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_language_switcher_sets_the_language(client, language):
    response = client.post(
        reverse("set_language"), {"language": language, "next": reverse("rules")}
    )
    assert response.status_code == 302
    assert response.url == reverse("rules")
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == language
    html = _text(client.get(reverse("rules"), HTTP_ACCEPT_LANGUAGE="it"))
    assert f'<html lang="{language}">' in html
    assert f"<h1>{RULES_TITLES[language]}</h1>" in html
    assert f'<option value="{language}" selected>' in html


@pytest.mark.django_db
def test_language_switcher_offers_every_language_in_its_own_name(client):
    html = _text(client.get(reverse("home")))
    assert 'action="/i18n/setlang/"' in html
    for code, name in [
        ("en", "English"),
        ("es", "Español"),
        ("de", "Deutsch"),
        ("it", "Italiano"),
        ("fr", "Français"),
    ]:
        assert re.search(rf'<option value="{code}"( selected)?>{name}</option>', html)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "language"),
    [("", "en"), ("de-AT,de;q=0.9,en;q=0.8", "de"), ("pt-BR,pt;q=0.9", "en"), ("fr-CA", "fr")],
)
def test_default_language_comes_from_the_browser(client, header, language):
    extra = {"HTTP_ACCEPT_LANGUAGE": header} if header else {}
    html = _text(client.get(reverse("home"), **extra))
    assert f'<html lang="{language}">' in html
    assert PHRASES["home"][language] in html


# -- catalogues --------------------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0


def read_po(path: Path) -> list[Entry]:
    """A small .po reader: entries with their context, plural forms and flags.

    Obsolete entries (``#~``) are skipped; strings are C-escaped like Python literals."""
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int | None] | None = None

    def finish() -> None:
        nonlocal entry
        if entry is not None and (entry.msgid or entry.msgstr):
            entries.append(entry)
        entry = None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#~"):
            continue
        if line.startswith("#,"):
            finish()
            entry = Entry(line=number, flags={f.strip() for f in line[2:].split(",")})
            continue
        if line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            keyword, rest = "", line
        value = ast.literal_eval(rest)
        if keyword in ("msgctxt", "msgid") and (entry is None or entry.msgstr):
            finish()
            entry = Entry(line=number)
        assert entry is not None, f"{path}:{number}: text outside an entry"
        if keyword == "msgctxt":
            entry.msgctxt, target = value, ("msgctxt", None)
        elif keyword == "msgid":
            entry.msgid, target = value, ("msgid", None)
        elif keyword == "msgid_plural":
            entry.msgid_plural, target = value, ("msgid_plural", None)
        elif keyword.startswith("msgstr"):
            index = int(keyword[7:-1]) if keyword != "msgstr" else 0
            entry.msgstr[index], target = value, ("msgstr", index)
        elif keyword == "":
            assert target is not None, f"{path}:{number}: continuation without a keyword"
            name, index = target
            if name == "msgstr":
                entry.msgstr[index] += value
            else:
                setattr(entry, name, (getattr(entry, name) or "") + value)
        else:
            raise AssertionError(f"{path}:{number}: cannot read {raw!r}")
    finish()
    return entries


PO_FILES = sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po"))
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")


def test_every_language_has_a_catalogue():
    languages = {path.parts[-3] for path in PO_FILES if path.name == "django.po"}
    assert languages == set(TRANSLATED)


@pytest.mark.parametrize("path", PO_FILES, ids=lambda p: "/".join(p.parts[-3:]))
def test_catalogue_is_complete(path):
    entries = read_po(path)
    header, messages = entries[0], entries[1:]
    assert header.msgid == ""
    assert "fuzzy" not in header.flags, f"{path}: the header is marked fuzzy"
    language = path.parts[-3]
    assert f"Language: {language}\n" in header.msgstr[0]
    nplurals = int(re.search(r"nplurals=(\d+)", header.msgstr[0]).group(1))
    assert messages, f"{path} has no messages"
    problems = []
    for entry in messages:
        where = f"{path.name}:{entry.line} {entry.msgid!r}"
        if "fuzzy" in entry.flags:
            problems.append(f"{where} is fuzzy")
        forms = nplurals if entry.msgid_plural else 1
        if sorted(entry.msgstr) != list(range(forms)) or not all(entry.msgstr.values()):
            problems.append(f"{where} is not translated")
            continue
        wanted = sorted(PLACEHOLDER.findall(entry.msgid_plural or entry.msgid))
        for text in entry.msgstr.values():
            if sorted(PLACEHOLDER.findall(text)) != wanted and not entry.msgid_plural:
                problems.append(f"{where}: placeholders differ in {text!r}")
    assert not problems, "\n".join(problems)


def _expected_catalog(entries: list[Entry]) -> dict[object, str]:
    """What msgfmt puts in the .mo for these entries (fuzzy ones are left out)."""
    catalog: dict[object, str] = {}
    for entry in entries:
        if "fuzzy" in entry.flags or not all(entry.msgstr.values()):
            continue
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            catalog[key] = entry.msgstr[0]
        else:
            for index, text in entry.msgstr.items():
                catalog[(key, index)] = text
    return catalog


@pytest.mark.parametrize("path", PO_FILES, ids=lambda p: "/".join(p.parts[-3:]))
def test_compiled_catalogue_matches_the_po_file(path):
    mo = path.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run `make messages`"
    with mo.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    expected = _expected_catalog(read_po(path))
    expected.pop("", None)
    compiled = {key: text for key, text in compiled.items() if key != ""}
    stale = {k for k in expected.keys() | compiled.keys() if expected.get(k) != compiled.get(k)}
    assert not stale, f"{mo} is out of date with {path.name} (run `make messages`): {stale}"


def test_po_reader_reads_plurals_context_and_continuations(tmp_path):
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: es\\n"\n\n'
        "#, python-format\n"
        'msgid "%(n)s day"\nmsgid_plural "%(n)s days"\n'
        'msgstr[0] "%(n)s día"\nmsgstr[1] "%(n)s días"\n\n'
        'msgctxt "board"\nmsgid "Sun"\nmsgstr ""\n"Sol"\n\n'
        '#, fuzzy\nmsgid "Old"\nmsgstr "Viejo \\"x\\""\n\n'
        '#~ msgid "Gone"\n#~ msgstr "Ido"\n',
        encoding="utf-8",
    )
    header, plural, context, fuzzy = read_po(po)
    assert header.msgstr == {0: "Language: es\n"}
    assert plural.msgid_plural == "%(n)s days"
    assert plural.msgstr == {0: "%(n)s día", 1: "%(n)s días"}
    assert "python-format" in plural.flags
    assert (context.msgctxt, context.msgid, context.msgstr) == ("board", "Sun", {0: "Sol"})
    assert "fuzzy" in fuzzy.flags
    assert fuzzy.msgstr[0] == 'Viejo "x"'
    assert _expected_catalog([plural, context, fuzzy]) == {
        ("%(n)s day", 0): "%(n)s día",
        ("%(n)s day", 1): "%(n)s días",
        "board\x04Sun": "Sol",
    }
