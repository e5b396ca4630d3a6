"""Pages: the tournaments list and a tournament's page, whose live part the page's script reloads
whenever the tournament's WebSocket pushes a new version.

Views are interfaces: they read through ``tournaments.selectors``, write through
``tournaments.services`` and turn service errors into messages, never into a 500.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from core.errors import NotFound, ServiceError
from core.throttling import TOURNAMENT_CREATE, wait_words
from games.models import Game, turn_time_label
from tournaments import entry, selectors, services
from tournaments.forms import TournamentForm
from tournaments.models import Format, Tournament, Visibility
from tournaments.state import TournamentState

FINISHED_LISTED = 20


def _summary(tournament: Tournament) -> dict[str, Any]:
    """The words for a tournament's settings, shared by the list and the page."""
    if tournament.format == Format.ROUND_ROBIN:
        rounds = _("every pair meets once")
    elif tournament.format == Format.ARENA:
        minutes = tournament.duration_minutes or 0
        rounds = ngettext("%(count)s minute", "%(count)s minutes", minutes) % {"count": minutes}
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
    entry = next((p for p in players if user.is_authenticated and p.user_id == user.pk), None)
    return {
        "tournament": tournament,
        "summary": _summary(tournament),
        "count": len(players),
        "joined": entry is not None,
        "full": len(players) >= tournament.max_players,
        "paused": bool(entry and entry.paused),
        "arena_ends_at": services.arena_ends_at(tournament)
        if tournament.format == Format.ARENA
        else None,
        "arena_open": tournament.format == Format.ARENA
        and tournament.status == Tournament.Status.RUNNING
        and timezone.now() < services.arena_ends_at(tournament)
        and not (entry and entry.withdrawn),
    }


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """Upcoming tournaments (with a countdown and join/leave), running ones, finished ones."""
    everything = selectors.tournaments_listed(viewer=request.user)
    upcoming = everything.filter(status=Tournament.Status.SCHEDULED).order_by(
        "-featured", "starts_at", "id"
    )
    running = everything.filter(status=Tournament.Status.RUNNING).order_by(
        "-featured", "starts_at", "id"
    )
    # A scheduled tournament nobody came to is not worth listing (an hourly one each hour).
    over = (
        everything.filter(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
        .exclude(schedule__isnull=False, cancel_reason=services.CANCEL_TOO_FEW)
        .order_by("-starts_at", "-id")[:FINISHED_LISTED]
    )
    return render(
        request,
        "tournaments/list.html",
        {
            "upcoming": [_card(t, request) for t in upcoming],
            "running": [_card(t, request) for t in running],
            "finished": [_card(t, request) for t in over],
            "strings": client_strings(),
            "create_refusal": selectors.creation_refusal(request.user),
        },
    )


def _get(tournament_id: int, request: HttpRequest, invite: str | None = None) -> Tournament:
    """The tournament, if the request may see it (``selectors.can_see``): an invitation needs
    its link's token (``invite``, else ``?invite=``) unless the viewer created or joined it. To
    anyone else it answers exactly as an unknown id: 404, whatever the method."""
    try:
        tournament = selectors.tournament_get(tournament_id)
    except Tournament.DoesNotExist:
        tournament = None
    token = invite if invite is not None else request.GET.get("invite")
    if tournament is None or not selectors.can_see(tournament, request.user, token):
        raise Http404(_("There is no tournament %(id)s.") % {"id": tournament_id})
    return tournament


def _page_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    state = selectors.tournament_state(tournament)
    user = request.user
    username = user.get_username() if user.is_authenticated else None
    entry = next((p for p in state["players"] if p["username"] == username), None)
    changes = selectors.rating_changes(tournament)
    ratings = selectors.entrant_ratings(tournament)
    arena = state["arena"]
    performance = arena["performance"] if arena else {}
    return {
        **_card(tournament, request),
        "state": state,
        "rounds": _rounds(state, ratings),
        "entrants": [{**p, "rating": ratings.get(p["username"])} for p in state["players"]],
        "standings": [
            {
                **row,
                "rating": ratings.get(row["username"]),
                "rating_change": changes.get(row["username"]),
                "performance": performance.get(row["username"]),
            }
            for row in state["standings"]
        ],
        "arena_ends_at": services.arena_ends_at(tournament) if arena else None,
        "my_game": selectors.current_game_of(state, username) if username else None,
        "my_next": selectors.tournament_game_of(user.pk, tournament_id=tournament.pk)
        if user.pk is not None
        else None,
        "withdrawn": bool(entry and entry["withdrawn"]),
        "withdrawal": selectors.withdrawal_of(tournament, user.pk)
        if entry and entry["withdrawn"] and user.pk is not None
        else None,
        "strings": client_strings(),
        "invite": request.GET.get("invite", ""),
        "can_edit": _can_edit(tournament, request),
    }


def _can_edit(tournament: Tournament, request: HttpRequest) -> bool:
    user = request.user
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return tournament.status in (Tournament.Status.SCHEDULED, Tournament.Status.RUNNING)
    return tournament.created_by_id == user.pk and tournament.status == Tournament.Status.SCHEDULED


def _rounds(state: TournamentState, ratings: dict[str, int]) -> list[dict[str, Any]]:
    """The rounds, latest first, each game with its seats' names, ratings and (once over)
    scores."""
    rounds = []
    for rnd in reversed(state["pairings"]):
        games = []
        for game in rnd["games"]:
            scores: Sequence[int | None] = game["scores"] or [None] * len(game["players"])
            points: Sequence[float | None] = game["points"] or [None] * len(game["players"])
            seats = [
                {
                    "name": name,
                    "rating": ratings.get(name),
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
    tournament = _get(tournament_id, request)
    context = _page_context(request, tournament)
    if tournament.visibility == Visibility.INVITE and context["can_edit"]:
        path = reverse("tournament_invite", kwargs={"token": tournament.invite_token})
        context["invite_url"] = request.build_absolute_uri(path)
    return render(request, "tournaments/detail.html", context)


@require_GET
def tournament_invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation's link: its tournament's page, whose join form carries the token."""
    tournament = Tournament.objects.filter(invite_token=token).exclude(invite_token="").first()
    if tournament is None:
        raise Http404(_("This invitation link is not valid."))
    return redirect(f"{reverse('tournament', args=[tournament.pk])}?invite={token}")


@require_GET
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of the page alone (status, your game, standings, rounds): the page's script
    swaps it in when the WebSocket announces a new version."""
    tournament = _get(tournament_id, request)
    return render(request, "tournaments/_live.html", _page_context(request, tournament))


def _back(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """To ``next``, else to the tournament's page (with the invitation's token, if one came)."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return redirect(target)
    page = reverse("tournament", args=[tournament_id])
    invite = request.POST.get("invite", "")
    return redirect(f"{page}?{urlencode({'invite': invite})}" if invite else page)


def _signed_in(request: HttpRequest) -> User:
    """The user of a ``login_required`` view."""
    return cast(User, request.user)


@login_required
@require_POST
def tournament_join(request: HttpRequest, tournament_id: int) -> HttpResponse:
    invite = request.POST.get("invite") or None
    tournament = _get(tournament_id, request, invite or "")
    try:
        entry.join(
            request,
            tournament=tournament,
            user=_signed_in(request),
            invite=invite,
            password=request.POST.get("password") or None,
        )
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if tournament.format == Format.ARENA and tournament.status == Tournament.Status.RUNNING:
            messages.success(
                request,
                _("You're in the arena: your next game starts as soon as another player is free."),
            )
        else:
            messages.success(request, _("You joined the tournament."))
    return _back(request, tournament_id)


@login_required
@require_POST
def tournament_leave(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _get(tournament_id, request, request.POST.get("invite", ""))
    try:
        tournament = services.tournament_leave(
            tournament_id=tournament_id, user=_signed_in(request)
        )
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if tournament.status == Tournament.Status.RUNNING:
            messages.success(request, _("You withdrew from the tournament."))
        else:
            messages.success(request, _("You left the tournament."))
    return _back(request, tournament_id)


@login_required
@require_POST
def tournament_pause(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _get(tournament_id, request, request.POST.get("invite", ""))
    try:
        services.tournament_pause(tournament_id=tournament_id, user=_signed_in(request))
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("You are paused: join again to get a new game."))
    return _back(request, tournament_id)


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    """A player's (or staff's) new tournament; the reason why not to those who may not."""
    user = _signed_in(request)
    refusal = selectors.creation_refusal(user)
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and refusal is None and form.is_valid():
        counted = None if user.is_staff else str(user.pk)  # staff: without the players' limit
        wait = TOURNAMENT_CREATE.hit(counted) if counted is not None else None
        if wait is not None:
            form.add_error(None, wait_words(wait))
        else:
            try:
                tournament = services.tournament_create(user=user, **form.service_arguments())
            except ServiceError as exc:
                if counted is not None:
                    TOURNAMENT_CREATE.give_back(counted)
                form.add_error(None, exc.message)
            else:
                messages.success(request, _("Your tournament is announced."))
                return redirect("tournament", tournament_id=tournament.pk)
    if request.method == "GET":
        form = TournamentForm(initial={"starts_at": _in_an_hour()})
    return render(
        request,
        "tournaments/form.html",
        {"form": form, "refusal": refusal, "tournament": None},
    )


def _in_an_hour() -> datetime:
    soon = timezone.now().astimezone(UTC) + timedelta(hours=1)
    return soon.replace(minute=0, second=0, microsecond=0, tzinfo=None)


@login_required
def tournament_edit(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Its creator changes a tournament before the start (staff at any time)."""
    tournament = _get(tournament_id, request)
    if not _can_edit(tournament, request):
        raise Http404(_("There is no tournament %(id)s.") % {"id": tournament_id})
    form = TournamentForm.for_tournament(tournament, data=request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.tournament_update(
                tournament_id=tournament.pk, user=_signed_in(request), **form.service_arguments()
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("The tournament is changed."))
            return redirect("tournament", tournament_id=tournament.pk)
    return render(
        request,
        "tournaments/form.html",
        {"form": form, "refusal": None, "tournament": tournament},
    )


@login_required
@require_POST
def tournament_cancel(request: HttpRequest, tournament_id: int) -> HttpResponse:
    _get(tournament_id, request, "")
    try:
        services.tournament_cancel(tournament_id=tournament_id, user=_signed_in(request))
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The tournament is cancelled."))
    return redirect("tournament", tournament_id=tournament_id)


def client_strings() -> dict[str, str]:
    """The translated words the page script shows (placeholders ``%(name)s``)."""
    return {
        "starts_in": _("Starts in %(time)s"),
        "starting": _("Starting…"),
        "days": _("%(days)s d"),
        "connection_lost": _("Connection lost. Reconnecting…"),
    }
