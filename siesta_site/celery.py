import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

app = Celery("siesta_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any) -> Any:
    """``CELERY_TASK_ROUTES``: bot turns, analyses and periodic work on queues of their own
    (``core.inprocess.queue_for``, which the in-process runner asks too)."""
    from core.inprocess import queue_for

    return {"queue": queue_for(name)}
