"""Reads of accounts: a user's personal access tokens."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet

from accounts.models import PersonalAccessToken


def personal_tokens_of(*, user: AbstractBaseUser) -> QuerySet[PersonalAccessToken]:
    """The user's personal tokens, newest first, the expired ones too (until revoked)."""
    return PersonalAccessToken.objects.filter(user_id=user.pk)
