"""A person's preferences (language, muted chat, which notices are e-mailed) and their e-mail
address: setting it, mailing the confirmation link (throttled) and confirming it."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from core import throttling
from core.errors import NotFound
from social import addresses
from social.enqueue import enqueue_confirmation
from social.models import Preferences

logger = logging.getLogger(__name__)


def preferences_of(user_id: int) -> Preferences:
    return Preferences.objects.filter(user_id=user_id).first() or Preferences(user_id=user_id)


def preferences_update(*, user: User, **changes: Any) -> Preferences:
    with transaction.atomic():
        preferences, _created = Preferences.objects.select_for_update().get_or_create(user=user)
        for name, value in changes.items():
            setattr(preferences, name, value)
        preferences.save()
    return preferences


def email_is_confirmed(user: User) -> bool:
    """Whether notices may be mailed to the user's address: it is the one they confirmed."""
    return addresses.address_confirmed(user.email, preferences_of(user.pk).email_confirmed)


def email_address_set(*, user: User, email: str) -> tuple[bool, float | None]:
    """Set the user's address. A new one is unconfirmed until the link mailed to it is followed
    (sent after the commit). Returns whether the link was sent, and the seconds to wait when it
    could not be sent now (too many asked for)."""
    if email == user.email:
        return False, None
    with transaction.atomic():
        user.email = email
        user.save(update_fields=["email"])
    return email_confirmation_send(user=user)


def email_confirmation_send(*, user: User) -> tuple[bool, float | None]:
    """Mail the link that confirms the user's address (again), throttled per person and per
    address. Returns whether it is sent, and the seconds to wait when refused."""
    if not user.email or email_is_confirmed(user):
        return False, None
    wait = throttling.EMAIL_CONFIRM.hit(str(user.pk)) or throttling.MAIL_ADDRESS.hit(
        throttling.email_ident(user.email)
    )
    if wait is not None:
        return False, wait
    transaction.on_commit(partial(_enqueue_confirmation, user.pk, user.email))
    return True, None


def _enqueue_confirmation(user_id: int, address: str) -> None:
    try:
        enqueue_confirmation(user_id, address)
    except Exception:
        logger.exception("could not enqueue the confirmation e-mail of user %s", user_id)


def email_confirmation_mail(*, user_id: int, address: str) -> bool:
    """The task's work: mail the link, if ``address`` is still the user's, unconfirmed."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.email != address or email_is_confirmed(user):
        return False
    return addresses.confirmation_email_send(user, preferences_of(user.pk).language)


def email_confirmation_user(*, token: str) -> User:
    """The person a confirmation link is for, while the address it names is still theirs
    (404 for a bad, expired or outdated link)."""
    found = addresses.confirm_token_read(token)
    user = None
    if found is not None:
        user_id, address = found
        user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
        if user is not None and throttling.email_ident(user.email) != address:
            user = None
    if user is None:
        raise NotFound(_("This confirmation link is not valid or has expired."))
    return user


def email_address_confirm(*, token: str) -> User:
    """Follow a confirmation link: the address it names becomes the user's confirmed one."""
    user = email_confirmation_user(token=token)
    preferences_update(user=user, email_confirmed=user.email)
    return user
