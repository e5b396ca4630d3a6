"""Throttles, with the real limits: sign-in attempts per address and failures per username and
address (API token and login form share them), registrations per address (API and form), and the
general per-client API limits. Every refusal is a 429 with Retry-After."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from core.throttling import Rate
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

TOKEN = reverse("api-token")
REGISTER = reverse("api-register")
LOGIN = reverse("login")
REGISTER_PAGE = reverse("register")
STRONG = "a-long-siesta-secret-9"


def limit_of(rates: dict, scope: str) -> Rate:
    rate = Rate.parse(rates[scope])
    assert rate is not None, f"{scope} is throttled by default"
    return rate


def assert_throttled(response, *, within: int) -> None:
    assert response.status_code == 429, response.content
    assert 1 <= int(response["Retry-After"]) <= within


def from_address(address: str) -> APIClient:
    return APIClient(REMOTE_ADDR=address)


def test_wrong_passwords_on_the_token_api_are_throttled_per_address(real_throttles):
    user = UserFactory()
    limit = limit_of(real_throttles, "auth")
    client = from_address("203.0.113.5")
    for n in range(limit.count):  # other names each time: the address's limit alone
        wrong = client.post(TOKEN, {"username": f"guess{n}", "password": "nope"}, format="json")
        assert wrong.status_code == 400

    refused = client.post(TOKEN, {"username": user.username, "password": PASSWORD}, format="json")

    assert_throttled(refused, within=limit.seconds)
    assert "throttled" in refused.json()["error"]
    # Another address is not held back by this one.
    other = from_address("203.0.113.6").post(
        TOKEN, {"username": user.username, "password": PASSWORD}, format="json"
    )
    assert other.status_code == 200


def test_a_forged_forwarded_for_header_does_not_escape_the_limit(real_throttles):
    user = UserFactory()
    limit = limit_of(real_throttles, "auth")
    client = from_address("203.0.113.7")
    for attempt in range(limit.count):
        client.post(
            TOKEN,
            {"username": user.username, "password": "nope"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"10.0.0.{attempt}",
        )

    refused = client.post(
        TOKEN,
        {"username": user.username, "password": PASSWORD},
        format="json",
        HTTP_X_FORWARDED_FOR="10.9.9.9",
    )

    assert_throttled(refused, within=limit.seconds)


def test_the_login_form_is_throttled_with_the_same_count_as_the_api(client, real_throttles):
    user = UserFactory()
    limit = limit_of(real_throttles, "auth")
    api = APIClient(REMOTE_ADDR="127.0.0.1")  # the test client's address too
    half = limit.count // 2
    for n in range(half):
        api.post(TOKEN, {"username": f"guess{n}", "password": "nope"}, format="json")
    for n in range(limit.count - half):
        page = client.post(LOGIN, {"username": f"other{n}", "password": "nope"})
        assert page.status_code == 200

    refused = client.post(LOGIN, {"username": user.username, "password": PASSWORD})

    assert_throttled(refused, within=limit.seconds)
    assert "Too many attempts. Try again in" in refused.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_login_form_says_it_in_the_visitors_language(client, real_throttles):
    limit = limit_of(real_throttles, "auth")
    for _ in range(limit.count + 1):
        page = client.post(LOGIN, {"username": "x", "password": "nope"}, HTTP_ACCEPT_LANGUAGE="es")

    assert page.status_code == 429
    assert "Demasiados intentos" in page.content.decode()


class Clock:
    """The throttles' clock, moved by hand: starts at the beginning of an hour's window."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0 - 1_800_000_000 % 3600 + 1

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    from core import throttling

    fake = Clock()
    monkeypatch.setattr(throttling, "time", fake)
    return fake


def token(address: str, username: str, password: str):
    return from_address(address).post(
        TOKEN, {"username": username, "password": password}, format="json"
    )


def test_failures_delay_their_own_address_only_and_the_delay_grows(real_throttles, clock):
    """Issue 31: 20 bad passwords from anywhere locked the owner out for an hour. Now failures
    count per (username, address): past the free ones, that pair waits 1 s, then 2 s, 4 s...
    (a 429 saying so, the thread never sleeps), while the owner's own address is not held."""
    victim = UserFactory()
    free = limit_of(real_throttles, "login_failures")
    attacker = "198.51.100.1"
    for _ in range(free.count):
        assert token(attacker, victim.username.upper(), "guess").status_code == 400
    # The first failure past the free ones: a wait of 1 s, then 2 s, then 4 s.
    for expected in (1, 2, 4):
        clock.now += 60  # a new minute: the address's own limit (``auth``) is not what answers
        assert token(attacker, victim.username, "guess").status_code == 400
        refused = token(attacker, victim.username, PASSWORD)
        assert_throttled(refused, within=expected)
        assert int(refused["Retry-After"]) == expected
        clock.now += expected - 0.5
        assert token(attacker, victim.username, PASSWORD).status_code == 429
        clock.now += 0.5
    # The owner, from their own address, was never held back: API and form alike.
    assert token("192.0.2.1", victim.username, PASSWORD).status_code == 200
    form = APIClient(REMOTE_ADDR="192.0.2.2").post(
        LOGIN, {"username": victim.username, "password": PASSWORD}
    )
    assert form.status_code == 302


def test_the_login_form_says_how_long_to_wait(client, real_throttles, clock):
    victim = UserFactory()
    free = limit_of(real_throttles, "login_failures")
    for _ in range(free.count + 1):
        assert client.post(LOGIN, {"username": victim.username, "password": "x"}).status_code == 200

    refused = client.post(
        LOGIN, {"username": victim.username, "password": PASSWORD}, HTTP_ACCEPT_LANGUAGE="de"
    )

    assert_throttled(refused, within=1)
    assert "Zu viele Versuche" in refused.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_sign_in_ends_the_pairs_delay(real_throttles, clock):
    """The owner who mistyped a few times and then got it right starts again from zero."""
    owner = UserFactory()
    free = limit_of(real_throttles, "login_failures")
    for _ in range(free.count):
        assert token("192.0.2.7", owner.username, "typo").status_code == 400
    assert token("192.0.2.7", owner.username, PASSWORD).status_code == 200
    clock.now += 60  # a new minute for the address's own limit (``auth``)
    for _ in range(free.count):
        assert token("192.0.2.7", owner.username, "typo").status_code == 400
    assert token("192.0.2.7", owner.username, PASSWORD).status_code == 200


def test_the_usernames_ceiling_spares_the_addresses_it_signed_in_from(
    settings, real_throttles, clock
):
    """Guessing one password from very many addresses: once the username's far higher ceiling is
    reached, only addresses that username signed in from before may still try it."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**real_throttles, "login_failures_user": "6/hour"},
    }
    victim, bystander = UserFactory(), UserFactory()
    assert token("192.0.2.1", victim.username, PASSWORD).status_code == 200  # the owner's home
    for attempt in range(6):
        assert token(f"198.51.100.{attempt + 1}", victim.username, "guess").status_code == 400

    assert_throttled(token("198.51.100.50", victim.username, PASSWORD), within=3600)
    assert token("192.0.2.1", victim.username, PASSWORD).status_code == 200
    assert token("198.51.100.50", bystander.username, PASSWORD).status_code == 200


def test_registrations_are_throttled_per_address(real_throttles):
    limit = limit_of(real_throttles, "register")
    client = from_address("203.0.113.20")
    # Refused attempts (a weak password) do not count: only accounts created do.
    for _ in range(3):
        weak = client.post(REGISTER, {"username": "weakling", "password": "123"}, format="json")
        assert weak.status_code == 400
        broken = client.post(REGISTER, "{", content_type="application/json")
        assert broken.status_code == 400
    for number in range(limit.count):
        created = client.post(
            REGISTER, {"username": f"farm{number}", "password": STRONG}, format="json"
        )
        assert created.status_code == 201

    refused = client.post(REGISTER, {"username": "farm-extra", "password": STRONG}, format="json")

    assert_throttled(refused, within=limit.seconds)
    assert not get_user_model().objects.filter(username="farm-extra").exists()
    elsewhere = from_address("203.0.113.21").post(
        REGISTER, {"username": "farm-extra", "password": STRONG}, format="json"
    )
    assert elsewhere.status_code == 201


def test_the_register_form_shares_the_limit(client, real_throttles):
    limit = limit_of(real_throttles, "register")
    api = APIClient(REMOTE_ADDR="127.0.0.1")
    for number in range(limit.count):
        api.post(REGISTER, {"username": f"api{number}", "password": STRONG}, format="json")

    page = client.post(
        REGISTER_PAGE, {"username": "formuser", "password1": STRONG, "password2": STRONG}
    )

    assert_throttled(page, within=limit.seconds)
    assert "Too many attempts. Try again in" in page.content.decode()
    assert not get_user_model().objects.filter(username="formuser").exists()


def test_api_requests_are_throttled_per_client(settings, real_throttles):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**real_throttles, "anon": "3/minute", "user": "4/minute"},
    }
    anon = from_address("203.0.113.30")
    for _ in range(3):
        assert anon.get(reverse("api-games")).status_code == 200
    assert_throttled(anon.get(reverse("api-games")), within=60)
    assert_throttled(anon.get(reverse("api-ratings-leaderboard")), within=60)

    signed_in = from_address("203.0.113.30")  # the same address, but counted as its user
    signed_in.force_authenticate(UserFactory())
    for _ in range(4):
        assert signed_in.get(reverse("api-games")).status_code == 200
    refused = signed_in.get(reverse("api-games"))
    assert_throttled(refused, within=60)
    assert refused.json()["error"]


@pytest.mark.requires_redis
def test_counts_live_in_redis_shared_by_every_server_process(settings, real_throttles):
    """With REDIS_URL the counts are in Redis (keys of this test's own prefix), so a second
    server process sees what the first counted."""
    import uuid

    from django.core.cache import caches

    from core.throttling import AUTH

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": django_settings.REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        }
    }
    limit = limit_of(real_throttles, "auth")
    for _ in range(limit.count):
        assert AUTH.hit("198.51.100.99") is None
    other_process = caches.create_connection("default")  # its own connections to Redis
    key, _left = AUTH._window(limit, "198.51.100.99")
    assert other_process.get(key) == limit.count
    assert AUTH.hit("198.51.100.99") is not None


def test_the_admin_login_shares_the_limit(client, real_throttles):
    limit = limit_of(real_throttles, "auth")
    for n in range(limit.count):
        page = client.post("/admin/login/", {"username": f"root{n}", "password": "nope"})
        assert page.status_code == 200

    refused = client.post("/admin/login/", {"username": "root", "password": "nope"})

    assert_throttled(refused, within=limit.seconds)
    assert "Too many attempts" in refused.content.decode()


class DownCache:
    """A cache whose server (Redis) is down: every call fails, as django's RedisCache does."""

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

        return fail


def test_throttles_let_requests_through_while_the_cache_is_down(real_throttles, monkeypatch):
    """Redis down must not turn every throttled request into a 500 (issue 9, item 3)."""
    from core import throttling

    monkeypatch.setattr(throttling, "cache", DownCache())
    UserFactory(username="ana")
    client = from_address("203.0.113.9")
    response = client.post(TOKEN, {"username": "ana", "password": PASSWORD}, format="json")
    assert response.status_code == 200


def test_an_identity_of_any_characters_makes_a_plain_cache_key():
    """A username can hold spaces, markup and any length: the key holds its digest instead."""
    from core.throttling import key_part

    assert key_part("127.0.0.1") == "127.0.0.1"
    assert key_part("ana|10.0.0.1") == "ana|10.0.0.1"
    odd = key_part('<script>alert(1)</script>" x' * 20)
    assert odd.startswith("h")
    assert len(odd) == 41
    assert odd.isalnum()
    assert key_part("a b") != key_part("a  b")
