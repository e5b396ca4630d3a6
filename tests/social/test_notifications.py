"""Notices: your turn in slow games (a day or more per turn), challenges; the unread count in the
header; e-mails through Django's e-mail framework (locmem here) with an unsubscribe link."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from rest_framework.test import APIClient

from games import services as game_services
from social.emails import unsubscribe_user_id
from social.models import Notification
from social.services.challenges import challenge_create
from social.services.notices import notification_text, unread_count
from social.services.preferences import preferences_of, preferences_update
from tests.factories import UserFactory
from tests.games.factories import make_game
from tests.tournaments.factories import make_tournament
from tests.tournaments.helpers import committed, finish, round_games, start
from tournaments import services as tournament_services
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db

FIRST_MOVE = "SA1 RB1 HC1"


@pytest.fixture(autouse=True)
def _locmem_email(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SIESTA_SITE_URL = "https://siesta.example"


def slow_game(ana, bo, **options):
    return make_game(users=[ana, bo], turn_seconds=86400, **options)


def test_your_turn_notice_in_slow_games_only(django_capture_on_commit_callbacks):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    with django_capture_on_commit_callbacks(execute=True):
        game = slow_game(ana, bo)
        fast = make_game(users=[ana, bo], turn_seconds=120)
    first = Notification.objects.get(user=ana)
    assert (first.kind, first.params, first.url) == (
        "your_turn",
        {"game": game.pk},
        f"/games/{game.pk}/",
    )
    assert notification_text(first.kind, first.params) == f"Your turn in game {game.pk}."

    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_move_make(game_id=game.pk, user=ana, move=FIRST_MOVE, ply=0)
        game_services.game_move_make(game_id=fast.pk, user=ana, move=FIRST_MOVE, ply=0)
    # bo's turn now: a notice for bo; ana's notice is read (her turn has passed).
    assert list(Notification.objects.filter(user=bo).values_list("params", flat=True)) == [
        {"game": game.pk}
    ]
    first.refresh_from_db()
    assert first.read_at is not None
    assert unread_count(bo.pk) == 1
    assert unread_count(ana.pk) == 0


def test_unread_count_in_the_header_and_the_list(client, django_capture_on_commit_callbacks):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    with django_capture_on_commit_callbacks(execute=True):
        game = slow_game(ana, bo)
    client.force_login(ana)
    page = client.get("/").content.decode()
    assert re.search(r'id="notice-count">1<', page)
    listing = client.get("/notifications/").content.decode()
    assert f"Your turn in game {game.pk}." in listing
    assert "is-unread" in listing
    # Seen: read now.
    assert unread_count(ana.pk) == 0
    assert re.search(r'id="notice-count" hidden>0<', client.get("/").content.decode())


def test_a_page_counts_the_unread_notices_once(client, django_capture_on_commit_callbacks):
    """The header names the count in several places (badge, menu, phone badge): one query."""
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    with django_capture_on_commit_callbacks(execute=True):
        slow_game(ana, bo)
    client.force_login(ana)
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/rules/").content.decode()
    assert re.search(r'id="notice-count">1<', page)
    table = Notification._meta.db_table
    counts = [
        q["sql"] for q in queries.captured_queries if "COUNT" in q["sql"] and table in q["sql"]
    ]
    assert len(counts) == 1, counts


def test_notification_api(django_capture_on_commit_callbacks):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    with django_capture_on_commit_callbacks(execute=True):
        game = slow_game(ana, bo)
    client = APIClient()
    client.force_authenticate(ana)
    listing = client.get("/api/notifications/").json()
    assert listing["unread"] == 1
    assert listing["results"][0]["text"] == f"Your turn in game {game.pk}."
    assert client.post("/api/notifications/read/", {}, format="json").json() == {"unread": 0}


def test_emails_only_when_asked_for_with_an_unsubscribe_link(
    client, django_capture_on_commit_callbacks
):
    ana, bo = UserFactory(username="ana", email="ana@example.com"), UserFactory(username="bo")
    with django_capture_on_commit_callbacks(execute=True):
        slow_game(bo, ana)  # bo moves first: no e-mail for anyone yet
        challenge_create(challenger=bo, username="ana")
    assert mail.outbox == []

    preferences_update(
        user=ana,
        email_turns=True,
        email_challenges=True,
        language="es",
        email_confirmed="ana@example.com",
    )
    with django_capture_on_commit_callbacks(execute=True):
        game = slow_game(ana, bo)
    [turn] = mail.outbox
    assert turn.to == ["ana@example.com"]
    assert turn.subject == f"Siesta: Tu turno en la partida {game.pk}."
    assert f"https://siesta.example/games/{game.pk}/" in turn.body
    # The token is signed with the time in seconds: read it from the mail, and check it is ana's.
    found = re.search(r"https://siesta\.example/notifications/unsubscribe/([^/\s]+)/", turn.body)
    assert found is not None
    link = found.group(0)
    assert unsubscribe_user_id(found.group(1)) == ana.pk
    assert turn.extra_headers["List-Unsubscribe"] == f"<{link}>"

    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=UserFactory(username="cy"), username="ana")
    assert len(mail.outbox) == 2
    assert "cy" in mail.outbox[1].subject

    # The link: a page with a button, then no more e-mails.
    path = link.removeprefix("https://siesta.example")
    assert "Stop" in client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert client.post(path).status_code == 200
    preferences = preferences_of(ana.pk)
    assert not preferences.email_turns
    assert not preferences.email_challenges
    with django_capture_on_commit_callbacks(execute=True):
        slow_game(ana, UserFactory())
    assert len(mail.outbox) == 2
    assert client.get("/notifications/unsubscribe/forged/").status_code == 404


def test_an_email_goes_out_once(django_capture_on_commit_callbacks):
    from social.tasks import email_notification

    ana = UserFactory(email="ana@example.com")
    preferences_update(user=ana, email_challenges=True, email_confirmed=ana.email)
    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=UserFactory(), username=ana.username)
    notice = Notification.objects.get(user=ana)
    assert len(mail.outbox) == 1
    assert email_notification(notice.pk) is False  # a repeated task sends nothing
    assert len(mail.outbox) == 1


def test_preferences_page(client):
    ana = UserFactory(email="")
    client.force_login(ana)
    refused = client.post("/notifications/preferences/", {"email_turns": "on", "email": ""})
    assert refused.status_code == 200
    assert "errorlist" in refused.content.decode()
    saved = client.post(
        "/notifications/preferences/",
        {"email_turns": "on", "email": "ana@example.com", "chat_muted": "on"},
    )
    assert saved.status_code == 302
    ana.refresh_from_db()
    preferences = preferences_of(ana.pk)
    assert ana.email == "ana@example.com"
    assert (preferences.email_turns, preferences.email_challenges, preferences.chat_muted) == (
        True,
        False,
        True,
    )


def test_each_round_of_a_tournament_is_announced_to_its_players():
    tournament = start(make_tournament(players=3, name="Siesta cup"))
    seats = dict(
        Pairing.objects.filter(tournament=tournament, round__number=1).values_list(
            "player__user_id", "game_id"
        )
    )
    notices = Notification.objects.filter(kind=Notification.Kind.TOURNAMENT_ROUND)
    assert sorted(notices.values_list("user_id", flat=True)) == sorted(seats)
    for notice in notices:
        game_id = seats[notice.user_id]
        expected = f"/games/{game_id}/" if game_id else f"/tournaments/{tournament.pk}/"
        assert notice.url == expected
        assert notification_text(notice.kind, notice.params) == ("Siesta cup: round 1 starts.")
    # Playing round 1 out pairs round 2: announced once more, and round 1 never twice.
    for game in round_games(tournament, 1):
        finish(game)
    committed(tournament_services.tournament_advance, tournament_id=tournament.pk)
    rounds = sorted(notices.values_list("params__round", flat=True))
    assert rounds.count(1) == 3
    assert rounds.count(2) == 3


def test_an_arena_game_is_announced_as_the_next_game_not_a_round():
    arena = start(
        make_tournament(
            players=2,
            name="Night arena",
            format="arena",
            rounds=None,
            duration_minutes=60,
            starts_in=timedelta(0),
        )
    )
    notices = Notification.objects.filter(kind=Notification.Kind.TOURNAMENT_ROUND)
    assert notices.count() == 2
    for notice in notices:
        assert notice.params["arena"] is True
        assert (
            notification_text(notice.kind, notice.params) == "Night arena: your next game starts."
        )
        with translation.override("de"):
            text = notification_text(notice.kind, notice.params)
        assert text == "Night arena: dein nächstes Spiel beginnt."
    assert arena.current_round == 1


def test_an_expired_unsubscribe_link_asks_to_confirm_instead_of_acting(
    client, settings, monkeypatch
):
    """A link older than SIESTA_UNSUBSCRIBE_DAYS no longer unsubscribes by itself (a one-click
    POST of it changes nothing); its page asks, and that form's answer works, once."""
    import time

    from django.core import signing

    from social.emails import unsubscribe_token

    settings.SIESTA_UNSUBSCRIBE_DAYS = 30
    ana = UserFactory(username="ana")
    preferences_update(user=ana, email_turns=True, email_challenges=True)
    now = time.time
    with monkeypatch.context() as then:  # a link mailed 31 days ago
        then.setattr(signing.time, "time", lambda: now() - 31 * 86400)
        path = f"/notifications/unsubscribe/{unsubscribe_token(ana.pk)}/"

    one_click = client.post(path)
    assert one_click.status_code == 200
    assert preferences_of(ana.pk).email_turns
    page = client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This link is more than 30 days old." in page
    found = re.search(r'name="confirm" value="([^"]+)"', page)
    assert found is not None

    done = client.post(path, {"confirm": found.group(1)})
    assert "Done: ana gets no more e-mails" in done.content.decode()
    preferences = preferences_of(ana.pk)
    assert not preferences.email_turns
    assert not preferences.email_challenges
    # The proof works once; another person's proof does not unsubscribe ana.
    preferences_update(user=ana, email_turns=True)
    again = client.post(path, {"confirm": found.group(1)})
    assert "This link is more than 30 days old." in again.content.decode()
    assert preferences_of(ana.pk).email_turns
    from social.emails import unsubscribe_confirm_token

    client.post(path, {"confirm": unsubscribe_confirm_token(UserFactory().pk)})
    assert preferences_of(ana.pk).email_turns


def test_a_link_within_its_days_unsubscribes_on_one_click(client, settings):
    from social.emails import unsubscribe_token

    settings.SIESTA_UNSUBSCRIBE_DAYS = 30
    ana = UserFactory(username="ana")
    preferences_update(user=ana, email_turns=True)
    path = f"/notifications/unsubscribe/{unsubscribe_token(ana.pk)}/"
    assert "more than" not in client.get(path).content.decode()
    assert client.post(path).status_code == 200
    assert not preferences_of(ana.pk).email_turns


def test_no_notice_is_mailed_to_an_unconfirmed_address(django_capture_on_commit_callbacks):
    ana = UserFactory(username="ana", email="ana@example.com")
    preferences_update(user=ana, email_turns=True, email_challenges=True)
    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=UserFactory(), username="ana")
        slow_game(ana, UserFactory())
    assert mail.outbox == []
    # Confirmed once, then changed elsewhere (the admin): unconfirmed again.
    preferences_update(user=ana, email_confirmed="ana@example.com")
    ana.email = "someone@else.example"
    ana.save()
    with django_capture_on_commit_callbacks(execute=True):
        challenge_create(challenger=UserFactory(), username="ana")
    assert mail.outbox == []


def test_mails_to_one_address_are_capped_per_hour(
    real_throttles, django_capture_on_commit_callbacks
):
    from core.throttling import Rate

    limit = Rate.parse(real_throttles["mail_address"])
    assert limit is not None
    ana = UserFactory(username="ana", email="ana@example.com")
    preferences_update(user=ana, email_challenges=True, email_confirmed=ana.email)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(limit.count + 3):
            challenge_create(challenger=UserFactory(), username="ana")
    assert len(mail.outbox) == limit.count
    # The notices themselves are all on the site.
    assert Notification.objects.filter(user=ana, kind="challenge").count() == limit.count + 3


def test_a_scheduled_tournaments_round_notice_and_its_mail_name_it_in_the_readers_language(
    client,
):
    """The notice keeps the stored name and the key; the site and the e-mail show the name as
    the tournament page does, in the reader's language (never the stored English)."""
    from social.emails import notification_email_send

    tournament = start(
        make_tournament(players=2, name="Hourly quick Swiss", name_key="hourly_quick_swiss")
    )
    notice = Notification.objects.filter(kind=Notification.Kind.TOURNAMENT_ROUND).first()
    assert notice is not None
    assert notice.params["tournament_key"] == "hourly_quick_swiss"
    reader = notice.user
    reader.email = "reader@example.com"
    reader.save()
    preferences_update(user=reader, language="de", email_confirmed=reader.email)

    assert notification_email_send(notice)
    [message] = mail.outbox
    assert message.subject == "Siesta: Schnelles Schweizer System, stündlich: Runde 1 beginnt."
    assert "Schnelles Schweizer System, stündlich: Runde 1 beginnt." in message.body
    assert "Hourly quick Swiss" not in message.subject + message.body

    api = APIClient()
    api.force_authenticate(reader)
    [listed] = api.get("/api/notifications/", HTTP_ACCEPT_LANGUAGE="es").json()["results"]
    assert listed["text"] == "Suizo rápido horario: empieza la ronda 1."
    client.force_login(reader)
    page = client.get("/notifications/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "Svizzero rapido orario" in page
    assert tournament.name == "Hourly quick Swiss"  # the stored name is unchanged


def test_a_tournament_without_a_key_is_named_as_written_in_every_language():
    start(make_tournament(players=2, name="Copa de Ana"))
    notice = Notification.objects.filter(kind=Notification.Kind.TOURNAMENT_ROUND).first()
    assert notice is not None
    with translation.override("fr"):
        assert notification_text(notice.kind, notice.params).startswith("Copa de Ana\u00a0:")
