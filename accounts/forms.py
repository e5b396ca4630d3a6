"""Forms of the account page: a new personal access token."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import PersonalAccessToken
from core.credentials import PLAY, READ, TOURNAMENTS

SCOPE_CHOICES = [
    (READ, _("read: look at games, ratings and tournaments (GET only)")),
    (PLAY, _("play: games, moves, seeks, challenges and chat in games")),
    (TOURNAMENTS, _("tournaments: join and leave tournaments")),
]

EXPIRY_CHOICES = [
    ("30", _("in 30 days")),
    ("7", _("in 7 days")),
    ("90", _("in 90 days")),
    ("365", _("in a year")),
    ("never", _("never")),
]


class PersonalTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=PersonalAccessToken.NAME_MAX_LENGTH,
        help_text=_("What uses it, e.g. “my bot”."),
    )
    scopes = forms.MultipleChoiceField(
        label=_("Scopes"),
        choices=SCOPE_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        initial=[READ, PLAY],
    )
    expires = forms.ChoiceField(label=_("Expires"), choices=EXPIRY_CHOICES, initial="30")

    def expires_at(self) -> datetime | None:
        days = self.cleaned_data["expires"]
        return None if days == "never" else timezone.now() + timedelta(days=int(days))

    def service_arguments(self) -> dict[str, Any]:
        return {
            "name": self.cleaned_data["name"],
            "scopes": self.cleaned_data["scopes"],
            "expires_at": self.expires_at(),
        }
