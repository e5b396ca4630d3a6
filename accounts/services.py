"""Writes of accounts: creating one (with its API token), issuing and revoking API tokens, and the
personal access tokens of bots and tools (created, checked on use, revoked)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.authtoken.models import Token

from accounts.models import PersonalAccessToken
from core.credentials import (
    PERSONAL_TOKEN_PREFIX,
    SCOPES,
    TokenGrant,
    TokenRefused,
    secret_digest,
)
from core.errors import ApplicationError, ErrorKind
from core.sockets import close_user_sockets

User = get_user_model()

USERNAME_TAKEN = gettext_lazy("A user with that username already exists.")

LAST_USED_PRECISION = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token: not one write per API call."""


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
    with it close after the commit (4401); personal access tokens are untouched."""
    with transaction.atomic():
        Token.objects.filter(user_id=user.pk).delete()
        transaction.on_commit(partial(close_user_sockets, user.pk, via="token"))


# -- personal access tokens -----------------------------------------------------------------------


class PersonalTokenError(ApplicationError):
    """A personal access token that cannot be created or revoked."""


class PersonalTokenNotFound(PersonalTokenError):
    kind = ErrorKind.NOT_FOUND


class TooManyPersonalTokens(PersonalTokenError):
    kind = ErrorKind.CONFLICT


@dataclass(frozen=True)
class NewPersonalToken:
    """A token just created, with its secret: the only time the secret is known."""

    token: PersonalAccessToken
    secret: str


def personal_token_create(
    *, user: AbstractBaseUser, name: str, scopes: Iterable[str], expires_at: datetime | None
) -> NewPersonalToken:
    """Create a personal access token for ``user``; the secret is in the answer and nowhere else
    (only its digest is stored)."""
    name = name.strip()
    wanted = set(scopes)
    if not name or len(name) > PersonalAccessToken.NAME_MAX_LENGTH:
        raise PersonalTokenError(
            _("Give the token a name of at most %(limit)s characters.")
            % {"limit": PersonalAccessToken.NAME_MAX_LENGTH}
        )
    if not wanted or not wanted <= set(SCOPES):
        raise PersonalTokenError(
            _("Choose one or more scopes among: %(scopes)s.") % {"scopes": ", ".join(SCOPES)}
        )
    if expires_at is not None and expires_at <= timezone.now():
        raise PersonalTokenError(_("The expiry must be in the future."))
    secret = PERSONAL_TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        # The user's row, locked: two creations at once cannot both pass the limit.
        User.objects.select_for_update().filter(pk=user.pk).first()
        if PersonalAccessToken.objects.filter(user_id=user.pk).count() >= (
            PersonalAccessToken.MAX_PER_USER
        ):
            raise TooManyPersonalTokens(_("You have as many tokens as allowed: revoke one first."))
        token = PersonalAccessToken.objects.create(
            user_id=user.pk,
            name=name,
            digest=secret_digest(secret),
            shown=secret[: len(PERSONAL_TOKEN_PREFIX) + 4],
            scopes=[scope for scope in SCOPES if scope in wanted],
            expires_at=expires_at,
        )
    return NewPersonalToken(token=token, secret=secret)


def personal_token_revoke(*, user: AbstractBaseUser, token_id: int) -> None:
    """Revoke one of ``user``'s personal tokens: it stops working at once, and the sockets signed
    in with it close after the commit (4401). Other tokens and sessions are untouched."""
    with transaction.atomic():
        token = (
            PersonalAccessToken.objects.select_for_update()
            .filter(pk=token_id, user_id=user.pk)
            .first()
        )
        if token is None:
            raise PersonalTokenNotFound(_("You have no such token."))
        token.delete()
        transaction.on_commit(
            partial(close_user_sockets, user.pk, via="pat", token_digest=token.digest)
        )


def personal_token_grant(key: str) -> TokenGrant:
    """What ``key`` grants (``core.credentials``), or ``TokenRefused`` saying why not.
    Notes when the token was last used (at most once a minute: one small UPDATE)."""
    token = (
        PersonalAccessToken.objects.select_related("user").filter(digest=secret_digest(key)).first()
    )
    if token is None or not token.user.is_active:
        raise TokenRefused(_("Invalid token."))
    now = timezone.now()
    if token.expired(now):
        raise TokenRefused(_("This token has expired."))
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        PersonalAccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return TokenGrant(user=token.user, scopes=frozenset(token.scopes), token_id=token.pk)
