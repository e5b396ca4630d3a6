"""E-mails of notices (your turn in a slow game, a challenge), through Django's e-mail framework:
the console backend by default, SMTP from ``EMAIL_URL`` in production. Every e-mail carries an
unsubscribe link (signed, no login needed, valid ``SIESTA_UNSUBSCRIBE_DAYS``).

A notice is mailed only to a confirmed address (``social.addresses``), at most ``mail_address``
e-mails an hour to one address.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from core import throttling
from core.links import absolute
from social.addresses import address_confirmed
from social.models import Notification

UNSUBSCRIBE_SALT = "social.unsubscribe"
UNSUBSCRIBE_CONFIRM_SALT = "social.unsubscribe.confirm"
UNSUBSCRIBE_CONFIRM_SECONDS = 3600
"""The confirmation form an expired unsubscribe link shows is good for this long, and once."""


def unsubscribe_token(user_id: int) -> str:
    return str(signing.dumps({"u": user_id}, salt=UNSUBSCRIBE_SALT, compress=True))


def _user_id(token: str, salt: str, max_age: int | None) -> int | None:
    """The user id a token of ``salt`` carries; raises ``SignatureExpired`` past ``max_age``."""
    try:
        data = signing.loads(token, salt=salt, max_age=max_age)
    except signing.SignatureExpired:
        raise
    except signing.BadSignature:
        return None
    user_id = data.get("u") if isinstance(data, dict) else None
    return user_id if isinstance(user_id, int) else None


def unsubscribe_user_id(token: str) -> int | None:
    """The user of an unsubscribe link, expired or not (None: not a link of ours)."""
    return _user_id(token, UNSUBSCRIBE_SALT, None)


def unsubscribe_expired(token: str) -> bool:
    """Whether an unsubscribe link of ours is older than ``SIESTA_UNSUBSCRIBE_DAYS``."""
    try:
        _user_id(token, UNSUBSCRIBE_SALT, settings.SIESTA_UNSUBSCRIBE_DAYS * 86400)
    except signing.SignatureExpired:
        return True
    return False


def unsubscribe_confirm_token(user_id: int) -> str:
    """The one-hour proof the confirmation form of an expired link posts back."""
    return str(signing.dumps({"u": user_id}, salt=UNSUBSCRIBE_CONFIRM_SALT))


def unsubscribe_confirmed_user_id(token: str) -> int | None:
    """The user of a confirmation form's proof, the first time it is posted (None after)."""
    try:
        user_id = _user_id(token, UNSUBSCRIBE_CONFIRM_SALT, UNSUBSCRIBE_CONFIRM_SECONDS)
    except signing.SignatureExpired:
        return None
    if user_id is None:
        return None
    spent = f"unsubscribe-confirm:{hashlib.sha256(token.encode()).hexdigest()}"
    try:
        first = cache.add(spent, 1, timeout=UNSUBSCRIBE_CONFIRM_SECONDS + 1)
    except Exception:  # the cache (Redis) is down: the proof's hour still bounds it
        first = True
    return user_id if first else None


def notification_email_send(notification: Notification) -> bool:
    """Send the e-mail of one notice, in the reader's language. False when they have no confirmed
    address, or that address had its hour's e-mails."""
    from social.services.notices import notification_text
    from social.services.preferences import preferences_of

    user = notification.user
    preferences = preferences_of(user.pk)
    if not address_confirmed(user.email, preferences.email_confirmed):
        return False
    if throttling.MAIL_ADDRESS.hit(throttling.email_ident(user.email)) is not None:
        return False  # enough mail to this address this hour: the notice stays on the site
    language = preferences.language or settings.LANGUAGE_CODE
    unsubscribe = absolute(reverse("unsubscribe", args=[unsubscribe_token(user.pk)]))
    with translation.override(language):
        text = notification_text(notification.kind, notification.params)
        body = "\n\n".join(
            [
                _("Hello %(name)s,") % {"name": user.get_username()},
                text,
                absolute(notification.url or "/"),
                _("You get this e-mail because you asked for it on Siesta online.")
                + "\n"
                + _("Stop these e-mails: %(link)s") % {"link": unsubscribe},
            ]
        )
        message = EmailMessage(
            subject=_("Siesta: %(text)s") % {"text": text},
            body=body,
            to=[user.email],
            headers={
                "List-Unsubscribe": f"<{unsubscribe}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
    return message.send() == 1
