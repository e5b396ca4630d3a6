"""``/health/``: the operator's view of a web process (siesta_site/health.py).

The ``client`` of these tests presents the operator's token (``X-Health-Token``) and every probe
computes a fresh report, unless a test says otherwise (``anonymous``, the cache's own tests)."""

from __future__ import annotations

import copy
import uuid
from unittest.mock import ANY

import pytest
import redis
from django.conf import settings as django_settings
from django.test import Client

from core import broadcast
from core.inprocess import dispatch
from siesta_site import health
from siesta_site.celery import app

HEALTH = "/health/"
IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
TOKEN = "health-token-of-the-tests-0123456789"


@pytest.fixture(autouse=True)
def operator(client, settings):
    """The tests' ``client`` is the operator's monitoring (the token); no cached report."""
    settings.SIESTA_HEALTH_TOKEN = TOKEN
    settings.SIESTA_HEALTH_CACHE_SECONDS = 0
    client.defaults["HTTP_X_HEALTH_TOKEN"] = TOKEN
    health.reports.clear()
    yield
    health.reports.clear()


@pytest.fixture
def anonymous():
    return Client()


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


@pytest.mark.usefixtures("without_redis")
def test_the_database_down_answers_503(client, unreachable_database):
    response = client.get(HEALTH)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["database"]["ok"] is False
    assert body["checks"]["database"]["error"] in ("OperationalError", "PoolTimeout")
    assert body["checks"]["channel_layer"]["ok"] is True


# -- who sees what, and how often it runs ---------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_callers_get_the_status_alone(anonymous, without_redis):
    response = anonymous.get(HEALTH)
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    wrong = anonymous.get(HEALTH, headers={"X-Health-Token": TOKEN[:-1] + "x"})
    assert wrong.json() == {"status": "ok"}


@pytest.mark.django_db
def test_without_a_configured_token_no_header_shows_the_checks(anonymous, without_redis, settings):
    settings.SIESTA_HEALTH_TOKEN = ""
    assert anonymous.get(HEALTH, headers={"X-Health-Token": ""}).json() == {"status": "ok"}


@pytest.mark.django_db
def test_staff_see_the_checks_other_players_do_not(anonymous, without_redis, django_user_model):
    player = django_user_model.objects.create_user("player", password="x")
    staff = django_user_model.objects.create_user("operator", password="x", is_staff=True)
    anonymous.force_login(player)
    assert anonymous.get(HEALTH).json() == {"status": "ok"}
    anonymous.force_login(staff)
    body = anonymous.get(HEALTH).json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.usefixtures("without_redis")
def test_the_database_down_is_503_for_anyone(anonymous, unreachable_database):
    response = anonymous.get(HEALTH)
    assert response.status_code == 503
    assert response.json() == {"status": "down"}


@pytest.mark.django_db
def test_a_flood_of_probes_computes_one_report_per_period(
    anonymous, without_redis, settings, monkeypatch
):
    """Within SIESTA_HEALTH_CACHE_SECONDS every probe is answered from the last report (the
    checks run once); after it, the next probe runs them again."""
    settings.SIESTA_HEALTH_CACHE_SECONDS = 1.0
    now = [1000.0]
    monkeypatch.setattr(health, "reports", health.ReportCache(clock=lambda: now[0]))
    runs = []
    real = health.health_report

    def counted():
        runs.append(now[0])
        return real()

    monkeypatch.setattr(health, "health_report", counted)
    for _ in range(50):
        assert anonymous.get(HEALTH).json() == {"status": "ok"}
    assert len(runs) == 1
    now[0] += 0.9
    anonymous.get(HEALTH)
    assert len(runs) == 1
    now[0] += 0.2
    anonymous.get(HEALTH)
    assert runs == [1000.0, 1001.1]


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
