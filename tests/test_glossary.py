"""The catalogues follow locale/GLOSSARY.md: one word per idea, one form of address, and French
typography.

Each rule is a pair: entries whose msgid names a concept (a pattern on the English) must not use a
term the glossary forbids for it in that language. A failure names the file, line, msgid and text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

from tests.test_i18n import Entry, read_po

LOCALE_DIR = Path(settings.LOCALE_PATHS[0])
TEMPLATES = Path(settings.BASE_DIR) / "templates"


@dataclass(frozen=True)
class Forbidden:
    """In ``language``, a msgid matching ``concept`` must not have a msgstr matching ``term``."""

    language: str
    concept: str
    term: str
    why: str
    unless: str | None = None  # a msgid pattern that exempts the entry (a second meaning)


ANY = r"."
RATING = r"(?i)\brat(ing|ings|ed)\b"
ROUND = r"(?i)\brounds?\b(?![- ]robin)"
ROUND_ROBIN = r"(?i)\bround[- ]robin\b"
SEAT = r"(?i)\bseats?\b"
SCORE = r"(?i)\bscor(e|es|ing)\b"

RULES = [
    # Italian: Elo / punteggio / punti; round (tournament) / turno (game); posizionamento; tu.
    Forbidden("it", ROUND, r"(?i)\bturn[oi]\b", "a tournament round is 'round', a turn 'turno'"),
    Forbidden("it", RATING, r"(?i)\bpunteggi", "a rating is 'Elo', 'punteggio' is the game score"),
    Forbidden("it", r"(?i)\bplac(e|es|ement|ements|ed)\b", r"(?i)piazz", "'posizionamento'"),
    Forbidden("it", r"(?i)\breplay\b", r"(?i)\breplica\b", "the site says 'replay'"),
    Forbidden("it", r"(?i)\bseat %\(seat\)s|per seat\b", r"(?i)\bpost[oi]\b", "'giocatore N'"),
    Forbidden("it", ANY, r"\b(Lei|Suo|Sua|Suoi|Sue)\b", "Italian addresses the player with 'tu'"),
    # Spanish: Elo / puntuación / puntos; liga vs todos contra todos; jugador/puesto; Techo; tú.
    Forbidden("es", RATING, r"(?i)puntuaci", "a rating is 'Elo', 'puntuación' is the game score"),
    Forbidden("es", ROUND_ROBIN, r"(?i)todos contra todos", "round robin is 'liga'"),
    Forbidden("es", r"(?i)\broofs?\b", r"(?i)\btejados?\b", "the roof is 'Techo'"),
    Forbidden("es", SEAT, r"(?i)\basientos?\b", "a seat is 'jugador' or 'puesto'"),
    Forbidden("es", ANY, r"(?i)\busted(es)?\b", "Spanish addresses the player with 'tú'"),
    # German: Wertung (rating) / Punktestand (score) / Punkte (points); Spielfeld; abbestellen; du.
    Forbidden("de", r"(?i)unsubscrib", r"(?i)abmeld", "'Abmelden' is log out: 'abbestellen'"),
    Forbidden("de", SCORE, r"(?i)wertung", "'Wertung' is the rating", unless=RATING),
    Forbidden("de", RATING, r"(?i)elo-zahl", "the rating is 'Wertung'/'Elo-Wertung'"),
    Forbidden("de", r"^Score$", r"^Punkte$", "'Punkte' is the tournament points column"),
    Forbidden("de", r"(?i)\bboard\b(?! game)", r"\bBrett\b", "the board is 'Spielfeld'"),
    Forbidden("de", r"(?i)\brows?\b", r"\bReihen?\b", "a row is 'Zeile'"),
    Forbidden("de", r"(?i)\bply\b", r"(?i)halbzug", "'Zug'"),
    Forbidden("de", ANY, r"\b(Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b", "German says 'du'"),
    Forbidden("de", ANY, r"(?i)partie", "a game is 'Spiel' (Turnierspiel), never 'Partie'"),
    Forbidden("de", r"(?i)\bplayer %\(seat\)s", r"\bPlatz %\(seat\)s", "'Spieler N'"),
    # French: Elo / score / points; ronde / tour; joueur (not siège); vous.
    Forbidden(
        "fr",
        RATING,
        r"(?i)\bclassements?\b(?! elo)",
        "a rating is 'Elo' ('classement' is a ranking: leaderboard, standings)",
        unless=r"(?i)leaderboard|standings",
    ),
    Forbidden("fr", SEAT, r"(?i)\bsièges?\b", "a seat is 'joueur' or 'place'"),
    Forbidden(
        "fr",
        ANY,
        r"(?i)(?<![\w’'-])(tu|ton|ta|tes|toi|te)(?![\w’'-])|-toi\b|\bt’",
        "French addresses the player with 'vous'",
    ),
]

# French: a no-break space (U+00A0 or U+202F) before : ; ! ? and inside « ».
# "?!" and "??" are the analysis marks, quoted as symbols.
FRENCH_SPACING = [
    (re.compile(r"[ \t]([:;!?])"), "an ordinary space before {0}"),
    (
        re.compile(r"(?<=[\w»)%])([;!?])(?=\s|$)|(?<=[^\W\d]|»|\))(:)(?=\s|$)"),
        "no space before {0}",
    ),
    (re.compile(r"«(?![\u00a0\u202f])|(?<![\u00a0\u202f])»"), "no no-break space inside {0}"),
]
MARKS = re.compile(r"«\u00a0(\?!|\?\?)\u00a0»")


def _catalogue(language: str) -> list[Entry]:
    return read_po(LOCALE_DIR / language / "LC_MESSAGES" / "django.po")[1:]


def _texts(entry: Entry) -> list[str]:
    return list(entry.msgstr.values())


def _msgids(entry: Entry) -> str:
    return entry.msgid + "\n" + (entry.msgid_plural or "")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.language}:{r.term}")
def test_catalogue_avoids_the_forbidden_term(rule: Forbidden):
    problems = []
    for entry in _catalogue(rule.language):
        msgid = _msgids(entry)
        if not re.search(rule.concept, msgid, re.M):
            continue
        if rule.unless and re.search(rule.unless, msgid):
            continue
        for text in _texts(entry):
            if re.search(rule.term, text):
                problems.append(f"django.po:{entry.line} {entry.msgid!r}: {text!r}")
    assert not problems, f"{rule.language}: {rule.why}\n" + "\n".join(problems)


def _french_spacing_problems(text: str) -> list[str]:
    text = MARKS.sub("", text)
    return [
        what.format(match.group(0).strip())
        for pattern, what in FRENCH_SPACING
        for match in pattern.finditer(text)
    ]


def test_french_catalogue_uses_no_break_spaces():
    problems = []
    for entry in _catalogue("fr"):
        for text in _texts(entry):
            for problem in _french_spacing_problems(text):
                problems.append(f"django.po:{entry.line} {entry.msgid!r}: {problem} in {text!r}")
    assert not problems, "\n".join(problems)


def test_french_rules_page_uses_no_break_spaces():
    html = (TEMPLATES / "rules" / "rules_fr.html").read_text(encoding="utf-8")
    body = re.sub(r"{% comment %}.*?{% endcomment %}", "", html, flags=re.S)
    body = re.sub(r"{%.*?%}|{{.*?}}|<[^>]*>", "", body, flags=re.S)
    body = body.replace("&nbsp;", "\u00a0").replace("&#8239;", "\u202f")
    problems = [
        f"rules_fr.html: {problem} near {body[max(0, m.start() - 30) : m.end() + 10]!r}"
        for pattern, problem in [(re.compile(r"[ \t\n]([:;!?])(?=\s|$)"), "an ordinary space")]
        for m in pattern.finditer(body)
    ]
    assert not problems, "\n".join(problems)


def test_french_spacing_check_finds_the_mistakes():
    assert _french_spacing_problems("Trop de joueurs : attendez.") == ["an ordinary space before :"]
    assert _french_spacing_problems("Bonjour!") == ["no space before !"]
    assert _french_spacing_problems("(« ? »)") != []
    assert _french_spacing_problems("Trop de joueurs\u00a0: attendez\u202f!") == []
    assert _french_spacing_problems("à 18:00, voir https://example.org") == []
    assert _french_spacing_problems("marqués «\u00a0?!\u00a0» ou «\u00a0??\u00a0»") == []


def test_forbidden_rule_catches_a_tournament_round_called_turno():
    rule = next(r for r in RULES if r.language == "it" and "turn" in r.term)
    assert re.search(rule.concept, "Round %(number)s")
    assert not re.search(rule.concept, "A round robin plays every pair once.")
    assert re.search(rule.term, "Turno 1 di 3")
    assert not re.search(rule.term, "Round 1 di 3")


def test_counted_points_are_plural_entries():
    """A count shown with "points" goes through ngettext/blocktranslate count ("1 points")."""
    counted = re.compile(r"%\((points|best|count|counter)\)s points?\b")
    for language in ("es", "de", "it", "fr"):
        singular = [
            f"{language}:{e.line} {e.msgid!r}"
            for e in _catalogue(language)
            if e.msgid_plural is None and counted.search(e.msgid)
        ]
        assert not singular, "\n".join(singular)


# "Play Siesta online" is a sentence (play the game online); everywhere else it is the site's name.
BRAND = re.compile(r"Siesta online")


def test_the_site_name_is_never_translated():
    problems = [
        f"{language}:{entry.line} {entry.msgid!r}: {text!r}"
        for language in ("es", "de", "it", "fr")
        for entry in _catalogue(language)
        if BRAND.search(entry.msgid) and entry.msgid != "Play Siesta online"
        for text in _texts(entry)
        if not BRAND.search(text)
    ]
    assert not problems, "\n".join(problems)


def test_the_english_source_names_a_player_never_a_seat_number():
    """On screen a seat is always "player N" (the glossary's seat / player)."""
    seats = [
        f"{entry.line} {entry.msgid!r}"
        for entry in _catalogue("de")
        if re.search(r"\bSeat %\(seat\)s|\bseat %\(seat\)s", _msgids(entry))
    ]
    assert not seats, "\n".join(seats)
