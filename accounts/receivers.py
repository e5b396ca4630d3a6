"""Accounts react to changes of the user model: a changed password revokes the API token and
closes the user's open sockets; a logout closes that session's sockets."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib.auth.hashers import check_password
from django.db import transaction
from rest_framework.authtoken.models import Token

from core.sockets import close_user_sockets


def note_password_change(sender: Any, instance: Any, update_fields: Any = None, **_: Any) -> None:
    """``pre_save`` of the user model: remember whether this save changes the password (a new
    hash of the same password, as Django writes when its hasher is upgraded, is no change)."""
    instance._siesta_password_changed = False
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is None or stored == instance.password:
        return
    raw = getattr(instance, "_password", None)
    instance._siesta_password_changed = raw is None or not check_password(raw, stored)


def revoke_tokens_on_password_change(sender: Any, instance: Any, **_: Any) -> None:
    """``post_save`` of the user model: a changed password revokes the API token, so a leaked
    token dies with the password; ``POST /api/auth/token/`` issues a new one. The user's sockets
    signed in by a session or that token are closed after the commit (4401): each signs in again.
    Personal access tokens are kept (each is revoked on its own, on the account page), and so
    are their sockets: a bot does not stop because its owner changed their password."""
    if getattr(instance, "_siesta_password_changed", False):
        instance._siesta_password_changed = False
        Token.objects.filter(user=instance).delete()
        for via in ("session", "token"):
            transaction.on_commit(partial(close_user_sockets, instance.pk, via=via), robust=True)


def close_sockets_on_logout(sender: Any, request: Any = None, user: Any = None, **_: Any) -> None:
    """``user_logged_out``: the sockets opened with that session close (4401); the user's other
    sessions and tokens keep theirs."""
    if user is None or user.pk is None:
        return
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    transaction.on_commit(
        partial(close_user_sockets, user.pk, via="session", session_key=session_key)
    )
