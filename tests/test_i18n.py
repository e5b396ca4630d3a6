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


# -- one register: Django's own pages and mails in the site's words -----------------------------

FORMAL = {
    "es": re.compile(
        r"(?i)\b(usted(es)?|introduzca|introdúzcal[ao]|escoja|vaya|seleccione|pulse|observe|"
        r"compruebe|asegúrese|inténtelo|su contraseña|sus datos|por favor)\b"
    ),
    # "Sie" is also "she" or "they": the catalogues word those sentences otherwise.
    "de": re.compile(r"\b(Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b"),
}
"""The formal register (usted, Sie) the site never uses: it says tú and du."""


def test_formal_register_check_finds_the_mistakes():
    assert FORMAL["es"].search("Por favor, introduzca un nombre de usuario y clave correctos.")
    assert FORMAL["es"].search("Su contraseña no puede asemejarse tanto a su otra información.")
    assert FORMAL["es"].search("Por favor, vaya a la página siguiente y escoja una contraseña.")
    assert not FORMAL["es"].search("Tu contraseña no puede ser solo espacios: elige otra.")
    assert not FORMAL["es"].search("quien no haga su primer turno pierde la partida")
    assert FORMAL["de"].search("Bitte öffnen Sie folgende Seite, um Ihr neues Passwort einzugeben")
    assert not FORMAL["de"].search("Bitte versuche es noch einmal: dein Passwort bleibt.")


@pytest.mark.parametrize("language", sorted(FORMAL))
def test_catalogue_never_speaks_formally(language):
    problems = [
        f"django.po:{entry.line} {entry.msgid!r}: {text!r}"
        for entry in read_po(LOCALE_DIR / language / "LC_MESSAGES" / "django.po")[1:]
        for text in entry.msgstr.values()
        if FORMAL[language].search(text)
    ]
    assert not problems, "\n".join(problems)


DJANGO_WORDS = [
    # contrib.auth's forms and validators
    "Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.",
    "Password confirmation",
    "Enter the same password as before, for verification.",
    "The two password fields didn’t match.",
    "Please enter a correct %(username)s and password. Note that both fields may be "
    "case-sensitive.",
    "Your password can’t be too similar to your other personal information.",
    "Your password can’t be a commonly used password.",
    "Your password can’t be entirely numeric.",
    "This password is too common.",
    "This password is entirely numeric.",
    "New password confirmation",
    "Your old password was entered incorrectly. Please enter it again.",
    "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ "
    "characters.",
    # contrib.admin's reset mail and subject
    "Password reset on %(site_name)s",
    "Please go to the following page and choose a new password:",
    "Your username, in case you’ve forgotten:",
    "Thanks for using our site!",
]


def _django_wording(language: str) -> list[str]:
    """Django's own translations of DJANGO_WORDS (the longest run without a placeholder)."""
    import django

    base = Path(django.__file__).parent / "contrib"
    found = []
    for app in ("auth", "admin"):
        catalogue = gettext.translation("django", base / app / "locale", languages=[language])
        for msgid in DJANGO_WORDS:
            text = catalogue.gettext(msgid)
            if text != msgid:
                found.append(max(re.split(r"%\(\w+\)[sd]", text), key=len).strip())
    assert found, f"no Django translations found for {language}"
    return found


def _words(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")


@pytest.fixture
def auth_texts(client, django_capture_on_commit_callbacks):
    """What a person reads on the sign-in, sign-up and password pages (with their errors) and
    in the reset e-mail, in one language."""
    from django.core import mail

    from social.services.preferences import preferences_update
    from tests.factories import PASSWORD, UserFactory

    def texts(language: str) -> dict[str, str]:
        ask = {"HTTP_ACCEPT_LANGUAGE": language}
        mail.outbox.clear()
        client.logout()
        ana = UserFactory(email=f"ana-{language}@example.com")
        preferences_update(user=ana, email_confirmed=ana.email)
        out = {
            "login": client.get(reverse("login"), **ask),
            "login error": client.post(
                reverse("login"), {"username": ana.username, "password": "wrong"}, **ask
            ),
            "register": client.get(reverse("register"), **ask),
            "register errors": client.post(
                reverse("register"),
                {"username": "a b", "password1": "4815162342", "password2": "x"},
                **ask,
            ),
            "register weak": client.post(
                reverse("register"),
                {"username": ana.username, "password1": "password", "password2": "password"},
                **ask,
            ),
            "reset": client.get(reverse("password_reset"), **ask),
        }
        client.post(reverse("password_reset"), {"email": ana.email}, **ask)
        [sent] = mail.outbox
        link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+)", sent.body)
        assert link is not None, sent.body
        confirm = client.get(link.group(1), follow=True, **ask)
        out["reset confirm"] = confirm
        out["reset confirm error"] = client.post(
            confirm.redirect_chain[-1][0],
            {"new_password1": PASSWORD + "-1", "new_password2": PASSWORD + "-2"},
            **ask,
        )
        client.force_login(ana)
        out["change"] = client.get(reverse("password_change"), **ask)
        out["change error"] = client.post(
            reverse("password_change"),
            {"old_password": "wrong", "new_password1": "x", "new_password2": "x"},
            **ask,
        )
        for name, response in out.items():
            assert response.status_code == 200, name
        words = {name: _words(response.content.decode()) for name, response in out.items()}
        words["reset mail"] = sent.subject + "\n" + sent.body
        return words

    return texts


@pytest.mark.django_db
@pytest.mark.parametrize("language", TRANSLATED)
def test_auth_pages_and_the_reset_mail_speak_the_sites_register(auth_texts, language):
    texts = auth_texts(language)
    problems = [
        f"{name}: Django's {django_words!r}"
        for name, text in texts.items()
        for django_words in _django_wording(language)
        if django_words in text
    ]
    formal = FORMAL.get(language)
    if formal is not None:
        problems += [
            f"{name}: formal {m.group(0)!r} in …{text[max(0, m.start() - 40) : m.end() + 40]}…"
            for name, text in texts.items()
            for m in formal.finditer(text)
        ]
    assert not problems, "\n".join(problems)


REGISTER_PHRASES = {
    "es": {
        "register": "Repite la contraseña",
        "register errors": "Las dos contraseñas no son iguales.",
        "login error": "El nombre de usuario o la contraseña no son correctos.",
        "change error": "Esa no es tu contraseña actual",
        "reset mail": "Siesta online: elige una contraseña nueva",
    },
    "de": {
        "register": "Passwort wiederholen",
        "register errors": "Die beiden Passwörter sind nicht gleich.",
        "login error": "Benutzername oder Passwort sind nicht richtig.",
        "change error": "Das ist nicht dein aktuelles Passwort",
        "reset mail": "Siesta online: Wähle ein neues Passwort",
    },
    "it": {
        "register": "Ripeti la password",
        "register errors": "Le due password non sono uguali.",
        "login error": "Il nome utente o la password non sono corretti.",
        "change error": "Non è la tua password attuale",
        "reset mail": "Siesta online: scegli una nuova password",
    },
    "fr": {
        "register": "Répétez le mot de passe",
        "register errors": "Les deux mots de passe ne sont pas identiques.",
        "login error": "Le nom d’utilisateur ou le mot de passe est incorrect.",
        "change error": "Ce n’est pas votre mot de passe actuel",
        "reset mail": "Siesta online\u00a0: choisissez un nouveau mot de passe",
    },
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", TRANSLATED)
def test_auth_pages_and_the_reset_mail_are_in_the_sites_words(auth_texts, language):
    texts = auth_texts(language)
    for name, phrase in REGISTER_PHRASES[language].items():
        assert phrase in texts[name], f"{name}: {phrase!r} not in {texts[name][:600]!r}"
    subject = texts["reset mail"].splitlines()[0]
    assert "Password reset" not in subject


# -- one msgid, one meaning ---------------------------------------------------------------------

CONTEXTS = {
    # msgid: the contexts it must come in (never bare: each place says which meaning it is)
    "Change": {"language", "tournament", "rating change"},
    "cancelled": {"game", "quick pairing", "challenge", "tournament"},
}


@pytest.mark.parametrize("language", TRANSLATED)
def test_words_of_two_meanings_come_with_a_context(language):
    entries = read_po(LOCALE_DIR / language / "LC_MESSAGES" / "django.po")[1:]
    for msgid, contexts in CONTEXTS.items():
        found = {e.msgctxt for e in entries if e.msgid == msgid}
        assert found == contexts, f"{language} {msgid!r}: contexts {found}"


@pytest.mark.parametrize(
    ("language", "game", "seek", "switch", "edit"),
    [
        ("es", "cancelada", "cancelado", "Cambiar", "Modificar"),
        ("de", "abgebrochen", "abgebrochen", "Wechseln", "Ändern"),
        ("it", "annullata", "annullato", "Cambia", "Modifica"),
        ("fr", "annulée", "annulé", "Changer", "Modifier"),
    ],
)
def test_each_meaning_has_its_own_words(language, game, seek, switch, edit):
    from django.utils import translation

    from games.models import Game
    from social.models import Seek

    with translation.override(language):
        assert str(Game.Status.CANCELLED.label) == game
        assert str(Seek.Status.CANCELLED.label) == seek
        assert translation.pgettext("language", "Change") == switch
        assert translation.pgettext("tournament", "Change") == edit


TEMPLATES_DIR = Path(settings.BASE_DIR) / "templates"
STATIC_JS = Path(settings.BASE_DIR) / "static" / "js"


def test_no_colon_is_typed_after_a_translation():
    """A label's colon belongs in its msgid: French puts a no-break space before it."""
    after_tag = re.compile(
        r"{%\s*(translate|trans)\s+(['\"]).*?\2\s*%}\s*:|endblocktranslate\s*%}:"
    )
    problems = [
        f"{path.relative_to(TEMPLATES_DIR)}:{number}"
        for path in TEMPLATES_DIR.rglob("*.html")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if after_tag.search(line)
    ]
    glued = re.compile(r"""\)\s*\+\s*["']:\s?["']""")  # format(s.x, …) + ": " + …
    problems += [
        f"static/js/{path.relative_to(STATIC_JS)}:{number}"
        for path in STATIC_JS.rglob("*.js")
        if "vendor" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if glued.search(line) and "format(" in line
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.django_db
def test_the_arena_line_is_one_sentence_with_its_time(client):
    from django.utils import translation

    with translation.override("fr"):
        line = translation.gettext(
            'Arena: new games start until <time datetime="%(iso)s">%(time)s UTC</time>'
        )
    assert line.startswith("Arène\u00a0:")
    assert '<time datetime="%(iso)s">%(time)s UTC</time>' in line


@pytest.mark.parametrize(
    ("language", "one", "five"),
    [
        ("es", "Resueltos: 1 de 5 intentos puntuables.", "Resueltos: 5 de 1 intento puntuable."),
        (
            "fr",
            "Résolus\u00a0: 1 sur 5 tentatives comptées.",
            "Résolus\u00a0: 5 sur 1 tentative comptée.",
        ),
    ],
)
def test_two_counts_take_the_form_of_the_counted_noun(language, one, five):
    """ "Solved: 1 of 5 rated attempts": the plural follows the attempts shown, not the solved."""
    from django.template import Context, Template
    from django.utils import translation

    template = Template(
        "{% load i18n %}{% blocktranslate trimmed with solved=solved count rated=rated %}"
        "Solved: {{ solved }} of {{ rated }} rated attempt.{% plural %}"
        "Solved: {{ solved }} of {{ rated }} rated attempts.{% endblocktranslate %}"
    )
    with translation.override(language):
        assert template.render(Context({"solved": 1, "rated": 5})) == one
        assert template.render(Context({"solved": 5, "rated": 1})) == five
