import os
from typing import Any

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

app = Celery("siesta_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any) -> Any:
    """``CELERY_TASK_ROUTES``: bot turns, analyses and periodic work on queues of their own
    (``core.inprocess.queue_for``, which the in-process runner asks too)."""
    from core.inprocess import queue_for

    return {"queue": queue_for(name)}


@signals.celeryd_after_setup.connect  # type: ignore[untyped-decorator]
def _nice_engine_workers(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A worker consuming a queue of engine work (``SIESTA_NICE_QUEUES``: bot turns, analyses,
    the puzzle pool) lowers its priority by ``SIESTA_WORKER_NICE`` before it starts its pool
    (whose processes inherit it), so that on a shared box the serving processes come first."""
    from django.conf import settings

    queues = {queue.name for queue in instance.app.amqp.queues.consume_from.values()}
    nice = int(getattr(settings, "SIESTA_WORKER_NICE", 0))
    if nice > 0 and queues & set(getattr(settings, "SIESTA_NICE_QUEUES", ())):
        os.nice(nice)
