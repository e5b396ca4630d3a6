"""Forms of the account pages: sign-in, sign-up and new passwords in the site's own words, and
a new personal access token.

Django's own forms speak another register in some languages (Spanish "usted", German "Sie"):
every label, help text and error a person reads on these pages is one of the site's msgids,
translated in the site's catalogues (tú/du/tu, vous in French, as the whole site)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.contrib.auth.forms import (
    AuthenticationForm,
    PasswordChangeForm,
    SetPasswordForm,
    UserCreationForm,
)
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import PersonalAccessToken
from accounts.services import USERNAME_TAKEN
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


USERNAME_FORMAT = re.compile(r"^[\w.@+-]+\Z")
"""Django's username rule (``UnicodeUsernameValidator``), checked first to word its error."""
PASSWORDS_DIFFER = _("The two passwords are not the same.")


def _password_words(form: Any, first: str, second: str, label: Any) -> None:
    """The site's words for a pair of new-password fields."""
    form.fields[first].label = label
    form.fields[second].label = _("The same password again")
    form.fields[second].help_text = _("Type it once more, to be sure of it.")
    form.error_messages = {**form.error_messages, "password_mismatch": PASSWORDS_DIFFER}


class SignInForm(AuthenticationForm):
    error_messages = {
        "invalid_login": _("The username or password is not right."),
        "inactive": _("This account is switched off."),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("Username")
        self.fields["password"].label = _("Password")


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    class Meta(UserCreationForm.Meta):
        error_messages = {"username": {"unique": USERNAME_TAKEN}}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.label = _("Username")
        username.help_text = _("Up to 150 characters: letters, digits and @ . + - _")
        _password_words(self, "password1", "password2", _("Password"))

    def clean_username(self) -> Any:
        username = self.cleaned_data.get("username") or ""
        if not USERNAME_FORMAT.match(username):
            raise ValidationError(
                _("A username has only letters, digits and @ . + - _"), code="invalid"
            )
        return super().clean_username()


class NewPasswordForm(SetPasswordForm):  # type: ignore[type-arg]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _password_words(self, "new_password1", "new_password2", _("New password"))


class PasswordChangeSiteForm(PasswordChangeForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _password_words(self, "new_password1", "new_password2", _("New password"))
        self.fields["old_password"].label = _("Current password")
        self.error_messages = {
            **self.error_messages,
            "password_incorrect": _("That is not your current password: try again."),
        }
