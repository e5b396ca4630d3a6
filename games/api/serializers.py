"""Shapes the API answers with, for the OpenAPI schema.

The game itself is built by ``games.selectors.game_state`` (the one shape REST and WebSocket
share), and the views return that dict as it is; ``GameSerializer`` documents it, and a test keeps
the two in step.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from games.models import Game, Seat


class SeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=1, max_value=4)
    username = serializers.CharField(allow_null=True)
    bot = serializers.ChoiceField(choices=Seat.BotLevel.choices, allow_null=True)
    team = serializers.IntegerField(allow_null=True, min_value=1, max_value=2)
    score = serializers.IntegerField()
    roofs_left = serializers.IntegerField()
    hinted = serializers.BooleanField(help_text="Asked for a hint in this game.")
    resigned = serializers.BooleanField(help_text="Out of the game (resigned or timed out).")
    out_reason = serializers.ChoiceField(choices=Seat.OutReason.choices, allow_null=True)
    rating = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="The person's rating in the game's pool (before the game once rated); null for "
        "a bot or a free seat. In GET /api/games/{id}/ and the game page, not in socket frames.",
    )
    rating_change = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="After the end: the change to the rating; null while playing or when the game "
        "did not count for this person.",
    )
    rating_reason = serializers.CharField(
        allow_null=True,
        required=False,
        help_text="After the end: rated, hint, casual, aborted or too_few_rated_players.",
    )


class SupplySerializer(serializers.Serializer[Any]):
    suns = serializers.IntegerField()
    shadows = serializers.IntegerField()


class TurnSerializer(serializers.Serializer[Any]):
    ply = serializers.IntegerField(help_text="The game's ply once this turn was played (1..).")
    seat = serializers.IntegerField()
    move = serializers.CharField(help_text="Like SF5 RF6 HF7.")
    points = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")
    hint = serializers.BooleanField(help_text="The player asked for a hint before this turn.")
    at = serializers.DateTimeField()


class ResultSerializer(serializers.Serializer[Any]):
    end_reason = serializers.ChoiceField(choices=Game.EndReason.choices)
    winners = serializers.ListField(child=serializers.IntegerField(), help_text="Seats.")
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat.")
    team_scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    aborted = serializers.BooleanField(
        required=False,
        help_text="Ended before every player had moved (the engine's GameOutcome.aborted): no "
        "winners, no rating change.",
    )


class GameSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    players = serializers.IntegerField(min_value=2, max_value=4)
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    rated = serializers.BooleanField()
    turn_seconds = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    board = serializers.ListField(
        child=serializers.CharField(),
        min_length=12,
        max_length=12,
        help_text="12 rows of 12 cells.",
    )
    siestas = serializers.ListField(
        child=serializers.CharField(),
        min_length=12,
        max_length=12,
        help_text="12 rows of 12 digits: how many siestas each cell is part of (sun, roof or "
        "shadow), as the engine counts them; what the page says of a cell without sight.",
    )
    supply = SupplySerializer()
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat to move.")
    ply = serializers.IntegerField(help_text="Turns played; submit a move with this ply.")
    version = serializers.IntegerField(help_text="Rises by one per change.")
    turns = TurnSerializer(many=True)
    deadline = serializers.DateTimeField(allow_null=True)
    forfeit_on_timeout = serializers.BooleanField(
        help_text="A tournament game's first turns: the seat to move forfeits at the deadline."
    )
    created_at = serializers.DateTimeField()
    result = ResultSerializer(allow_null=True)


@extend_schema_serializer(component_name="GameRecord")
class GameRecordSerializer(serializers.Serializer[Any]):
    """``games.selectors.game_record``: the record of RULES.md, with ``hints`` and ``teams``."""

    players = serializers.IntegerField()
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    moves = serializers.ListField(child=serializers.CharField())
    hints = serializers.ListField(
        child=serializers.IntegerField(), help_text="0-based indexes of hinted turns."
    )
    teams = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        allow_null=True,
        help_text="The seats of each team, in team games.",
    )


@extend_schema_serializer(component_name="ExportedGame")
class ExportedGameSerializer(GameRecordSerializer):
    """A line of the export: the game's record with the game's id and end beside it (the
    engine reads the record and ignores them)."""

    id = serializers.IntegerField(help_text="The game.")
    finished_at = serializers.DateTimeField()
