"""Rematch: the persons of a finished game ask to play again; when all have asked, the new game
starts with the seats rotated and the old game's watchers are told where it is."""

from __future__ import annotations

from functools import partial

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import Conflict, NotAllowed
from games import services as game_services
from games.models import Game, Seat
from games.selectors import game_or_not_found
from social import realtime
from social.models import Rematch, RematchRequest
from social.state import GameRematchEvent, RematchOfferEvent, RematchStatus


def _persons(seats: list[Seat]) -> list[Seat]:
    return [s for s in seats if s.user_id is not None and not s.bot_level]


def rematch_status(*, game_id: int) -> RematchStatus:
    """``{"game": the rematch's id or null, "asked": [usernames], "waiting_for": [usernames]}``."""
    seats = list(Seat.objects.select_related("user").filter(game_id=game_id).order_by("seat"))
    rematch = Rematch.objects.filter(game_id=game_id).first()
    asked = set(RematchRequest.objects.filter(game_id=game_id).values_list("user_id", flat=True))
    persons = _persons(seats)
    return {
        "game": rematch.new_game_id if rematch else None,
        "asked": [s.user.get_username() for s in persons if s.user_id in asked and s.user],
        "waiting_for": (
            []
            if rematch
            else [s.user.get_username() for s in persons if s.user_id not in asked and s.user]
        ),
    }


def rematch_ask(*, game_id: int, user: User) -> RematchStatus:
    """A person of a finished game asks to play again. When every person has asked (bots always
    accept), the new game starts with the same players, bots and settings, seats rotated by
    one, and the old game's watchers get ``{"type": "rematch", "game": id}``."""
    with transaction.atomic():
        game = game_or_not_found(game_id, games=Game.objects.select_for_update())
        seats = list(Seat.objects.select_related("user").filter(game=game).order_by("seat"))
        if not any(s.user_id == user.pk for s in _persons(seats)):
            raise NotAllowed(_("Only the players of a game can ask for a rematch."))
        if game.status != Game.Status.FINISHED:
            raise Conflict(_("A rematch can be asked for once the game is over."))
        RematchRequest.objects.get_or_create(game=game, user=user)
        status = rematch_status(game_id=game_id)
        if status["game"] is None and not status["waiting_for"]:
            # Seat n goes to seat n + 1, the last seat to seat 1.
            takers: list[User | str] = [s.user if s.user else s.bot_level for s in seats]
            takers = takers[-1:] + takers[:-1]
            new_game = game_services.game_create_seated(
                users=takers,
                mode=game.mode,
                variant=game.variant,
                rated=game.rated,
                turn_seconds=game.turn_seconds,
                created_by=user,
            )
            Rematch.objects.create(game=game, new_game=new_game)
            status = rematch_status(game_id=game_id)
            rematch: GameRematchEvent = {"type": "game.rematch", "game": new_game.pk}
            transaction.on_commit(partial(realtime.to_game, game_id, rematch))
        else:
            offer: RematchOfferEvent = {
                "type": "rematch.offer",
                "asked": status["asked"],
                "waiting_for": status["waiting_for"],
            }
            transaction.on_commit(partial(realtime.to_game, game_id, offer))
    return status
