"""Play real games through the game services, with the engine's best turn for every seat."""

from __future__ import annotations

from games import services
from games.engine.search import best_turn
from games.models import Game
from games.selectors import game_get, game_seats, position_of
from tests.games.factories import make_game


def play_turn(game_id: int, *, hint: bool = False) -> None:
    """The seat to move plays the engine's best turn (a person through ``game_move_make``, a bot
    or a seat that is out through ``game_bot_move_make``). With ``hint`` the person first asks
    for a hint."""
    game = game_get(game_id)
    assert game.status == Game.Status.ACTIVE
    seats = game_seats(game)
    seat = game.seat_to_move(seats)
    assert seat is not None
    turn = best_turn(position_of(game, seats)).turn
    assert turn is not None, "an active game always has a scoring turn for the seat to move"
    if seat.played_by_bot:
        assert services.game_bot_move_make(game_id=game_id, ply=game.ply, move=str(turn))
        return
    if hint:
        services.game_hint(game_id=game_id, user=seat.user)
    services.game_move_make(game_id=game_id, user=seat.user, move=str(turn), ply=game.ply)


def play_round(game: Game) -> None:
    """Every seat plays once."""
    for _ in range(game.players):
        play_turn(game.pk)


def play_to_end(game: Game, *, hint_seats: frozenset[int] = frozenset()) -> Game:
    """Play best turns until the game is over; seats in ``hint_seats`` ask for a hint before
    their next turn."""
    to_hint = set(hint_seats)
    while True:
        current = Game.objects.get(pk=game.pk)
        if current.status == Game.Status.FINISHED:
            return current
        hint = current.to_move in to_hint
        to_hint.discard(current.to_move)
        play_turn(game.pk, hint=hint)


def user_at(game: Game, seat: int):
    return game.seats.get(seat=seat).user


def resigned_game(users, resigner, **options) -> Game:
    """A game of ``users`` (and more when the game needs them) where everyone moves once, then
    ``resigner`` resigns."""
    game = make_game(users=users, **options)
    play_round(game)
    services.game_resign(game_id=game.pk, user=resigner)
    return game


def hinted_game(users, *resigners, hinters=(), moves: int | None = None, **options) -> Game:
    """``resigned_game`` where ``hinters`` ask for a hint before their turn, and ``resigners``
    resign in turn (in a game of more than two, all but one); with ``moves``, only that many turns
    are played first (fewer than the players: an aborted game)."""
    game = make_game(users=users, **options)
    for _ in range(game.players if moves is None else moves):
        current = Game.objects.get(pk=game.pk)
        play_turn(game.pk, hint=user_at(current, current.to_move) in hinters)
    for resigner in resigners:
        services.game_resign(game_id=game.pk, user=resigner)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game
