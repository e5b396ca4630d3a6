"""``/metrics`` (siesta_site/metrics.py): who may read it, what it reads at the scrape, and the
multiprocess mode adding up the values of every process of the box (core/metrics.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis
from django.conf import settings as django_settings
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from core import broadcast, metrics
from core.inprocess import dispatch
from siesta_site.celery import app
from tests.factories import PASSWORD, UserFactory

METRICS = "/metrics"
OUTSIDE = "203.0.113.7"  # TEST-NET-3: never an address of this machine
IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

pytestmark = pytest.mark.django_db


def parse(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and labels (``pid`` dropped)."""
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "pid"))
            samples[(sample.name, labels)] = sample.value
    return samples


def scrape(client, **extra) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get(METRICS, **extra)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain; version=")
    return parse(response.content.decode())


@pytest.fixture
def without_redis(settings):
    settings.REDIS_URL = None
    settings.CHANNEL_LAYERS = IN_MEMORY


# -- who may read it ------------------------------------------------------------------------------


def test_an_outside_address_gets_the_site_s_404(client, without_redis, settings):
    settings.SIESTA_METRICS_TOKEN = "s3cret-metrics-token"
    response = client.get(METRICS, REMOTE_ADDR=OUTSIDE)
    assert response.status_code == 404
    assert b"siesta_" not in response.content
    wrong = client.get(METRICS, REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer nope")
    assert wrong.status_code == 404


def test_the_bearer_token_opens_it_from_anywhere(client, without_redis, settings):
    settings.SIESTA_METRICS_TOKEN = "s3cret-metrics-token"
    samples = scrape(client, REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer s3cret-metrics-token")
    assert ("siesta_broadcast_failures_total", ()) in samples


def test_without_a_token_configured_no_bearer_is_accepted(client, without_redis, settings):
    settings.SIESTA_METRICS_TOKEN = ""
    for header in ("Bearer ", "Bearer", "bearer  "):
        response = client.get(METRICS, REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION=header)
        assert response.status_code == 404, header


def test_staff_signed_in_may_read_it_and_other_users_may_not(client, without_redis):
    staff, player = UserFactory(is_staff=True), UserFactory()
    assert client.login(username=player.username, password=PASSWORD)
    assert client.get(METRICS, REMOTE_ADDR=OUTSIDE).status_code == 404
    assert client.login(username=staff.username, password=PASSWORD)
    scrape(client, REMOTE_ADDR=OUTSIDE)


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.53", "::1", "::ffff:127.0.0.1"])
def test_loopback_is_internal_by_default(client, without_redis, address):
    scrape(client, REMOTE_ADDR=address)


def test_the_allow_list_is_configurable(client, without_redis, settings):
    settings.SIESTA_METRICS_ALLOW = ["203.0.113.0/24", "10.1.0.0/16"]
    scrape(client, REMOTE_ADDR=OUTSIDE)
    scrape(client, REMOTE_ADDR="10.1.2.3")
    assert client.get(METRICS, REMOTE_ADDR="127.0.0.1").status_code == 404
    assert client.get(METRICS, REMOTE_ADDR="not an address").status_code == 404


def test_a_scrape_leaves_no_session_and_is_never_cached(client, without_redis):
    response = client.get(METRICS)
    assert response.status_code == 200
    assert not response.cookies
    assert "no-cache" in response["Cache-Control"]
    assert client.post(METRICS).status_code == 405


def test_the_https_redirect_leaves_the_scrape_alone(client, without_redis, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get(METRICS).status_code == 200


# -- what a scrape of one process reports ---------------------------------------------------------


def test_a_single_process_reports_every_metric_and_its_own_process(client, without_redis):
    text = client.get(METRICS).content.decode()
    names = {family.name for family in text_string_to_metric_families(text)}
    assert {
        "siesta_move_seconds",
        "siesta_sockets_open",
        "siesta_socket_messages",
        "siesta_channel_layer_buffered_messages",
        "siesta_broadcast_failures",
        "siesta_task_seconds",
        "siesta_engine_cpu_seconds",
        "siesta_engine_refusals",
        "siesta_db_pool_connections",
        "siesta_db_pool_waiting",
        "siesta_players_out",
        "siesta_process_start_time_seconds",
        "process_start_time_seconds",  # prometheus_client's own, of this one process
    } <= names
    assert "siesta_celery_queue_length" not in names  # no Redis, no queues


def test_a_broadcast_failure_moves_the_counter(client, without_redis, settings):
    before = scrape(client)[("siesta_broadcast_failures_total", ())]
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "tests.siesta_site.test_health.RefusingLayer"}
    }
    assert broadcast.group_send("game-1", {"type": "game.state"}) is False
    settings.CHANNEL_LAYERS = IN_MEMORY
    assert scrape(client)[("siesta_broadcast_failures_total", ())] == before + 1


async def test_messages_waiting_in_the_layer_are_sampled(without_redis):
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    channel = await layer.new_channel()
    for n in range(3):
        await layer.send(channel, {"type": "probe", "n": n})
    metrics.sample()
    assert REGISTRY.get_sample_value("siesta_channel_layer_buffered_messages") == 3
    await layer.receive(channel)
    metrics.sample()
    assert REGISTRY.get_sample_value("siesta_channel_layer_buffered_messages") == 2
    await layer.flush()


def test_a_task_s_run_time_is_observed_by_task_and_state(without_redis):
    def count(state: str) -> float:
        value = REGISTRY.get_sample_value(
            "siesta_task_seconds_count", {"task": "games.tasks.bot_move", "state": state}
        )
        return value or 0.0

    before = count("SUCCESS")
    app.tasks["games.tasks.bot_move"].apply(args=(987654321, 0))  # no such game: a no-op
    assert count("SUCCESS") == before + 1


@pytest.mark.requires_postgres
def test_the_database_pool_is_sampled(client, without_redis):
    from django.db import connection

    if not connection.settings_dict["OPTIONS"].get("pool"):
        pytest.skip("DJANGO_DB_POOL is off")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    samples = scrape(client)
    assert samples[("siesta_db_pool_connections", (("state", "open"),))] >= 1
    assert (
        samples[("siesta_db_pool_connections", (("state", "max"),))]
        == (connection.settings_dict["OPTIONS"]["pool"]["max_size"])
    )


@pytest.mark.requires_redis
def test_the_queues_lengths_are_read_from_redis_at_the_scrape(client, settings):
    prefix = f"metrics-test-{uuid.uuid4().hex[:12]}"
    settings.SIESTA_TASK_QUEUES = {"games.tasks.bot_move": f"{prefix}-bots"}
    settings.CELERY_TASK_DEFAULT_QUEUE = f"{prefix}-celery"
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        assert dispatch("games.tasks.bot_move", 424242, 0)
        assert dispatch("games.tasks.bot_move", 424243, 0)
        samples = scrape(client)
    finally:
        app.conf.task_always_eager = previous
        redis.Redis.from_url(django_settings.REDIS_URL).delete(f"{prefix}-bots", f"{prefix}-celery")
    assert samples[("siesta_redis_up", ())] == 1
    assert samples[("siesta_celery_queue_length", (("queue", f"{prefix}-bots"),))] == 2
    assert samples[("siesta_celery_queue_length", (("queue", f"{prefix}-celery"),))] == 0


def test_redis_away_is_reported_not_raised(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CHANNEL_LAYERS = IN_MEMORY
    samples = scrape(client)
    assert samples[("siesta_redis_up", ())] == 0
    assert not any(name == "siesta_celery_queue_length" for name, _ in samples)


# -- the multiprocess mode ------------------------------------------------------------------------

WRITER = """
import os, sys
import django
django.setup()
from core import metrics
assert metrics.MULTIPROC_DIR, "not in the multiprocess mode"
metrics.start_process("worker")
n = int(sys.argv[1])
metrics.SOCKETS_OPEN.labels("game").inc(n)
metrics.SOCKET_MESSAGES.labels("game").inc(10 * n)
for _ in range(n):
    metrics.MOVE_SECONDS.observe(0.02)
print("written", flush=True)
if sys.argv[2] == "stay":
    sys.stdin.read()  # until the test closes it
"""


def _writer(directory: Path, n: int, stay: bool) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
        "DJANGO_SETTINGS_MODULE": "siesta_site.settings",
        "SIESTA_METRICS_SAMPLE_SECONDS": "3600",
    }
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(n), "stay" if stay else "exit"],
        cwd=django_settings.BASE_DIR,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "written"
    return process


def test_one_scrape_adds_up_every_process_of_the_box(client, without_redis, settings, tmp_path):
    settings.PROMETHEUS_MULTIPROC_DIR = str(tmp_path)
    staying = _writer(tmp_path, 2, stay=True)
    try:
        leaving = _writer(tmp_path, 3, stay=False)
        assert leaving.wait(timeout=60) == 0

        samples = scrape(client)
        # Counters and histograms: both processes, the one gone too.
        assert samples[("siesta_socket_messages_total", (("kind", "game"),))] == 50
        assert samples[("siesta_move_seconds_count", ())] == 5
        assert samples[("siesta_move_seconds_bucket", (("le", "0.025"),))] == 5
        # A live gauge: only the process still running (the other's went when it exited).
        assert samples[("siesta_sockets_open", (("kind", "game"),))] == 2
        assert samples[("siesta_process_start_time_seconds", (("role", "worker"),))] > 0
    finally:
        assert staying.stdin is not None
        staying.stdin.close()
        assert staying.wait(timeout=60) == 0

    samples = scrape(client)
    assert samples.get(("siesta_sockets_open", (("kind", "game"),)), 0) == 0
    assert samples[("siesta_socket_messages_total", (("kind", "game"),))] == 50
    # The scraping process's own process metrics are not the box's: left out.
    assert not any(name == "process_start_time_seconds" for name, _ in samples)


def test_the_processes_files_are_named_by_host_and_pid():
    identifier = metrics.process_identifier()
    assert identifier.endswith(f"-{os.getpid()}")
    assert "_" not in identifier


def test_a_killed_process_s_live_gauges_are_forgotten(client, without_redis, settings, tmp_path):
    """Killed (no ``atexit``): the next scrape sees its process is gone and drops its sockets."""
    settings.PROMETHEUS_MULTIPROC_DIR = str(tmp_path)
    killed = _writer(tmp_path, 4, stay=True)
    assert scrape(client)[("siesta_sockets_open", (("kind", "game"),))] == 4
    killed.kill()
    killed.wait(timeout=60)
    samples = scrape(client)
    assert samples.get(("siesta_sockets_open", (("kind", "game"),)), 0) == 0
    assert samples[("siesta_socket_messages_total", (("kind", "game"),))] == 40
