import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

app = Celery("siesta_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def queue_for(task_name: str) -> str:
    """The queue a task goes to: ``SIESTA_TASK_QUEUES`` by task name, else the default queue.

    Read at each call (a Celery router), so settings overridden in tests take effect."""
    from django.conf import settings

    queues: dict[str, str] = getattr(settings, "SIESTA_TASK_QUEUES", {})
    return queues.get(task_name) or app.conf.task_default_queue


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any) -> Any:
    """``CELERY_TASK_ROUTES``: bot turns, analyses and periodic work on queues of their own."""
    return {"queue": queue_for(name)}
