"""Accounts react to changes of the user model: a changed password revokes the API token."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.hashers import check_password
from rest_framework.authtoken.models import Token


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
    token dies with the password; ``POST /api/auth/token/`` issues a new one."""
    if getattr(instance, "_siesta_password_changed", False):
        instance._siesta_password_changed = False
        Token.objects.filter(user=instance).delete()
