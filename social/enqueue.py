"""Enqueuing the social app's tasks: what the services call after their commits.

The tasks call the services (``social.tasks.match_seeks`` runs the matcher), so the services name
the tasks here rather than import their module, as ``games.enqueue`` explains; ``social.tasks``
declares each task under the name given here and ``SocialConfig.ready`` imports it. The import
graph points one way: ``social.tasks -> social.services -> social.enqueue``.
"""

from __future__ import annotations

from siesta_site.celery import app

MATCH_SEEKS = "social.tasks.match_seeks"
EMAIL_NOTIFICATION = "social.tasks.email_notification"
EMAIL_CONFIRMATION = "social.tasks.email_confirmation"


def enqueue_matcher() -> None:
    """One sweep of the quick-pairing matcher (raises when the broker cannot take it)."""
    app.tasks[MATCH_SEEKS].delay()


def enqueue_email(notification_id: int) -> None:
    """E-mail one notice (raises when the broker cannot take it)."""
    app.tasks[EMAIL_NOTIFICATION].delay(notification_id)


def enqueue_confirmation(user_id: int, address: str) -> None:
    """Mail the link confirming ``address`` to the user (raises when the broker cannot take it)."""
    app.tasks[EMAIL_CONFIRMATION].delay(user_id, address)
