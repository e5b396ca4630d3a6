"""``/health/``: the operator's view of a web process (siesta_site/health.py)."""

from __future__ import annotations

import copy
import uuid
from unittest.mock import ANY

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connections

from core import broadcast
from core.inprocess import dispatch
from siesta_site.celery import app

HEALTH = "/health/"
IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def degraded(client) -> dict:
    """The answer of a process that serves pages while something else fails: 200, degraded."""
    response = client.get(HEALTH)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["database"]["ok"] is True
    return body["checks"]


@pytest.fixture
def without_redis(settings):
    """As under ``make run``: no REDIS_URL, the in-memory channel layer."""
    settings.REDIS_URL = None
    settings.CHANNEL_LAYERS = IN_MEMORY


@pytest.mark.django_db
def test_without_redis_every_check_has_its_shape(client, without_redis):
    response = client.get(HEALTH)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "ok"
    checks = body["checks"]
    assert set(checks) == {"database", "redis", "channel_layer", "queues", "broadcast_failures"}
    for name in ("database", "channel_layer"):  # the in-memory layer's round trip still runs
        assert checks[name]["ok"] is True
        assert isinstance(checks[name]["ms"], float)
        assert checks[name]["ms"] >= 0
    assert checks["redis"] == checks["queues"] == "not configured"
    assert checks["broadcast_failures"] == broadcast.failure_count()


@pytest.mark.django_db
def test_a_probe_leaves_no_session_and_is_never_cached(client, without_redis):
    response = client.get(HEALTH)
    assert not response.cookies
    assert "no-store" in response["Cache-Control"]
    assert client.head(HEALTH).status_code == 200
    assert client.post(HEALTH).status_code == 405


@pytest.mark.django_db
def test_probes_are_not_throttled(client, without_redis, real_throttles):
    assert {client.get(HEALTH).status_code for _ in range(40)} == {200}


@pytest.mark.django_db
def test_a_forced_broadcast_failure_is_counted(client, without_redis, settings):
    before = client.get(HEALTH).json()["checks"]["broadcast_failures"]
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.RefusingLayer"}}
    assert broadcast.group_send("game-1", {"type": "game.state"}) is False
    settings.CHANNEL_LAYERS = IN_MEMORY
    body = client.get(HEALTH).json()
    assert body["checks"]["broadcast_failures"] == before + 1
    assert body["status"] == "ok"  # a past failure is reported, not a present one


class RefusingLayer:
    """A channel layer whose every send fails, as one that lost its Redis does."""

    def __init__(self, **config):
        pass

    async def group_send(self, group, message):
        raise ConnectionError("refused")

    async def send(self, channel, message):
        raise ConnectionError("refused")


@pytest.mark.django_db
def test_a_channel_layer_that_fails_leaves_the_site_degraded(client, without_redis, settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"{__name__}.RefusingLayer"}}
    checks = degraded(client)
    assert checks["channel_layer"] == {"ok": False, "error": "ConnectionError", "ms": ANY}
    assert "refused" not in client.get(HEALTH).content.decode()  # the message stays in the log


@pytest.fixture
def unreachable_database(transactional_db):
    """The default database's connection settings pointed where nothing answers."""
    connection = connections["default"]
    saved = copy.deepcopy(connection.settings_dict)
    if connection.vendor == "sqlite":
        # The shared in-memory test database ignores close(); put its connection aside instead.
        real, connection.connection = connection.connection, None
        connection.settings_dict["NAME"] = "/nonexistent/siesta/db.sqlite3"
    else:
        real = None
        connection.close()
        if connection.pool:
            connection.close_pool()
        connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
        options = connection.settings_dict["OPTIONS"]
        if isinstance(options.get("pool"), dict):
            options["pool"] = {**options["pool"], "timeout": 1.0}
    yield
    connection.close()
    if connection.vendor != "sqlite" and connection.pool:
        connection.close_pool()
    connection.settings_dict.clear()
    connection.settings_dict.update(saved)
    if real is not None:
        connection.connection = real


@pytest.mark.usefixtures("without_redis")
def test_the_database_down_answers_503(client, unreachable_database):
    response = client.get(HEALTH)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["database"]["ok"] is False
    assert body["checks"]["database"]["error"] in ("OperationalError", "PoolTimeout")
    assert body["checks"]["channel_layer"]["ok"] is True


# -- production ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_https_redirect_leaves_the_probes_alone(client, without_redis, settings):
    settings.SECURE_SSL_REDIRECT = True  # as in production
    assert client.get("/rules/").status_code == 301
    assert client.get(HEALTH).status_code == 200


# -- with Redis ------------------------------------------------------------------------------------


@pytest.fixture
def fresh_queues(settings):
    """Tasks really sent to Redis, on queues of this test's own (no worker takes them)."""
    prefix = f"health-test-{uuid.uuid4().hex[:12]}"
    settings.SIESTA_TASK_QUEUES = {
        "games.tasks.bot_move": f"{prefix}-bots",
        "games.tasks.analyse_game": f"{prefix}-analyses",
    }
    settings.CELERY_TASK_DEFAULT_QUEUE = f"{prefix}-celery"
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield prefix
    finally:
        app.conf.task_always_eager = previous
        redis.Redis.from_url(django_settings.REDIS_URL).delete(
            *settings.SIESTA_TASK_QUEUES.values(), settings.CELERY_TASK_DEFAULT_QUEUE
        )


@pytest.mark.requires_postgres
@pytest.mark.requires_redis
@pytest.mark.django_db
def test_queue_lengths_count_the_tasks_waiting_in_redis(client, fresh_queues):
    empty = client.get(HEALTH).json()
    assert empty["status"] == "ok"
    assert empty["checks"]["redis"]["ok"] is True
    assert empty["checks"]["queues"] == {
        f"{fresh_queues}-analyses": 0,
        f"{fresh_queues}-bots": 0,
        f"{fresh_queues}-celery": 0,
    }
    assert dispatch("games.tasks.bot_move", 424242, 0)
    assert dispatch("games.tasks.bot_move", 424243, 0)
    assert dispatch("games.tasks.analyse_game", 424242)
    queues = client.get(HEALTH).json()["checks"]["queues"]
    assert queues == {
        f"{fresh_queues}-analyses": 1,
        f"{fresh_queues}-bots": 2,
        f"{fresh_queues}-celery": 0,
    }


@pytest.mark.requires_postgres
@pytest.mark.requires_redis
@pytest.mark.django_db
def test_the_redis_layer_s_failures_are_counted_and_its_round_trip_checked(client, settings):
    healthy = client.get(HEALTH).json()
    assert healthy["checks"]["channel_layer"]["ok"] is True
    before = healthy["checks"]["broadcast_failures"]
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["hosts"][0]["address"] = "redis://127.0.0.1:1/0"
    settings.CHANNEL_LAYERS = layers
    assert broadcast.group_send("game-1", {"type": "game.state"}) is False
    checks = degraded(client)
    assert checks["channel_layer"]["ok"] is False
    assert checks["broadcast_failures"] == before + 1
    assert checks["redis"]["ok"] is True  # Redis itself still answers


@pytest.mark.django_db
def test_redis_down_is_degraded_not_down(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CHANNEL_LAYERS = IN_MEMORY
    checks = degraded(client)
    assert checks["redis"] == {"ok": False, "error": "ConnectionError", "ms": ANY}
    assert checks["queues"]["ok"] is False
    assert checks["channel_layer"]["ok"] is True
