"""Enqueuing the social app's tasks: what the services call after their commits.

The tasks call the services (``social.tasks.match_seeks`` runs the matcher), so the services name
the tasks here rather than import their module, as ``games.enqueue`` explains; ``social.tasks``
declares each task under the name given here and ``SocialConfig.ready`` imports it. The import
graph points one way: ``social.tasks -> social.services -> social.enqueue``.

Every task goes through ``core.inprocess.enqueue``, as every app's do: through the broker
with Redis, in this process's background threads without one (``make run``), never inside the
request's commit hook.
"""

from __future__ import annotations

import contextlib

from django.core.cache import cache

from core.inprocess import enqueue

MATCH_SEEKS = "social.tasks.match_seeks"
EMAIL_NOTIFICATION = "social.tasks.email_notification"
EMAIL_CONFIRMATION = "social.tasks.email_confirmation"

MATCHER_PENDING = "social:match-seeks:pending"
"""A cache key set while a triggered sweep waits in the queue (shared by every process)."""

MATCHER_PENDING_SECONDS = 2
"""The flag's life: at most one triggered sweep per this long even if a queued one never runs."""


def enqueue_matcher() -> bool:
    """One sweep of the quick-pairing matcher, coalesced: while one waits in the queue, more seek
    changes enqueue nothing (that sweep will see them), so a flood of seeks puts one task on the
    periodic queue, not one each. Returns whether a task was sent (a broker that cannot take it
    is logged, and the periodic sweep matches the seeks). With the cache away it sends, as
    before."""
    try:
        fresh = cache.add(MATCHER_PENDING, 1, timeout=MATCHER_PENDING_SECONDS)
    except Exception:  # the cache (Redis) is away: do not lose the sweep for it
        fresh = True
    if not fresh:
        return False
    try:
        sent = enqueue(MATCH_SEEKS)
    except Exception:  # tests (eager Celery): the sweep ran and failed
        matcher_started()
        raise
    if not sent:
        matcher_started()  # nothing waits: the next seek may try again
    return sent


def matcher_started() -> None:
    """Called by the sweep as it starts: seek changes from now on need a sweep of their own."""
    with contextlib.suppress(Exception):  # the cache is away: the flag expires by itself
        cache.delete(MATCHER_PENDING)


def enqueue_email(notification_id: int) -> None:
    """E-mail one notice."""
    enqueue(EMAIL_NOTIFICATION, notification_id)


def enqueue_confirmation(user_id: int, address: str) -> None:
    """Mail the link confirming ``address`` to the user."""
    enqueue(EMAIL_CONFIRMATION, user_id, address)
