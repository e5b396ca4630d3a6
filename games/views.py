"""Pages: the player's pages (lobby, game, replay).

Views are interfaces: they read through ``games.selectors``, write through ``games.services`` and
turn service errors into messages, never into a 500.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.plurals import counted_forms
from games import selectors, services
from games.a11y import a11y_strings
from games.engine.notation import COLUMNS, SIZE, board_squares, cell_name
from games.forms import (
    OPPONENT_SEATS,
    PERSON,
    GameCreateForm,
    seat_field_name,
)
from games.models import Game, Seat, turn_time_label
from games.state import GameState

LOBBY_LIST_SIZE = 20
RECENT_FINISHED = 10


# -- lobby ---------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def lobby(request: HttpRequest) -> HttpResponse:
    """Lists of open, live and the user's games, and the form that creates a game."""
    data: QueryDict | None = request.POST or None
    if data is not None and data.get("start") == "person":
        # "Play a person": every other seat waits for a person; the game opens with an invite link.
        data = data.copy()
        for seat in OPPONENT_SEATS:
            data[seat_field_name(seat)] = PERSON
    form = GameCreateForm(data)
    if request.method == "POST":
        if not request.user.is_authenticated:
            messages.error(request, _("Log in to create a game."))
            return redirect_to_login(reverse("lobby"))
        if form.is_valid():
            try:
                game = services.game_create(user=request.user, **form.service_arguments())
            except services.GameServiceError as exc:
                messages.error(request, exc.message)
            else:
                return redirect("game", game_id=game.pk)
    lists: dict[str, list[Game]] = {
        "open_games": list(
            selectors.game_list(status=Game.Status.OPEN, viewer=request.user)[:LOBBY_LIST_SIZE]
        ),
        "live_games": list(
            selectors.game_list(status=Game.Status.ACTIVE, viewer=request.user)[:LOBBY_LIST_SIZE]
        ),
        "my_games": [],
        "my_finished_games": [],
    }
    if request.user.is_authenticated:
        lists["my_games"] = list(selectors.games_of_user_playing(request.user.pk))
        finished = selectors.game_list(
            status=Game.Status.FINISHED, player=request.user.get_username(), viewer=request.user
        ).order_by("-finished_at", "-id")
        lists["my_finished_games"] = list(finished[:RECENT_FINISHED])
    # Every list's rows at once: the seats' ratings in one query per pool for the four lists.
    rows = iter(selectors.games_listed(game for games in lists.values() for game in games))
    context: dict[str, Any] = {
        "form": form,
        "start_strings": GameCreateForm.start_strings(),
        **{name: [next(rows) for _ in games] for name, games in lists.items()},
    }
    if request.GET.get("lists"):
        # lobby.js polls this to keep the lists live.
        return render(request, "games/_lobby_lists.html", context)
    return render(request, "games/lobby.html", context)


@login_required
@require_POST
def game_join(request: HttpRequest, game_id: int) -> HttpResponse:
    assert isinstance(request.user, User)  # login_required
    try:
        selectors.game_visible_check(game_id, request.user)
        services.game_join(game_id=game_id, user=request.user)
    except services.NotFound as exc:
        raise Http404(exc.message) from None
    except services.GameServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    messages.success(request, _("You joined game %(id)s.") % {"id": game_id})
    return redirect("game", game_id=game_id)


@login_required
@require_POST
def game_cancel(request: HttpRequest, game_id: int) -> HttpResponse:
    """The lobby's Cancel button: the creator withdraws an open game."""
    assert isinstance(request.user, User)  # login_required
    try:
        selectors.game_visible_check(game_id, request.user)
        services.game_cancel(game_id=game_id, user=request.user)
    except services.NotFound as exc:
        raise Http404(exc.message) from None
    except services.GameServiceError as exc:
        messages.error(request, exc.message)
        return redirect("game", game_id=game_id)
    messages.success(request, _("Game %(id)s is cancelled.") % {"id": game_id})
    return redirect("lobby")


# -- game and replay ---------------------------------------------------------------------------


@require_GET
def game(request: HttpRequest, game_id: int) -> HttpResponse:
    """The live game page; a finished game shows its result and the replay."""
    found = _game_or_404(game_id, request)
    if found.status == Game.Status.FINISHED:
        return render(request, "games/replay.html", _game_context(request, found))
    return render(request, "games/game.html", _game_context(request, found))


@require_GET
def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    return render(
        request, "games/replay.html", _game_context(request, _game_or_404(game_id, request))
    )


def _game_or_404(game_id: int, request: HttpRequest) -> Game:
    """The game, if the request may see it (a private game is "not found" to anyone else)."""
    try:
        game = selectors.game_or_not_found(game_id)
    except services.GameNotFound as exc:
        raise Http404(exc.message) from None
    if not selectors.game_visible(game, request.user):
        raise Http404(services.GameNotFound(game_id).message)
    return game


def _game_context(request: HttpRequest, game: Game) -> dict[str, Any]:
    seats = selectors.game_seats(game)
    state = selectors.game_state(game, seats, ratings=True)
    user = request.user
    mine = game.seat_of(user, seats)
    marks = recent_marks(state, mine.seat if mine else None)
    names = {s.seat: seat_name(s) for s in seats}
    return {
        "game": game,
        "state": state,
        "turn_time": turn_time_label(game.turn_seconds),
        "turns": [{**turn, "name": names.get(turn["seat"], "")} for turn in state["turns"]],
        "my_seat": mine.seat if mine else None,
        "seats": [
            _seat_view(s, game, mine, seen, state["result"]["winners"] if state["result"] else [])
            for s, seen in zip(seats, state["seats"], strict=True)
        ],
        "team_scores": selectors.team_scores(game, seats),
        "columns": COLUMNS,
        "board_rows": board_rows(state["board"], marks),
        "can_cancel": game.status == Game.Status.OPEN
        and mine is not None
        and mine.seat == 1
        and user.is_authenticated,
        "strings": client_strings(),
        "has_analysis_js": finders.find("js/analysis.js") is not None,
    }


def recent_marks(state: GameState, my_seat: int | None) -> dict[str, int]:
    """Cells placed since ``my_seat``'s last turn (a watcher: in the last round), by the seat
    that placed them; game.js draws the same outlines as the game goes on."""
    turns = state["turns"]
    start = max(0, len(turns) - (state["players"] - 1))
    if my_seat is not None:
        mine = max((i for i, t in enumerate(turns) if t["seat"] == my_seat), default=-1)
        start = min(mine + 1, max(0, len(turns) - 1))
    return {
        placement[1:].upper(): turn["seat"]
        for turn in turns[start:]
        for placement in turn["move"].split()
    }


def board_rows(
    board: Sequence[str], marks: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    """The board text as rows of cells for ``games/_board.html``: name, kind of square
    (the engine's board codec), roof seat, and the seat that recently placed a piece there."""
    marks = marks or {}
    rows: list[dict[str, Any]] = [{"number": number, "cells": []} for number in range(1, SIZE + 1)]
    for cell, square in board_squares(board):
        name = cell_name(cell)
        rows[cell // SIZE]["cells"].append(
            {"name": name, "kind": square.kind, "seat": square.seat, "mark": marks.get(name)}
        )
    return rows


def seat_name(seat: Seat) -> str:
    """What a seat is called on the page: the username, the bot's level, or an empty seat."""
    if seat.user_id and seat.user:
        return seat.user.get_username()
    bots: dict[str, str] = {
        Seat.BotLevel.EASY: _("Bot (easy)"),
        Seat.BotLevel.MEDIUM: _("Bot (medium)"),
        Seat.BotLevel.HARD: _("Bot (hard)"),
        Seat.BotLevel.EXPERT: _("Bot (expert)"),
    }
    return bots.get(seat.bot_level, _("Waiting for a player…"))


def _seat_view(
    seat: Seat, game: Game, mine: Seat | None, state_seat: Mapping[str, Any], winners: Sequence[int]
) -> dict[str, Any]:
    return {
        "seat": seat.seat,
        "name": seat_name(seat),
        "username": seat.user.get_username() if seat.user_id and seat.user else None,
        "is_bot": seat.is_bot,
        "is_you": mine is not None and mine.pk == seat.pk,
        "team": seat.team,
        "score": seat.score,
        "roofs_left": seat.roofs_left,
        "hinted": seat.hinted,
        "out_reason": seat.get_out_reason_display() if seat.out_reason else "",
        "to_move": game.status == Game.Status.ACTIVE and game.to_move == seat.seat,
        "winner": game.status == Game.Status.FINISHED and seat.seat in winners,
        "rating": state_seat.get("rating"),
    }


def client_strings() -> dict[str, Any]:
    """The translated words the page scripts show, handed to them with ``json_script``.

    Placeholders are ``%(name)s``, filled in by the scripts."""
    return {
        "seat": _("Player %(seat)s"),
        "seat_label": _("Player %(seat)s:"),
        "seat_title": _("Player %(seat)s: %(name)s"),
        "score_label": _("Score:"),
        "team": _("Team %(team)s"),
        "bots": {
            "easy": _("Bot (easy)"),
            "medium": _("Bot (medium)"),
            "hard": _("Bot (hard)"),
            "expert": _("Bot (expert)"),
        },
        "empty_seat": _("Waiting for a player…"),
        "you": _("you"),
        "score": _("Score"),
        "roofs_left": _("Roofs left: %(count)s"),
        "hinted": _("Used a hint: this game does not count for their rating"),
        "out": {"resigned": _("resigned"), "timeout": _("time ran out"), "forfeit": _("forfeited")},
        "to_move": _("to move"),
        "team_sum": _("Team %(team)s: %(score)s"),
        "cell": {
            "empty": _("%(cell)s: empty"),
            "sun": _("%(cell)s: sun"),
            "shadow": _("%(cell)s: shadow"),
            "roof": _("%(cell)s: roof of player %(seat)s"),
            "provisional": _("%(cell)s: %(piece)s placed this turn, not confirmed yet"),
            "hint": _("%(cell)s: the hint suggests %(piece)s"),
            "overlay": _("%(cell)s: marked %(piece)s"),
        },
        "pieces": {"S": _("sun"), "R": _("roof"), "H": _("shadow")},
        "status": {
            "open": _("Waiting for players to join."),
            "your_turn": _("Your turn"),
            "their_turn": _("%(name)s is to move."),
            "finished": _("The game is over."),
            "cancelled": _("This game was cancelled."),
        },
        "need": {
            "3": _("Place three pieces."),
            "2": _("Place two more pieces."),
            "1": _("Place one more piece."),
        },
        "no_point": _("This turn scores no point for you yet: a turn must score at least 1."),
        "preview": counted_forms(
            lambda n: ngettext(
                "This turn scores you %(points)s point.",
                "This turn scores you %(points)s points.",
                n,
            )
        ),
        "ends_game": _("This placement ends the game: confirm it."),
        "turn_full": _("Three pieces are placed: confirm, undo or clear."),
        "checking": _("Checking…"),
        "taken": _("%(cell)s is already taken."),
        "not_your_turn": _("It is not your turn."),
        "sent": _("Turn sent."),
        "scored": counted_forms(
            lambda n: ngettext(
                "Your turn scored %(points)s point.", "Your turn scored %(points)s points.", n
            )
        ),
        "bad_notation": _("Write placements like SF5 RF6 HF7."),
        "hint_confirm": _("Ask for a hint? This game will then not count for your rating."),
        "hint_confirm_casual": _(
            "Ask for a hint? The engine shows you the turn that scores the most."
        ),
        "hint_ok": _("Show me a hint"),
        "resign_ok": _("Resign"),
        "your_turn_title": _("(Your turn)"),
        "clock_yours": _("Your time left"),
        "clock_of": _("Time left for %(name)s"),
        "points_for": _("%(name)s +%(points)s"),
        "link_copied": _("Link copied."),
        "aborted": _("Aborted: the game ended before every player had moved, so nobody won."),
        "rating": _("Rating"),
        "rating_change": _("Rating %(before)s → %(after)s (%(change)s)"),
        "hint_not_counted": _(
            "%(names)s asked for a hint in this game, so it does not count for their rating."
        ),
        "rating_reasons": {
            "hint": _("not counted: asked for a hint"),
            "casual": _("not counted: casual game"),
            "too_few_rated_players": _("not counted: fewer than two people in the game"),
            "aborted": _("not counted: the game ended before everyone had moved"),
        },
        "hint_shown": counted_forms(
            lambda n: ngettext(
                "Hint: %(move)s scores %(points)s point.",
                "Hint: %(move)s scores %(points)s points.",
                n,
            )
        ),
        "hint_none": _("The engine found no scoring turn for you."),
        "resign_confirm": _("Resign this game? You cannot come back to it."),
        "connection_lost": _("Connection lost. Reconnecting…"),
        "reconnected": _("Connected again."),
        "unknown_error": _("Something went wrong. Please try again."),
        "clock_days": _("%(days)s d %(time)s"),
        "end_reasons": dict(Game.EndReason.choices),
        "winner": _("Winner: %(names)s"),
        "winners": _("Winners (a draw): %(names)s"),
        "team_wins": _("Team %(team)s wins: %(names)s"),
        "team_draw": _("The teams drew."),
        "winner_mark": _("winner"),
        "game_over": _("The game is over: %(reason)s."),
        "replay": {
            "start": _("Start of the game"),
            "position": _("Turn %(ply)s of %(total)s"),
            "played": _("%(name)s played %(move)s"),
            "hint": _("Played after a hint"),
            "chart": _("Scores over the turns"),
            "turn_axis": _("Turn"),
            "score_axis": _("Score"),
            # The post-game analysis (analysis.js): a biggest miss in the table.
            "miss": counted_forms(
                lambda n: ngettext(
                    "turn %(ply)s: %(missed)s point missed",
                    "turn %(ply)s: %(missed)s points missed",
                    n,
                )
            ),
        },
        "a11y": a11y_strings(),
    }
