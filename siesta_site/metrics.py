"""``/metrics``: the box's metrics in Prometheus's text format (docs/operations.md, "Metrics").

Answered to staff (signed in), to ``Authorization: Bearer <SIESTA_METRICS_TOKEN>``, and to a client
whose address is in ``SIESTA_METRICS_ALLOW`` (default loopback); anyone else gets the site's 404,
as for a page that does not exist. The address is ``REMOTE_ADDR`` as Daphne sets it: behind nginx
(``--proxy-headers``) the client's own, from the X-Forwarded-For that nginx overwrites.

What it reports (``core.metrics``): with ``PROMETHEUS_MULTIPROC_DIR`` the sum of every process of
the box (the files of the multiprocess mode), else this process's values and its own process
metrics; in both, the sampled gauges of this process read now, and the Celery queues' lengths and
whether Redis answered, read from Redis now (one pipelined round trip, bounded by the health
check's timeout).

A plain Django view: no session needed, no CSRF, no throttle, exempt from the HTTPS redirect.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterator

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from core import metrics as core_metrics
from siesta_site.health import _queue_lengths, _redis

logger = logging.getLogger(__name__)


def _networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n.strip(), strict=False) for n in settings.SIESTA_METRICS_ALLOW]


def _internal(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in _networks())


def allowed(request: HttpRequest) -> bool:
    """Staff, the bearer token, or an address of the allow-list."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    token = settings.SIESTA_METRICS_TOKEN
    scheme, _space, given = request.headers.get("Authorization", "").partition(" ")
    if token and scheme.lower() == "bearer" and constant_time_compare(given.strip(), token):
        return True
    return _internal(request.META.get("REMOTE_ADDR") or "")


def _redis_up() -> GaugeMetricFamily:
    return GaugeMetricFamily("siesta_redis_up", "Whether Redis answered this scrape (1) or not.")


def _queue_length() -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "siesta_celery_queue_length", "Tasks waiting in each Celery queue.", labels=["queue"]
    )


class ScrapeTimeCollector(Collector):
    """What is read when scraped rather than counted: the Celery queues' lengths (Redis lists)."""

    def describe(self) -> Iterator[Metric]:
        """The families it may report (with Redis), without reading anything."""
        yield _redis_up()
        yield _queue_length()

    def collect(self) -> Iterator[Metric]:
        url = settings.REDIS_URL
        if not url:
            return
        up = _redis_up()
        try:
            lengths = _queue_lengths(_redis(url))
        except Exception as exc:
            logger.warning("metrics: could not read the queues' lengths: %s", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        queues = _queue_length()
        for name, length in lengths.items():
            queues.add_metric([name], length)
        yield queues


def exposition() -> bytes:
    """The text a scrape gets (see the module's docstring)."""
    core_metrics.sample()
    scraped = CollectorRegistry(auto_describe=False)
    scraped.register(ScrapeTimeCollector())
    directory = settings.PROMETHEUS_MULTIPROC_DIR
    if directory:
        core_metrics.forget_dead_processes(directory)
        box = CollectorRegistry(auto_describe=False)
        multiprocess.MultiProcessCollector(box, path=directory)  # type: ignore[no-untyped-call]
        return generate_latest(box) + generate_latest(scraped)
    return generate_latest(REGISTRY) + generate_latest(scraped)


@never_cache
@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        raise Http404
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
