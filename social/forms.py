"""Forms of the social pages: a challenge from a profile or to a bot, and the notice
preferences."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import TURN_TIME_CHOICES, Game, Seat


class _GameSettingsForm(forms.Form):
    variant = forms.ChoiceField(
        label=_("Variant"), choices=Game.Variant.choices, initial=Game.Variant.STANDARD
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per turn"),
        choices=TURN_TIME_CHOICES,
        coerce=int,
        initial=Game.DEFAULT_TURN_SECONDS,
    )


class ChallengeForm(_GameSettingsForm):
    rated = forms.TypedChoiceField(
        label=_("Rated"),
        choices=[("1", _("Rated")), ("0", _("Casual"))],
        coerce=lambda value: value == "1",
        initial="1",
        widget=forms.RadioSelect,
    )

    def service_arguments(self) -> dict[str, Any]:
        return dict(self.cleaned_data)


class BotChallengeForm(_GameSettingsForm):
    """A challenge to a bot: no rated choice (bots change nobody's rating), no answer to wait
    for."""

    level = forms.ChoiceField(
        label=_("Bot"),
        choices=[
            (Seat.BotLevel.EASY, _("Bot (easy)")),
            (Seat.BotLevel.MEDIUM, _("Bot (medium)")),
            (Seat.BotLevel.HARD, _("Bot (hard)")),
            (Seat.BotLevel.EXPERT, _("Bot (expert)")),
        ],
        initial=Seat.BotLevel.EXPERT,
    )


class PreferencesForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        help_text=_("Only used for the e-mails you ask for below."),
    )
    email_turns = forms.BooleanField(
        label=_("E-mail me when it is my turn in a game of a day or more per turn"),
        required=False,
    )
    email_challenges = forms.BooleanField(
        label=_("E-mail me when someone challenges me"), required=False
    )
    chat_muted = forms.BooleanField(label=_("Mute the chat in every game"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        wants_mail = data.get("email_turns") or data.get("email_challenges")
        if wants_mail and not data.get("email"):
            self.add_error("email", _("Give an address to get e-mails."))
        return data
