"""E-mails of notices (your turn in a slow game, a challenge), through Django's e-mail framework:
the console backend by default, SMTP from ``EMAIL_URL`` in production. Every e-mail carries an
unsubscribe link (signed, no login needed)."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from social.models import Notification

UNSUBSCRIBE_SALT = "social.unsubscribe"


def unsubscribe_token(user_id: int) -> str:
    return str(signing.dumps({"u": user_id}, salt=UNSUBSCRIBE_SALT, compress=True))


def unsubscribe_user_id(token: str) -> int | None:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    user_id = data.get("u") if isinstance(data, dict) else None
    return user_id if isinstance(user_id, int) else None


def absolute(path: str) -> str:
    return str(settings.SIESTA_SITE_URL).rstrip("/") + path


def notification_email_send(notification: Notification) -> bool:
    """Send the e-mail of one notice, in the reader's language. False when they have no address."""
    from social.services import notification_text, preferences_of

    user = notification.user
    if not user.email:
        return False
    language = preferences_of(user.pk).language or settings.LANGUAGE_CODE
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
