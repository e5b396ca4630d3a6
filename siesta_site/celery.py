import os
import time
from typing import Any

from celery import Celery, signals

from core import metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "siesta_site.settings")

app = Celery("siesta_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any) -> Any:
    """``CELERY_TASK_ROUTES``: bot turns, analyses and periodic work on queues of their own
    (``core.inprocess.queue_for``, which the in-process runner asks too)."""
    from core.inprocess import queue_for

    return {"queue": queue_for(name)}


# -- metrics (core/metrics.py): each task's run time, and each process's start and exit ---------

_task_began: dict[str, float] = {}


def _task_prerun(task_id: str | None = None, **kwargs: Any) -> None:
    if task_id is not None:
        _task_began[task_id] = time.perf_counter()


def _task_postrun(
    task_id: str | None = None, task: Any = None, state: str | None = None, **kwargs: Any
) -> None:
    began = _task_began.pop(task_id, None) if task_id is not None else None
    if began is not None:
        name = getattr(task, "name", None) or "unknown"
        metrics.TASK_SECONDS.labels(name, state or "UNKNOWN").observe(time.perf_counter() - began)


def _worker_started(**kwargs: Any) -> None:
    """The worker's main process, and each child of its pool (forked: its own files)."""
    metrics.start_process("worker")


def _worker_child_exits(**kwargs: Any) -> None:
    """A pool's child leaves through ``os._exit``, past ``atexit``: its live gauges go here."""
    metrics.process_exit()


def _beat_started(**kwargs: Any) -> None:
    metrics.start_process("beat")


signals.task_prerun.connect(_task_prerun)
signals.task_postrun.connect(_task_postrun)
signals.worker_init.connect(_worker_started)
signals.worker_process_init.connect(_worker_started)
signals.worker_process_shutdown.connect(_worker_child_exits)
signals.beat_init.connect(_beat_started)


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
