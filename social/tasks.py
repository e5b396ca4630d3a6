"""Celery tasks of the social app: thin, they take ids and call services."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from social.emails import notification_email_send
from social.enqueue import EMAIL_CONFIRMATION, EMAIL_NOTIFICATION, MATCH_SEEKS, matcher_started
from social.models import Notification
from social.services.challenges import challenges_expire
from social.services.preferences import email_confirmation_mail
from social.services.seeks import seeks_match


@shared_task(name=MATCH_SEEKS)  # type: ignore[untyped-decorator]
def match_seeks() -> list[int]:
    """Periodic and triggered (on new seeks, coalesced): one sweep of the quick-pairing matcher."""
    matcher_started()
    challenges_expire()
    return seeks_match()


@shared_task(name=EMAIL_NOTIFICATION, acks_late=True)  # type: ignore[untyped-decorator]
def email_notification(notification_id: int) -> bool:
    """E-mail one notice (once: the notice records that it was sent)."""
    claimed = Notification.objects.filter(pk=notification_id, emailed_at=None).update(
        emailed_at=timezone.now()
    )
    if not claimed:
        return False
    notification = Notification.objects.select_related("user").get(pk=notification_id)
    return notification_email_send(notification)


@shared_task(name=EMAIL_CONFIRMATION)  # type: ignore[untyped-decorator]
def email_confirmation(user_id: int, address: str) -> bool:
    """Mail the link confirming ``address``, unless the user's address has changed since."""
    return email_confirmation_mail(user_id=user_id, address=address)
