"""The races of the live site (docs/reliability.md): 50 submissions for the same ply, REST and
WebSocket mixed, 20 rounds, on PostgreSQL with Redis; the same race on the embedded default
(SQLite file, in-memory layer, tasks in threads), which used to answer "database is locked" 500s."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from django.conf import settings as django_settings

from tests.reliability.live import PORTS, ROOT, database_url, live_site, site_env
from tests.reliability.race import race

SERVER_ERROR = re.compile(r'" 5\d\d ')
"""A 5xx in Daphne's access log."""


def assert_no_server_error(log: str) -> None:
    assert not SERVER_ERROR.search(log), log[-5000:]


def assert_clean(log: str) -> None:
    assert_no_server_error(log)
    assert "Traceback" not in log, log[-5000:]


@pytest.mark.requires_postgres
@pytest.mark.requires_redis
@pytest.mark.django_db(transaction=True)
def test_fifty_mixed_submissions_per_ply_on_postgres(tmp_path):
    from rest_framework.authtoken.models import Token

    from tests.factories import UserFactory

    tokens = [Token.objects.create(user=UserFactory()).key for _ in range(2)]
    env = site_env(
        DATABASE_URL=database_url(django_settings.DATABASES["default"]),
        REDIS_URL=django_settings.REDIS_URL,
        CELERY_EAGER="1",
    )
    with live_site(PORTS["race-postgres"], env, tmp_path) as site:
        report = race(PORTS["race-postgres"], tokens, submissions=50, rounds=20)
    print(f"postgres race: {report}")
    assert (report.rounds, report.applied, report.submissions) == (20, 20, 1000)
    assert_clean(site.output())


SEED = """
import json, django
django.setup()
from django.core.management import call_command
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
call_command("migrate", verbosity=0)
User = get_user_model()
users = [User.objects.create_user(f"racer{i}", password="racing-pass-1") for i in (1, 2)]
print(json.dumps([Token.objects.create(user=user).key for user in users]))
"""


def test_thirty_mixed_submissions_per_ply_on_sqlite(tmp_path):
    """``make run`` with nothing set: a SQLite file, threads serving requests at once."""
    env = site_env(DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}", CELERY_EAGER="1")
    seeded = subprocess.run(
        [sys.executable, "-c", SEED], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert seeded.returncode == 0, seeded.stderr
    tokens = json.loads(seeded.stdout.strip().splitlines()[-1])
    with live_site(PORTS["race-sqlite"], env, tmp_path) as site:
        report = race(PORTS["race-sqlite"], tokens, submissions=30, rounds=10)
    print(f"sqlite race: {report}")
    assert (report.rounds, report.applied, report.submissions) == (10, 10, 300)
    assert_clean(site.output())
