"""Settings come from the environment; production refuses to start without its services."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json
import django
from django.conf import settings
django.setup()
print(json.dumps({
    "debug": settings.DEBUG,
    "engine": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "db_pool": settings.DATABASES["default"].get("OPTIONS", {}).get("pool"),
    "db_prepare": settings.DATABASES["default"].get("OPTIONS", {}).get("prepare_threshold"),
    "db_threads": settings.SIESTA_DB_THREADS,
    "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "broker": settings.CELERY_BROKER_URL,
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "session_cookie_secure": settings.SESSION_COOKIE_SECURE,
    "allowed_hosts": settings.ALLOWED_HOSTS,
    "csrf_trusted_origins": settings.CSRF_TRUSTED_ORIGINS,
    "cache": settings.CACHES["default"]["BACKEND"],
    "group_expiry": settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("group_expiry"),
    "hsts_seconds": getattr(settings, "SECURE_HSTS_SECONDS", 0),
    "site_url": settings.SIESTA_SITE_URL,
}))
"""

PRODUCTION_ENV = {
    "DJANGO_PRODUCTION": "1",
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DATABASE_URL": "postgres://siesta@db.example:5432/siesta",
    "REDIS_URL": "redis://cache.example:6379/0",
    "DJANGO_ALLOWED_HOSTS": "siesta.example",
    "SIESTA_SITE_URL": "https://siesta.example",
}


def clean_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "DJANGO_SETTINGS_MODULE": "siesta_site.settings"}


def run_settings(**env: str) -> subprocess.CompletedProcess[str]:
    """Load the settings in a fresh interpreter that sees only `env` (plus PATH)."""
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        env=clean_env() | env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def load_settings(**env: str) -> dict:
    proc = run_settings(**env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_defaults_are_sqlite_and_in_memory():
    loaded = load_settings()
    assert loaded["debug"] is True
    assert loaded["engine"] == "django.db.backends.sqlite3"
    assert loaded["db_name"] == str(REPO_ROOT / "db.sqlite3")
    assert loaded["channel_layer"] == "channels.layers.InMemoryChannelLayer"
    assert loaded["broker"] == "memory://"
    assert loaded["eager"] is True
    assert loaded["allowed_hosts"] == ["localhost", "127.0.0.1", "testserver"]


def test_redis_url_selects_redis_layer_and_broker():
    loaded = load_settings(REDIS_URL="redis://127.0.0.1:6379/0")
    # channels_redis's layer with a blocking connection pool (core/channel_layer.py)
    assert loaded["channel_layer"] == "core.channel_layer.RedisChannelLayer"
    # Throttle counts are shared by every server process; dead channels leave groups in 5 minutes.
    assert loaded["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert loaded["group_expiry"] == 300
    assert loaded["broker"] == "redis://127.0.0.1:6379/0"
    assert loaded["eager"] is False


def test_celery_eager_overrides_redis_default():
    loaded = load_settings(REDIS_URL="redis://127.0.0.1:6379/0", CELERY_EAGER="1")
    assert loaded["eager"] is True


def test_database_url_selects_postgres():
    loaded = load_settings(DATABASE_URL="postgres://postgres@127.0.0.1:5432/siesta")
    assert loaded["engine"] == "django.db.backends.postgresql"
    assert loaded["db_name"] == "siesta"
    # A pool of connections per process, sized for the consumers' threads and HTTP requests.
    assert loaded["db_threads"] == 8
    assert loaded["db_pool"]["max_size"] >= loaded["db_threads"]


def test_the_moves_prepared_statements_can_be_turned_off():
    """For a pooler that cannot keep prepared statements (PgBouncer before 1.21 in transaction
    mode); psycopg prepares nothing while ``prepare_threshold`` is None."""
    url = "postgres://postgres@127.0.0.1/siesta"
    assert load_settings(DATABASE_URL=url)["db_prepare"] == 5
    assert load_settings(DATABASE_URL=url, DJANGO_DB_PREPARED="0")["db_prepare"] is None


def test_sqlite_has_no_pool_and_one_consumer_thread():
    loaded = load_settings()
    assert (loaded["db_pool"], loaded["db_threads"]) == (None, 1)


def test_the_connection_pool_can_be_turned_off():
    loaded = load_settings(DATABASE_URL="postgres://postgres@127.0.0.1/siesta", DJANGO_DB_POOL="0")
    assert loaded["db_pool"] is None


@pytest.mark.parametrize(
    "missing",
    ["DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DJANGO_ALLOWED_HOSTS", "SIESTA_SITE_URL"],
)
def test_production_refuses_to_start_without(missing):
    env = {name: value for name, value in PRODUCTION_ENV.items() if name != missing}
    proc = run_settings(**env)
    assert proc.returncode != 0
    assert "ImproperlyConfigured" in proc.stderr
    assert missing in proc.stderr


def test_production_with_everything_set():
    loaded = load_settings(**PRODUCTION_ENV, DJANGO_DEBUG="1")
    assert loaded["debug"] is False
    assert loaded["session_cookie_secure"] is True
    assert loaded["engine"] == "django.db.backends.postgresql"
    # channels_redis's layer with a blocking connection pool (core/channel_layer.py)
    assert loaded["channel_layer"] == "core.channel_layer.RedisChannelLayer"
    assert loaded["allowed_hosts"] == ["siesta.example"]
    assert loaded["csrf_trusted_origins"] == []  # no localhost default in production
    assert loaded["hsts_seconds"] >= 365 * 24 * 3600


def test_production_passes_the_deployment_checklist():
    """`manage.py check --deploy` with the production settings: not one warning (CI runs it too)."""
    env = clean_env() | PRODUCTION_ENV | {"DJANGO_SECRET_KEY": secrets.token_urlsafe(64)}
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues" in proc.stdout


@pytest.mark.parametrize(
    "key",
    [
        "change-me-in-dot-env",  # the placeholder docker-compose.yml used to default to
        "x" * 49,  # too short
        "django-insecure-" + secrets.token_urlsafe(50),  # Django's generated development key
        "placeholder-" + secrets.token_urlsafe(50),
        "Change-Me-" + secrets.token_urlsafe(50),
    ],
)
def test_production_refuses_a_placeholder_secret_key(key):
    proc = run_settings(**(PRODUCTION_ENV | {"DJANGO_SECRET_KEY": key}))
    assert proc.returncode != 0
    assert "ImproperlyConfigured" in proc.stderr
    assert "DJANGO_SECRET_KEY looks like a placeholder" in proc.stderr


def test_production_takes_a_random_secret_key():
    key = secrets.token_urlsafe(50)
    assert load_settings(**(PRODUCTION_ENV | {"DJANGO_SECRET_KEY": key}))["debug"] is False


def test_the_site_url_is_an_origin():
    """Every mailed link starts with SIESTA_SITE_URL (core/links.py): scheme and host, no path."""
    assert load_settings()["site_url"] == "http://127.0.0.1:8000"
    assert load_settings(**PRODUCTION_ENV)["site_url"] == "https://siesta.example"
    good = load_settings(SIESTA_SITE_URL="http://127.0.0.1:9100/")
    assert good["site_url"] == "http://127.0.0.1:9100/"
    for bad in (
        "siesta.example",
        "ftp://siesta.example",
        "https://siesta.example/play",
        "https://",
    ):
        proc = run_settings(SIESTA_SITE_URL=bad)
        assert proc.returncode != 0, bad
        assert "SIESTA_SITE_URL must be the site's origin" in proc.stderr


def test_a_mistyped_network_in_the_metrics_allow_list_stops_the_start():
    assert load_settings(SIESTA_METRICS_ALLOW="10.0.0.0/8, ::1/128")["debug"] is True
    refused = run_settings(SIESTA_METRICS_ALLOW="10.0.0.0/8,nonsense")
    assert refused.returncode != 0
    assert "'nonsense' does not appear to be an IPv4 or IPv6 network" in refused.stderr
