"""The confirmation of e-mail addresses: a signed link, valid ``SIESTA_EMAIL_CONFIRM_DAYS``,
mailed to an address set or changed. Until it is followed no notice is mailed there
(``social.emails``), and password resets skip the address (``accounts.views``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from core import throttling
from core.links import absolute

CONFIRM_SALT = "social.email-confirm"


def address_confirmed(address: str, confirmed: str) -> bool:
    """Whether a user's address is the one they confirmed (``Preferences.email_confirmed``)."""
    return bool(address) and throttling.email_ident(address) == throttling.email_ident(confirmed)


def confirm_token(user_id: int, address: str) -> str:
    """The signed link of a confirmation e-mail: this user, this address, the time it was made."""
    data = {"u": user_id, "e": throttling.email_ident(address)}
    return str(signing.dumps(data, salt=CONFIRM_SALT, compress=True))


def confirm_token_read(token: str) -> tuple[int, str] | None:
    """(user id, address) of a confirmation link still valid, else None."""
    try:
        data = signing.loads(
            token, salt=CONFIRM_SALT, max_age=settings.SIESTA_EMAIL_CONFIRM_DAYS * 86400
        )
    except signing.BadSignature:  # SignatureExpired included
        return None
    if not isinstance(data, dict):
        return None
    user_id, address = data.get("u"), data.get("e")
    if not isinstance(user_id, int) or not isinstance(address, str):
        return None
    return user_id, address


def confirmation_email_send(user: Any, language: str) -> bool:
    """Send the link that confirms the user's address, in their language."""
    link = absolute(reverse("email_confirm", args=[confirm_token(user.pk, user.email)]))
    with translation.override(language or settings.LANGUAGE_CODE):
        body = "\n\n".join(
            [
                _("Hello %(name)s,") % {"name": user.get_username()},
                _("Confirm this address for your account on Siesta online: %(link)s")
                % {"link": link},
                _(
                    "If you did not ask for this, ignore this e-mail: nothing more is sent to "
                    "this address unless it is confirmed."
                ),
            ]
        )
        message = EmailMessage(
            subject=_("Siesta: confirm your e-mail address"), body=body, to=[user.email]
        )
    return message.send() == 1
