"""Pages of the learn app: the analysis board and the puzzles. Interfaces only: reads through
``learn.selectors`` / ``learn.board``, writes through ``learn.services``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from core.converters import id_of
from core.plurals import counted_forms
from games import selectors as game_selectors
from games.engine.notation import COLUMNS, EMPTY_BOARD
from games.engine.study import siesta_counts
from games.errors import GameNotFound
from games.models import Game
from games.views import board_rows, client_strings
from learn import board, selectors, services
from learn.models import Puzzle

THEME_NAMES = dict(Puzzle.Theme.choices)
KIND_NAMES = dict(Puzzle.Kind.choices)


def learn_strings() -> dict[str, Any]:
    """The words of the analysis board and puzzle scripts (with the board's own)."""
    return {
        **client_strings(),
        "learn": {
            "to_move": _("Player %(seat)s to move"),
            "over": _("The game is over: %(reason)s."),
            "start": _("Start position"),
            "position": _("Turn %(ply)s of %(total)s"),
            "so_far": _("So far: %(points)s"),
            "reachable": _("At most %(points)s with this start"),
            "no_reach": _("No legal turn starting like this scores a point."),
            "complete": _("A whole turn: play it or keep looking."),
            "best": counted_forms(
                lambda n: ngettext(
                    "Best: %(move)s, %(points)s point", "Best: %(move)s, %(points)s points", n
                )
            ),
            "no_best": _("No scoring turn: the game is over here."),
            "points": counted_forms(lambda n: ngettext("%(points)s point", "%(points)s points", n)),
            "thinking": _("The engine is thinking…"),
            "copied": _("Link copied."),
            "setup_ok": _("Position accepted."),
            "need_turn": _("Place one to three pieces first."),
            "found": counted_forms(
                lambda n: ngettext(
                    "You found %(points)s point of %(best)s.",
                    "You found %(points)s points of %(best)s.",
                    n,
                )
            ),
            "solved": counted_forms(
                lambda n: ngettext(
                    "Solved! %(points)s point is the most any turn scores here.",
                    "Solved! %(points)s points is the most any turn scores here.",
                    n,
                )
            ),
            "not_solved": counted_forms(
                lambda n: ngettext(
                    "Not the best: the most is %(best)s point.",
                    "Not the best: the most is %(best)s points.",
                    n,
                )
            ),
            "rating": _("Your puzzle rating: %(before)s → %(after)s"),
            "source_site": _("From a game played on this site, turn %(ply)s"),
            "source_bots": _("From a game between bots, turn %(ply)s"),
            "streak": _("Streak: %(streak)s"),
            "solution": _("A solution: %(move)s"),
            "wrong": _("Not the best turn: try again, or show the answer."),
            "gave_up": counted_forms(
                lambda n: ngettext(
                    "The answer: the most is %(best)s point.",
                    "The answer: the most is %(best)s points.",
                    n,
                )
            ),
            # A best-turn puzzle is not about the most points now: its words say so.
            "best_turn_solved": _("Solved! Your turn is as good as the expert's best turn."),
            "best_turn_found": counted_forms(
                lambda n: ngettext(
                    "Your turn scores %(points)s point now.",
                    "Your turn scores %(points)s points now.",
                    n,
                )
            ),
            "best_turn_gave_up": counted_forms(
                lambda n: ngettext(
                    "The answer: the expert's best turn, which scores %(best)s point now "
                    "and keeps you furthest ahead after the others' replies.",
                    "The answer: the expert's best turn, which scores %(best)s points now "
                    "and keeps you furthest ahead after the others' replies.",
                    n,
                )
            ),
            "practice": _("Practice: you already have a result here, your rating stays."),
            "throttled": _("Too many requests: wait a moment."),
            "themes": _("Themes: %(themes)s"),
        },
    }


def _page_board() -> dict[str, Any]:
    return {"columns": COLUMNS, "board_rows": board_rows(EMPTY_BOARD)}


# -- analysis board ---------------------------------------------------------------------------


@require_GET
def analysis_board(request: HttpRequest) -> HttpResponse:
    """``/analysis/``: empty, or ``?game=<id>&ply=<n>`` (a finished game, from its replay), or
    ``?r=<record>&ply=<n>`` (a shared link)."""
    record: dict[str, Any] = {"players": 2, "variant": "standard", "moves": []}
    error = ""
    ply: int | None = None
    try:
        ply = int(request.GET["ply"]) if request.GET.get("ply") else None
    except ValueError:
        error = _("The turn number in the link is not a number.")
    game_id = request.GET.get("game")
    if game_id:
        game = Game.objects.filter(pk=id_of(game_id) or 0).first()
        if game is None or not game_selectors.game_visible(game, request.user):
            error = GameNotFound(game_id).message
        elif game.status != Game.Status.FINISHED:
            error = _("Only finished games can be analysed.")
        else:
            record = game_selectors.game_record(game)
            record.pop("hints", None)
            record.pop("teams", None)
    elif request.GET.get("r"):
        try:
            record = board.decode_record(request.GET["r"])
        except board.BoardInputError:
            error = _("The link does not hold a readable game record.")
    context = {
        **_page_board(),
        "initial": {"record": record, "ply": ply, "error": error},
        "strings": learn_strings(),
        "game_id": game_id if game_id and not error else None,
    }
    return render(request, "learn/analysis.html", context)


# -- puzzles ------------------------------------------------------------------------------------


def _filters(request: HttpRequest) -> dict[str, Any]:
    theme = request.GET.get("theme") or None
    difficulty = request.GET.get("difficulty") or None
    kind = request.GET.get("kind") or None
    return {
        "theme": theme if theme in THEME_NAMES else None,
        "difficulty": int(difficulty) if difficulty in {"1", "2", "3", "4", "5"} else None,
        "kind": kind if kind in KIND_NAMES else None,
    }


@require_GET
def puzzles_home(request: HttpRequest) -> HttpResponse:
    daily = services.daily_puzzle_for(day=timezone.localdate())
    player = selectors.puzzle_player(request.user)
    themes = [
        {"code": code, "name": name, "count": selectors.puzzles_filtered(theme=code).count()}
        for code, name in THEME_NAMES.items()
    ]
    kinds = [
        {"code": code, "name": name, "count": selectors.puzzles_filtered(kind=code).count()}
        for code, name in KIND_NAMES.items()
    ]
    return render(
        request,
        "learn/puzzles.html",
        {
            "daily": daily,
            "player": player,
            "themes": themes,
            "kinds": kinds,
            "total": Puzzle.objects.count(),
            "difficulties": range(1, 6),
            "session_streak": request.session.get("puzzle_streak", 0),
        },
    )


@require_GET
def puzzle_next(request: HttpRequest) -> HttpResponse:
    filters = _filters(request)
    seen = request.session.get("puzzles_seen", [])
    puzzle = selectors.puzzle_next(user=request.user, exclude=seen, **filters)
    if puzzle is None and seen and not request.user.is_authenticated:
        request.session["puzzles_seen"] = []  # signed out, every puzzle was seen: start again
        puzzle = selectors.puzzle_next(user=request.user, **filters)
    if puzzle is None:
        return render(request, "learn/no_puzzle.html", {"filters": filters}, status=200)
    query = request.GET.urlencode()
    url = reverse("puzzle", args=[puzzle.pk])
    return redirect(f"{url}?{query}" if query else url)


def theme_names(puzzle: Puzzle) -> list[str]:
    """The puzzle's themes in the reader's language (shown only once it has a result)."""
    return [str(THEME_NAMES.get(t, t)).capitalize() for t in puzzle.theme_list]


DONE_KEY = "puzzles_done"
"""The session's puzzles with a result (an attempt or a give-up, signed in or out): later
results on them are practice, even after signing in (their answer may have been shown)."""


def puzzle_done(session: Any, puzzle_id: int) -> bool:
    return puzzle_id in session.get(DONE_KEY, [])


def source_links(puzzle: Puzzle) -> dict[str, Any]:
    """Where a puzzle came from: the replay of its game (if it was played here) and the analysis
    board at the position."""
    analysis = reverse("analysis")
    if puzzle.source_game_id:
        url = f"{analysis}?game={puzzle.source_game_id}&ply={puzzle.source_ply}"
        replay = reverse("game_replay", args=[puzzle.source_game_id])
    else:
        url = f"{analysis}?r={board.encode_record(puzzle.source_record)}&ply={puzzle.source_ply}"
        replay = None
    return {
        "game": puzzle.source_game_id,
        "ply": puzzle.source_ply,
        "url": url,
        "replay": replay,
        "label": puzzle.source_label,
    }


@require_GET
def puzzle_page(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    puzzle = selectors.puzzle_get(puzzle_id)
    if puzzle is None:
        raise Http404(_("There is no puzzle %(id)s.") % {"id": puzzle_id})
    if not request.user.is_authenticated:
        seen = request.session.get("puzzles_seen", [])
        if puzzle.pk not in seen:
            request.session["puzzles_seen"] = [*seen, puzzle.pk][-500:]
    is_daily = services.daily_puzzle_for(day=timezone.localdate()) == puzzle
    state = {
        "id": puzzle.pk,
        "players": puzzle.players,
        "variant": puzzle.variant,
        "board": puzzle.board,
        "siestas": siesta_counts(puzzle.board),
        "to_move": puzzle.to_move,
        "supply": puzzle.supply,
        "scores": puzzle.scores,
        "kind": puzzle.kind,
        "attempt_url": reverse("api-puzzle-attempt", args=[puzzle.pk]),
        "give_up_url": reverse("api-puzzle-give-up", args=[puzzle.pk]),
        # Already a result here: the page says that another is practice.
        "practice": puzzle_done(request.session, puzzle.pk)
        or selectors.puzzle_tried(request.user, puzzle),
        "next_url": reverse("puzzle_next") + (f"?{request.GET.urlencode()}" if request.GET else ""),
    }
    return render(
        request,
        "learn/puzzle.html",
        {
            **_page_board(),
            "puzzle": puzzle,
            # The themes give the answer away: shown once the reader has a result here.
            "themes": theme_names(puzzle) if state["practice"] else [],
            "state": state,
            "strings": learn_strings(),
            "is_daily": is_daily,
            "player": selectors.puzzle_player(request.user),
            "seats": range(1, puzzle.players + 1),
        },
    )


LIST_PAGE = 30


@require_GET
def puzzle_list(request: HttpRequest) -> HttpResponse:
    """``/puzzles/list/?theme=&difficulty=&kind=&page=``: every puzzle, by theme, difficulty and
    kind, with the reader's result on each; no solution (and no theme but the one chosen)."""
    filters = _filters(request)
    pages = Paginator(selectors.puzzle_list(user=request.user, **filters), LIST_PAGE)
    page = pages.get_page(request.GET.get("page"))
    return render(
        request,
        "learn/puzzle_list.html",
        {
            "page": page,
            "filters": filters,
            "themes": [(code, str(name).capitalize()) for code, name in THEME_NAMES.items()],
            "kinds": [(code, str(name).capitalize()) for code, name in KIND_NAMES.items()],
            "difficulties": range(1, 6),
            "query": urlencode({k: v for k, v in filters.items() if v}),
        },
    )


@login_required
@require_GET
def puzzle_history(request: HttpRequest) -> HttpResponse:
    assert isinstance(request.user, User)  # login_required
    return render(
        request,
        "learn/history.html",
        {
            "attempts": selectors.attempts_of(request.user),
            "player": selectors.puzzle_player(request.user),
        },
    )
