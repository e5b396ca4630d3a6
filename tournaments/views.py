"""Pages: the tournaments list and a tournament's page, whose live part the page's script reloads
whenever the tournament's WebSocket pushes a new version.

Views are interfaces: they read through ``tournaments.selectors``, write through
``tournaments.services`` and turn service errors into messages, never into a 500.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from games.models import Game, turn_time_label
from games.services import GameServiceError, NotFound
from tournaments import selectors, services
from tournaments.models import Format, Tournament
from tournaments.state import TournamentState

FINISHED_LISTED = 20


def _summary(tournament: Tournament) -> dict[str, Any]:
    """The words for a tournament's settings, shared by the list and the page."""
    if tournament.format == Format.ROUND_ROBIN:
        rounds = _("every pair meets once")
    else:
        count = tournament.rounds or 0
        rounds = ngettext("%(count)s round", "%(count)s rounds", count) % {"count": count}
    return {
        "format": tournament.get_format_display(),
        "rounds": rounds,
        "seats": _("%(count)s per table") % {"count": tournament.table_size},
        "mode": Game.Mode(tournament.mode).label,
        "variant": Game.Variant(tournament.variant).label,
        "turn_time": turn_time_label(tournament.turn_seconds),
    }


def _card(tournament: Tournament, request: HttpRequest) -> dict[str, Any]:
    players = list(tournament.players.all())
    user = request.user
    return {
        "tournament": tournament,
        "summary": _summary(tournament),
        "count": len(players),
        "joined": user.is_authenticated and any(p.user_id == user.pk for p in players),
        "full": len(players) >= tournament.max_players,
    }


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """Upcoming tournaments (with a countdown and join/leave), running ones, finished ones."""
    everything = selectors.tournament_list()
    upcoming = everything.filter(status=Tournament.Status.SCHEDULED).order_by("starts_at", "id")
    running = everything.filter(status=Tournament.Status.RUNNING).order_by("starts_at", "id")
    over = everything.filter(
        status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
    ).order_by("-starts_at", "-id")[:FINISHED_LISTED]
    return render(
        request,
        "tournaments/list.html",
        {
            "upcoming": [_card(t, request) for t in upcoming],
            "running": [_card(t, request) for t in running],
            "finished": [_card(t, request) for t in over],
            "strings": client_strings(),
        },
    )


def _get(tournament_id: int) -> Tournament:
    try:
        return selectors.tournament_get(tournament_id)
    except Tournament.DoesNotExist:
        raise Http404(_("There is no tournament %(id)s.") % {"id": tournament_id}) from None


def _page_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    state = selectors.tournament_state(tournament)
    user = request.user
    username = user.get_username() if user.is_authenticated else None
    entry = next((p for p in state["players"] if p["username"] == username), None)
    return {
        **_card(tournament, request),
        "state": state,
        "rounds": _rounds(state),
        "my_game": selectors.current_game_of(state, username) if username else None,
        "withdrawn": bool(entry and entry["withdrawn"]),
        "strings": client_strings(),
    }


def _rounds(state: TournamentState) -> list[dict[str, Any]]:
    """The rounds, latest first, each game with its seats' names and (once over) scores."""
    rounds = []
    for rnd in reversed(state["pairings"]):
        games = []
        for game in rnd["games"]:
            scores: Sequence[int | None] = game["scores"] or [None] * len(game["players"])
            points: Sequence[float | None] = game["points"] or [None] * len(game["players"])
            seats = [
                {
                    "name": name,
                    "score": score,
                    "won": point == 1,
                    "forfeit": name in game["forfeits"],
                }
                for name, score, point in zip(game["players"], scores, points, strict=True)
            ]
            result = " – ".join(_points_text(p) for p in game["points"] or [])
            games.append({**game, "seats": seats, "result": result})
        rounds.append({**rnd, "games": games})
    return rounds


def _points_text(points: float) -> str:
    """Tournament points as a player reads them: 1, ½, 0, or ⅓-like shares as 0.33."""
    if points == 0.5:
        return "½"
    return f"{points:.2f}".rstrip("0").rstrip(".")


@require_GET
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _get(tournament_id)
    return render(request, "tournaments/detail.html", _page_context(request, tournament))


@require_GET
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of the page alone (status, your game, standings, rounds): the page's script
    swaps it in when the WebSocket announces a new version."""
    tournament = _get(tournament_id)
    return render(request, "tournaments/_live.html", _page_context(request, tournament))


def _back(request: HttpRequest, tournament_id: int) -> HttpResponse:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return redirect(target)
    return redirect("tournament", tournament_id=tournament_id)


def _signed_in(request: HttpRequest) -> User:
    """The user of a ``login_required`` view."""
    return cast(User, request.user)


@login_required
@require_POST
def tournament_join(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        services.tournament_join(tournament_id=tournament_id, user=_signed_in(request))
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("You joined the tournament."))
    return _back(request, tournament_id)


@login_required
@require_POST
def tournament_leave(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        tournament = services.tournament_leave(
            tournament_id=tournament_id, user=_signed_in(request)
        )
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameServiceError as exc:
        messages.error(request, exc.message)
    else:
        if tournament.status == Tournament.Status.RUNNING:
            messages.success(request, _("You withdrew from the tournament."))
        else:
            messages.success(request, _("You left the tournament."))
    return _back(request, tournament_id)


def client_strings() -> dict[str, str]:
    """The translated words the page script shows (placeholders ``%(name)s``)."""
    return {
        "starts_in": _("Starts in %(time)s"),
        "starting": _("Starting…"),
        "days": _("%(days)s d"),
        "connection_lost": _("Connection lost. Reconnecting…"),
    }
