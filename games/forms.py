"""Forms of the game pages."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.game_settings import GameSettings, player_counts, team_players_message
from games.models import TURN_TIME_CHOICES, Game, Seat
from games.services import BotSpec

PERSON = "person"

SEAT_CHOICES = [
    (PERSON, _("A person")),
    (Seat.BotLevel.EASY, _("Bot (easy)")),
    (Seat.BotLevel.MEDIUM, _("Bot (medium)")),
    (Seat.BotLevel.HARD, _("Bot (hard)")),
    (Seat.BotLevel.EXPERT, _("Bot (expert)")),
]

OPPONENT_SEATS = (2, 3, 4)

OPPONENT_NAMES = {
    PERSON: _("a person"),
    **{level: name for level, name in SEAT_CHOICES if level != PERSON},
}
"""The opponents as the lobby's start button names them ("Start game against Bot (medium)"):
every bot of the seat choices, each under its own name."""

DEFAULT_OPPONENT = Seat.BotLevel.MEDIUM
"""A newcomer's first game starts at once, against a bot; "Play a person" opens a game instead."""


class ModeSelect(forms.Select):
    """The mode's choices, each option with the numbers of players it may be played by
    (``data-players="4"`` for teams, from ``GameSettings``): lobby.js offers a mode only with
    those, and the form's ``clean`` refuses the others in the same words as the services."""

    def create_option(
        self,
        name: str,
        value: Any,
        label: int | str,
        selected: bool,
        index: int,
        subindex: int | None = None,
        attrs: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        counts = player_counts(str(value))
        option["attrs"]["data-players"] = " ".join(str(count) for count in counts)
        return option


def seat_field_name(seat: int) -> str:
    return f"seat_{seat}"


class GameCreateForm(forms.Form):
    """The lobby's "new game" form. The creator takes seat 1; seats 2..N are people or bots."""

    players = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(2, "2"), (3, "3"), (4, "4")],
        coerce=int,
        initial=2,
    )
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=Game.Mode.choices,
        initial=Game.Mode.FFA,
        widget=ModeSelect,
        help_text=_("Teams need 4 players."),
    )
    variant = forms.ChoiceField(
        label=_("Variant"),
        choices=Game.Variant.choices,
        initial=Game.Variant.STANDARD,
        help_text=_("Standard: every Double Siesta scores. Classic: the Goldsieber rule."),
    )
    rated = forms.TypedChoiceField(
        label=_("Rating"),
        choices=[("rated", _("Rated")), ("casual", _("Casual"))],
        coerce=lambda value: value == "rated",
        initial="casual",
        widget=forms.RadioSelect,
        help_text=_(
            "A rated game needs at least two people: games against bots alone never change "
            "an Elo rating."
        ),
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per turn"),
        choices=TURN_TIME_CHOICES,
        coerce=int,
        initial=Game.DEFAULT_TURN_SECONDS,
    )
    # Not required: seats beyond the number of players are left out of the post.
    seat_2 = forms.ChoiceField(
        label=_("Player 2"), choices=SEAT_CHOICES, initial=DEFAULT_OPPONENT, required=False
    )
    seat_3 = forms.ChoiceField(
        label=_("Player 3"), choices=SEAT_CHOICES, initial=DEFAULT_OPPONENT, required=False
    )
    seat_4 = forms.ChoiceField(
        label=_("Player 4"), choices=SEAT_CHOICES, initial=DEFAULT_OPPONENT, required=False
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        players = cleaned.get("players")
        mode = cleaned.get("mode")
        if (
            mode is not None
            and players is not None
            and not GameSettings(players, mode).teams_seated
        ):
            self.add_error("mode", team_players_message())
        if players is not None and cleaned.get("rated") and not self._has_person(cleaned, players):
            self.add_error(
                "rated",
                _(
                    "A rated game needs at least two people: give a seat to a person, "
                    "or play casual."
                ),
            )
        return cleaned

    @staticmethod
    def _has_person(cleaned: dict[str, Any], players: int) -> bool:
        return any(
            cleaned.get(seat_field_name(seat)) in (PERSON, "", None)
            for seat in OPPONENT_SEATS
            if seat <= players
        )

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[seat_field_name(seat)] for seat in OPPONENT_SEATS]

    def start_label(self) -> str:
        """The start button's words for the opponents the form holds now; lobby.js redraws them
        from ``start_strings`` when the options change."""
        players = self._value("players")
        count = int(players) if str(players) in ("2", "3", "4") else 2
        opponents: dict[str, int] = {}
        for seat in OPPONENT_SEATS[: count - 1]:
            level = str(self._value(seat_field_name(seat)) or PERSON)
            opponents[level] = opponents.get(level, 0) + 1
        listed = []  # in seat order, each kind once: "Bot (medium), 2 × a person"
        for level, times in opponents.items():
            name = str(OPPONENT_NAMES.get(level, OPPONENT_NAMES[PERSON]))
            named = f"{times} × {name}" if times > 1 else name
            listed.append(named.replace(" ", "\u00a0"))  # a name wraps as one word
        return _("Start game against %(opponents)s") % {"opponents": ", ".join(listed)}

    @staticmethod
    def start_strings() -> dict[str, Any]:
        return {
            "start": _("Start game against %(opponents)s"),
            "names": {level: str(name) for level, name in OPPONENT_NAMES.items()},
        }

    def _value(self, name: str) -> Any:
        """A field's value as posted, or its initial value on a fresh form."""
        if self.is_bound:
            return self.data.get(name, self.fields[name].initial)
        return self.initial.get(name, self.fields[name].initial)

    def bots(self) -> list[BotSpec]:
        """The bots asked for, on seats that exist for the chosen number of players."""
        players = self.cleaned_data["players"]
        levels = {seat: self.cleaned_data.get(seat_field_name(seat)) for seat in OPPONENT_SEATS}
        return [
            BotSpec(seat=seat, level=level)
            for seat, level in levels.items()
            if seat <= players and level and level != PERSON
        ]

    def service_arguments(self) -> dict[str, Any]:
        """Keyword arguments for ``services.game_create`` (besides ``user``)."""
        data = self.cleaned_data
        return {
            "players": data["players"],
            "mode": data["mode"],
            "variant": data["variant"],
            "rated": data["rated"],
            "turn_seconds": data["turn_seconds"],
            "bots": self.bots(),
        }
