"""Password rules beyond Django's validators."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


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
