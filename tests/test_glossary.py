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


def compound(word: str, *allowed: str) -> str:
    """A forbidden word anywhere in a word, as German builds compounds: ``compound("Brett")``
    catches "Brett", "Analysebrett", "Brettrand" and "Spielbretts"; the ``allowed`` words
    (any word containing one, any case) are other ideas that happen to contain it
    ("Brettspiel", "Brettspiele")."""
    exempt = "".join(rf"(?!\w*{re.escape(a)})" for a in allowed)
    return rf"(?i:\b{exempt}\w*{re.escape(word)}\w*)"


ANY = r"."
RATING = r"(?i)\brat(ing|ings|ed)\b"
ROUND = r"(?i)\brounds?\b(?![- ]robin)"
ROUND_ROBIN = r"(?i)\bround[- ]robin\b"
SEAT = r"(?i)\bseats?\b"
SCORE = r"(?i)\bscor(e|es|ing)\b"
PUZZLE = r"(?i)\bpuzzles?\b"
PIECE = r"(?i)\bpieces?\b"
CELL = r"(?i)\bcells?\b"
MOVE = r"(?i)\bmoves?\b|\bto move\b"
TURN = r"(?i)\bturns?\b"
STAFF = r"(?i)\bstaff\b"

RULES = [
    # Italian: Elo / punteggio / punti; round (tournament) / turno (game); posizionamento; tu.
    Forbidden("it", ROUND, r"(?i)\bturn[oi]\b", "a tournament round is 'round', a turn 'turno'"),
    Forbidden("it", RATING, r"(?i)\bpunteggi", "a rating is 'Elo', 'punteggio' is the game score"),
    Forbidden("it", r"(?i)\bplac(e|es|ement|ements|ed)\b", r"(?i)piazz", "'posizionamento'"),
    Forbidden("it", r"(?i)\breplay\b", r"(?i)\breplica\b", "the site says 'replay'"),
    Forbidden("it", r"(?i)\bseat %\(seat\)s|per seat\b", r"(?i)\bpost[oi]\b", "'giocatore N'"),
    Forbidden("it", ANY, r"\b(Lei|Suo|Sua|Suoi|Sue)\b", "Italian addresses the player with 'tu'"),
    Forbidden("it", PUZZLE, r"(?i)\b(enigm|rompicap|puzzle)", "a puzzle is 'problema'"),
    Forbidden("it", PIECE, r"(?i)\b(pedin|gettoni?)", "a piece is 'pezzo'"),
    Forbidden("it", CELL, r"(?i)\b(cell[ae]|quadrat)", "a cell is 'casella'"),
    Forbidden(
        "it", TURN, r"(?i)\bmoss[ae]\b", "a turn is 'turno' ('mossa' is a move)", unless=MOVE
    ),
    Forbidden("it", STAFF, r"(?i)\bsquadr", "staff is 'lo staff' ('squadra' is a team)"),
    # Spanish: Elo / puntuación / puntos; liga vs todos contra todos; jugador/puesto; Techo; tú.
    Forbidden("es", RATING, r"(?i)puntuaci", "a rating is 'Elo', 'puntuación' is the game score"),
    Forbidden("es", ROUND_ROBIN, r"(?i)todos contra todos", "round robin is 'liga'"),
    Forbidden("es", r"(?i)\broofs?\b", r"(?i)\btejados?\b", "the roof is 'Techo'"),
    Forbidden("es", SEAT, r"(?i)\basientos?\b", "a seat is 'jugador' or 'puesto'"),
    Forbidden("es", ANY, r"(?i)\busted(es)?\b", "Spanish addresses the player with 'tú'"),
    Forbidden("es", PUZZLE, r"(?i)\b(rompecabezas|acertijo|puzzle)", "a puzzle is 'problema'"),
    Forbidden("es", PIECE, r"(?i)\bfichas?\b", "a piece is 'pieza'"),
    Forbidden("es", CELL, r"(?i)\b(celdas?|cuadros?)\b", "a cell is 'casilla'"),
    Forbidden("es", MOVE, r"(?i)\bmovimientos?\b", "a move is 'jugada'"),
    Forbidden("es", TURN, r"(?i)\bjugadas?\b", "a turn is 'turno'", unless=MOVE + "|ply"),
    Forbidden("es", STAFF, r"(?i)\bequipo", "staff are 'los administradores' ('equipo' is a team)"),
    # German: Wertung (rating) / Punktestand (score) / Punkte (points); Spielfeld; abbestellen; du.
    Forbidden("de", r"(?i)unsubscrib", r"(?i)abmeld", "'Abmelden' is log out: 'abbestellen'"),
    Forbidden("de", SCORE, r"(?i)wertung", "'Wertung' is the rating", unless=RATING),
    Forbidden("de", RATING, r"(?i)elo-zahl", "the rating is 'Wertung'/'Elo-Wertung'"),
    Forbidden("de", r"^Score$", r"^Punkte$", "'Punkte' is the tournament points column"),
    Forbidden("de", r"(?i)\bboard\b(?! game)", compound("brett", "Brettspiel"), "'Spielfeld'"),
    Forbidden("de", r"(?i)\brows?\b", compound("reihe", "Reihenfolge"), "a row is 'Zeile'"),
    Forbidden("de", PUZZLE, compound("aufgabe") + "|" + compound("puzzle"), "a puzzle: 'Rätsel'"),
    Forbidden("de", PIECE, compound("figur") + r"|\bTeile?\b", "a piece is 'Stein'"),
    Forbidden("de", CELL, compound("zelle") + "|" + compound("kästchen"), "a cell is 'Feld'"),
    Forbidden("de", MOVE, compound("bewegung"), "a move is 'Zug'"),
    Forbidden("de", STAFF, compound("team"), "staff are 'Admins' ('Team' is the Teams mode)"),
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
    Forbidden("fr", PUZZLE, r"(?i)\b(énigme|casse-tête|puzzle)", "a puzzle is 'problème'"),
    Forbidden("fr", PIECE, r"(?i)\b(pions?|jetons?)\b", "a piece is 'pièce'"),
    Forbidden("fr", CELL, r"(?i)\bcellules?\b", "a cell is 'case'"),
    Forbidden("fr", MOVE, r"(?i)\bmouvements?\b", "a move is 'coup'"),
    Forbidden("fr", r"(?i)\bto move\b", r"(?i)\bau trait\b", "'à jouer'"),
    Forbidden(
        "fr", TURN, r"(?i)\bcoups?\b", "a turn is 'tour' ('coup' is a move)", unless=MOVE + "|ply"
    ),
    Forbidden("fr", STAFF, r"(?i)\béquipe", "staff are 'les administrateurs' ('équipe': a team)"),
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


def _rule(language: str, concept: str) -> Forbidden:
    return next(r for r in RULES if r.language == language and r.concept == concept)


@pytest.mark.parametrize(
    ("text", "caught"),
    [
        ("Analysebrett", True),
        ("Frei erkunden auf dem Analysebrett", True),
        ("das Brett", True),
        ("am Spielbrettrand", True),
        ("Analyse-Spielfeld", False),
        ("Siesta ist ein Brettspiel", False),
        ("zwei Brettspiele", False),
    ],
)
def test_a_german_rule_catches_the_forbidden_word_inside_compounds(text, caught):
    """German glues words together: the board rule must see "Brett" in "Analysebrett"."""
    rule = _rule("de", r"(?i)\bboard\b(?! game)")
    assert bool(re.search(rule.term, text)) is caught


def test_compound_rules_keep_their_exemptions():
    row = _rule("de", r"(?i)\brows?\b")
    assert re.search(row.term, "Dachreihe")
    assert not re.search(row.term, "in beliebiger Reihenfolge")
    staff = _rule("de", STAFF)
    assert re.search(staff.term, "das Team")
    assert re.search(staff.term, "Teammitglieder")
    assert not re.search(staff.term, "die Admins")


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


@pytest.mark.parametrize("language", ["it", "fr"])
def test_apostrophes_are_typographic(language):
    """One apostrophe in Italian and French: ’ (l’Elo, qu’une), never ' between letters."""
    straight = re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_])")
    problems = [
        f"django.po:{entry.line} {entry.msgid!r}: {text!r}"
        for entry in _catalogue(language)
        for text in _texts(entry)
        if straight.search(text)
    ]
    assert not problems, "\n".join(problems)
