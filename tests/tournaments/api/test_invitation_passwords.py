"""Invitation passwords cannot be guessed without limit: failures are counted per (tournament,
address), per (tournament, user), per tournament and per address (core/throttling.py), and a
caller over a limit is refused with 429, ``Retry-After`` and the JSON error shape before the
password is hashed; the invited are not locked out by someone else's guesses."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import hashers
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.tournaments.api.test_views import url
from tests.tournaments.factories import make_tournament
from tournaments.models import Tournament, TournamentPlayer

pytestmark = pytest.mark.django_db

PASSWORD = "open sesame"


class Clock:
    """The throttles' clock, moved by the test (no sleeping)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("core.throttling.time", clock)
    return clock


@pytest.fixture
def rates(real_throttles, settings):
    """Small limits: 3 free failures a pair, 6 a tournament, 20 an address, an hour each."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **real_throttles,
            "tournament_password": "3/hour",
            "tournament_password_all": "6/hour",
            "tournament_password_address": "20/hour",
        },
    }


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """Each password the services check (the costly hash), recorded."""
    checked: list[str] = []

    def check_password(password: str, encoded: str) -> bool:
        checked.append(password)
        return hashers.check_password(password, encoded)

    monkeypatch.setattr("tournaments.services.check_password", check_password)
    return checked


@pytest.fixture
def invitation() -> Tournament:
    return make_tournament(name="Closed doors", visibility="invite", password=PASSWORD)


def _join(tournament: Tournament, user: Any, address: str, password: str) -> Any:
    client = APIClient(REMOTE_ADDR=address)
    client.force_authenticate(user)
    body = {"invite": tournament.invite_token, "password": password}
    return client.post(url(tournament.pk, "join"), body, format="json")


def _refused(response: Any) -> None:
    assert response.status_code == 429, response.content
    assert int(response["Retry-After"]) >= 1
    body = response.json()
    assert body["code"] == "too_many"
    assert body["error"].startswith("Too many attempts.")


@pytest.mark.usefixtures("rates")
def test_past_the_free_failures_a_guess_is_refused_before_hashing(invitation, clock, hashes):
    guesser = UserFactory()
    for guess in ("a", "b", "c", "d"):
        assert _join(invitation, guesser, "192.0.2.1", guess).status_code == 403
    assert len(hashes) == 4

    _refused(_join(invitation, guesser, "192.0.2.1", "e"))
    _refused(_join(invitation, guesser, "192.0.2.1", PASSWORD))  # right or wrong: not tried
    assert len(hashes) == 4
    clock.now += 1.5  # the first delay (1 s) is over: one more try, then 2 s
    assert _join(invitation, guesser, "192.0.2.1", "f").status_code == 403
    _refused(_join(invitation, guesser, "192.0.2.1", "g"))
    assert len(hashes) == 5


@pytest.mark.usefixtures("rates")
def test_the_guesser_moving_address_stays_refused_and_the_invited_get_in(invitation, clock, hashes):
    guesser, invited = UserFactory(), UserFactory()
    for guess in ("a", "b", "c", "d"):
        _join(invitation, guesser, "192.0.2.1", guess)
    _refused(_join(invitation, guesser, "192.0.2.99", "e"))  # the (tournament, user) pair

    joined = _join(invitation, invited, "192.0.2.2", PASSWORD)

    assert joined.status_code == 200, joined.content
    assert TournamentPlayer.objects.filter(tournament=invitation, user=invited).exists()


@pytest.mark.usefixtures("rates")
def test_once_the_tournament_ceiling_is_reached_only_newcomers_are_tried(invitation, hashes):
    guessers = [UserFactory() for _ in range(6)]
    for number, guesser in enumerate(guessers):
        assert _join(invitation, guesser, f"192.0.2.{number}", "wrong").status_code == 403

    _refused(_join(invitation, guessers[0], "192.0.2.0", "again"))  # failed before: refused
    assert len(hashes) == 6
    newcomer = UserFactory()
    assert _join(invitation, newcomer, "198.51.100.1", "wrong").status_code == 403  # tried once
    _refused(_join(invitation, newcomer, "198.51.100.1", PASSWORD))
    invited = UserFactory()
    assert _join(invitation, invited, "198.51.100.2", PASSWORD).status_code == 200
    assert len(hashes) == 8


@pytest.mark.usefixtures("rates")
def test_an_address_that_got_in_is_spared_the_ceiling(invitation, hashes):
    first, second = UserFactory(), UserFactory()
    assert _join(invitation, first, "203.0.113.5", PASSWORD).status_code == 200
    for number in range(6):
        _join(invitation, UserFactory(), f"192.0.2.{number}", "wrong")
    assert _join(invitation, second, "203.0.113.5", "typo").status_code == 403

    joined = _join(invitation, second, "203.0.113.5", PASSWORD)  # known: the ceiling spares it

    assert joined.status_code == 200, joined.content
    _refused(_join(invitation, UserFactory(), "192.0.2.0", "wrong"))  # that address is not known


@pytest.mark.usefixtures("rates")
def test_the_page_form_says_to_wait(invitation, clock, hashes):
    guesser = UserFactory()
    for guess in ("a", "b", "c", "d"):
        _join(invitation, guesser, "192.0.2.1", guess)
    client = APIClient(REMOTE_ADDR="192.0.2.1")
    client.force_login(guesser)
    page = f"/tournaments/{invitation.pk}/join/"
    answer = client.post(page, {"invite": invitation.invite_token, "password": "e"}, follow=True)
    assert b"Too many attempts." in answer.content
    assert len(hashes) == 4


def test_a_stranger_without_the_link_gets_404_and_no_hash(invitation, hashes):
    client = APIClient()
    client.force_authenticate(UserFactory())
    for body in ({"password": PASSWORD}, {"invite": "not-it", "password": PASSWORD}):
        answer = client.post(url(invitation.pk, "join"), body, format="json")
        assert answer.status_code == 404
        assert answer.json() == {
            "error": f"There is no tournament {invitation.pk}.",
            "code": "not_found",
        }
    assert hashes == []
