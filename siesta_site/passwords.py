"""Password rules: Django's validators in the site's own words, and one rule beyond them.

Django's catalogues word its validators in another register in some languages (Spanish "Su
contraseña", "introduzca"): the site's subclasses keep Django's checks and say them with the
site's msgids (tú/du/tu, vous in French), on the pages and in the API alike."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


class SimilarityValidator(password_validation.UserAttributeSimilarityValidator):
    def get_error_message(self) -> str:
        return _("Your password is too close to your %(verbose_name)s.")

    def get_help_text(self) -> str:
        return _("Your password must not look like your username or e-mail address.")


class LengthValidator(password_validation.MinimumLengthValidator):
    def get_error_message(self) -> str:
        return ngettext(
            "Your password is too short: it needs at least %(min_length)d character.",
            "Your password is too short: it needs at least %(min_length)d characters.",
            self.min_length,
        ) % {"min_length": self.min_length}

    def get_help_text(self) -> str:
        return ngettext(
            "Your password needs at least %(min_length)d character.",
            "Your password needs at least %(min_length)d characters.",
            self.min_length,
        ) % {"min_length": self.min_length}


class CommonValidator(password_validation.CommonPasswordValidator):
    def get_error_message(self) -> str:
        return _("This password is too common: choose another.")

    def get_help_text(self) -> str:
        return _("Your password must not be a common one.")


class NumericValidator(password_validation.NumericPasswordValidator):
    def get_error_message(self) -> str:
        return _("This password is entirely numeric: add a letter or a sign.")

    def get_help_text(self) -> str:
        return _("Your password cannot be only digits.")


class NotBlankValidator:
    """Refuse passwords made only of spaces (or other whitespace): "          " is long enough for
    the length rule, not common, not numeric, and trivially guessed."""

    def validate(self, password: str, user: Any = None) -> None:
        if not password.strip():
            raise ValidationError(
                _("Your password cannot be only spaces."), code="password_only_whitespace"
            )

    def get_help_text(self) -> str:
        return _("Your password cannot be only spaces.")
