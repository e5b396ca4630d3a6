"""Writes of accounts: creating one (with its API token), issuing and revoking API tokens."""

from __future__ import annotations

from functools import partial

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy
from rest_framework.authtoken.models import Token

from siesta_site.sockets import close_user_sockets

User = get_user_model()

USERNAME_TAKEN = gettext_lazy("A user with that username already exists.")


def user_register(*, username: str, password: str) -> tuple[str, str]:
    """Create an account and its API token; returns (username, token key)."""
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError:  # taken between the check and the insert
        raise ValidationError({"username": [USERNAME_TAKEN]}) from None
    return user.get_username(), token.key


def user_token_issue(*, user: AbstractBaseUser) -> str:
    """The user's API token key (a new one if they have none, e.g. after a password change)."""
    token, _created = Token.objects.get_or_create(user_id=user.pk)
    return str(token.key)


def user_token_revoke(*, user: AbstractBaseUser) -> None:
    """Revoke the user's API token; ``user_token_issue`` gives a new one. The sockets signed in
    with it close after the commit (4401)."""
    with transaction.atomic():
        Token.objects.filter(user_id=user.pk).delete()
        transaction.on_commit(partial(close_user_sockets, user.pk, via="token"))
