"""Personal access tokens (issue 30, item 3): created with a name, scopes and an optional expiry,
the secret shown once; refused outside their scopes (403 naming the scope), expired or revoked
(401); listed and revoked on the account page and through the API; logging out of the site ends
the session, never a bot's token; ``GET /api/me/``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import PersonalAccessToken
from accounts.services import personal_token_create
from core.credentials import PERSONAL_TOKEN_PREFIX, secret_digest
from tests.factories import PASSWORD, UserFactory
from tests.games.factories import make_game
from tests.tournaments.factories import make_tournament

pytestmark = pytest.mark.django_db

TOKENS = reverse("api-tokens")
ME = reverse("api-me")
GAMES = reverse("api-games")


def new_token(user, scopes=("read", "play"), expires_at=None, name="my bot") -> str:
    return personal_token_create(user=user, name=name, scopes=scopes, expires_at=expires_at).secret


def by_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def by_session(user) -> APIClient:
    client = APIClient(enforce_csrf_checks=False)
    client.force_login(user)
    return client


# -- creation: the secret once ---------------------------------------------------------------------


def test_the_api_creates_a_token_and_shows_its_secret_once(user):
    owner = by_session(user)
    expires = timezone.now() + timedelta(days=7)

    created = owner.post(
        TOKENS,
        {"name": "ladder bot", "scopes": ["play", "read"], "expires_at": expires.isoformat()},
        format="json",
    )

    assert created.status_code == 201, created.json()
    body = created.json()
    secret = body["token"]
    assert secret.startswith(PERSONAL_TOKEN_PREFIX)
    assert len(secret) > 40
    assert body["name"] == "ladder bot"
    assert body["scopes"] == ["read", "play"]
    assert body["shown"] == secret[: len(PERSONAL_TOKEN_PREFIX) + 4]
    assert body["expired"] is False
    assert body["last_used_at"] is None
    stored = PersonalAccessToken.objects.get(pk=body["id"])
    assert stored.digest == secret_digest(secret)
    assert secret not in str(PersonalAccessToken.objects.filter(pk=stored.pk).values().get())
    listed = owner.get(TOKENS).json()
    assert [t["id"] for t in listed] == [body["id"]]
    assert "token" not in listed[0]
    assert secret not in str(listed)
    # The secret works at once, with the account's name.
    assert by_token(secret).get(ME).json()["username"] == user.username


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "", "scopes": ["read"]}, "name"),
        ({"name": "x" * 101, "scopes": ["read"]}, "name"),
        ({"name": "bot", "scopes": []}, "scopes"),
        ({"name": "bot", "scopes": ["admin"]}, "scopes"),
        ({"name": "bot", "scopes": ["read"], "expires_at": "2001-01-01T00:00:00Z"}, None),
    ],
)
def test_a_token_that_cannot_be_created_is_a_400(user, payload, field):
    response = by_session(user).post(TOKENS, payload, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["error"]
    if field:
        assert field in body
    assert not PersonalAccessToken.objects.exists()


def test_the_account_page_creates_a_token_and_shows_its_secret_once(client, user):
    client.force_login(user)

    response = client.post(
        reverse("account"), {"name": "my bot", "scopes": ["read"], "expires": "7"}
    )

    assert response.status_code == 302
    page = client.get(reverse("account")).content.decode()
    token = PersonalAccessToken.objects.get(user=user)
    secret = page.split('id="new-token-secret" class="token-secret" type="text" readonly value="')[
        1
    ].split('"')[0]
    assert secret_digest(secret) == token.digest
    assert "my bot" in page
    assert "Copy it now" in page
    assert token.scopes == ["read"]
    assert timedelta(days=6, hours=23) < token.expires_at - timezone.now() <= timedelta(days=7)
    again = client.get(reverse("account")).content.decode()
    assert secret not in again
    assert "my bot" in again
    assert token.shown in again


def test_the_account_page_is_translated_and_needs_a_sign_in(client, user):
    assert client.get(reverse("account")).status_code == 302
    client.force_login(user)
    page = client.get(reverse("account"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Tokens para bots y herramientas" in page


def test_the_account_page_refuses_a_token_without_scopes(client, user):
    client.force_login(user)

    response = client.post(reverse("account"), {"name": "bot", "expires": "never"})

    assert response.status_code == 400
    assert not PersonalAccessToken.objects.exists()


def test_a_user_has_at_most_twenty_tokens(user):
    for number in range(PersonalAccessToken.MAX_PER_USER):
        new_token(user, name=f"bot {number}")

    response = by_session(user).post(TOKENS, {"name": "one more", "scopes": ["read"]}, "json")

    assert response.status_code == 409
    assert response.json()["code"] == "conflict"


# -- scopes ----------------------------------------------------------------------------------------


def assert_missing_scope(response, scope: str) -> None:
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["code"] == f"missing_scope_{scope}"
    assert body["scope"] == scope
    assert body["error"] == f"This token does not have the {scope} scope."


def test_a_read_token_may_only_read(user):
    game = make_game(users=[user, UserFactory()])
    reader = by_token(new_token(user, scopes=["read"]))

    assert reader.get(GAMES).status_code == 200
    assert reader.get(reverse("api-game", args=[game.pk])).status_code == 200
    assert reader.get(reverse("api-seeks")).status_code == 200
    assert_missing_scope(reader.post(GAMES, {"players": 2}, format="json"), "play")
    assert_missing_scope(
        reader.post(
            reverse("api-game-moves", args=[game.pk]), {"move": "SA1 RB1 HC1", "ply": 0}, "json"
        ),
        "play",
    )
    assert_missing_scope(reader.post(reverse("api-game-resign", args=[game.pk])), "play")
    assert_missing_scope(reader.post(reverse("api-seeks"), {"players": 2}, "json"), "play")
    game.refresh_from_db()
    assert game.status == "active"
    assert game.turns.count() == 0


def test_a_play_token_plays_but_needs_read_to_read_and_tournaments_to_join(user):
    player = by_token(new_token(user, scopes=["play"]))
    tournament = make_tournament()

    created = player.post(GAMES, {"players": 2}, format="json")

    assert created.status_code == 201
    assert created.json()["seats"][0]["username"] == user.username
    assert_missing_scope(player.get(GAMES), "read")
    joining = player.post(reverse("api-tournament-join", args=[tournament.pk]))
    assert_missing_scope(joining, "tournaments")


def test_a_tournaments_token_joins_and_leaves_but_does_not_play(user):
    entrant = by_token(new_token(user, scopes=["tournaments"]))
    tournament = make_tournament()

    joined = entrant.post(reverse("api-tournament-join", args=[tournament.pk]))
    left = entrant.post(reverse("api-tournament-leave", args=[tournament.pk]))

    assert joined.status_code == 200
    assert left.status_code == 200
    assert_missing_scope(entrant.post(GAMES, {"players": 2}, format="json"), "play")


def test_a_personal_token_cannot_manage_tokens(user):
    bot = by_token(new_token(user, scopes=["read", "play", "tournaments"]))

    for response in (
        bot.get(TOKENS),
        bot.post(TOKENS, {"name": "wider", "scopes": ["read"]}, format="json"),
        bot.delete(reverse("api-token-detail", args=[1])),
    ):
        assert response.status_code == 403
        assert response.json()["code"] == "personal_token_not_allowed"
    assert PersonalAccessToken.objects.count() == 1


def test_the_account_token_keeps_every_scope(user):
    """API.md's token is untouched: same format, every call as before."""
    key = (
        APIClient()
        .post(
            reverse("api-token"), {"username": user.username, "password": PASSWORD}, format="json"
        )
        .json()["token"]
    )
    assert len(key) == 40
    assert not key.startswith(PERSONAL_TOKEN_PREFIX)
    account = by_token(key)

    assert account.post(GAMES, {"players": 2}, format="json").status_code == 201
    assert account.get(GAMES).status_code == 200
    created = account.post(TOKENS, {"name": "bot", "scopes": ["read"]}, format="json")
    assert created.status_code == 201


# -- expiry and revocation -------------------------------------------------------------------------


def test_an_expired_token_is_a_401_in_the_error_shape(user):
    secret = new_token(user, expires_at=timezone.now() + timedelta(minutes=5))
    assert by_token(secret).get(ME).status_code == 200
    PersonalAccessToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = by_token(secret).get(GAMES)

    assert response.status_code == 401
    assert response.json() == {"error": "This token has expired.", "code": "authentication_failed"}
    assert response["WWW-Authenticate"] == "Token"
    assert by_session(user).get(TOKENS).json()[0]["expired"] is True


def test_a_revoked_token_is_a_401_and_the_others_keep_working(user):
    revoked, kept = new_token(user, name="old bot"), new_token(user, name="new bot")
    owner = by_session(user)
    token_id = PersonalAccessToken.objects.get(name="old bot").pk

    assert owner.delete(reverse("api-token-detail", args=[token_id])).status_code == 204

    response = by_token(revoked).get(GAMES)
    assert response.status_code == 401
    assert response.json() == {"error": "Invalid token.", "code": "authentication_failed"}
    assert by_token(kept).get(GAMES).status_code == 200
    assert owner.delete(reverse("api-token-detail", args=[token_id])).status_code == 404


def test_nobody_revokes_another_users_token(user):
    secret = new_token(user)
    token_id = PersonalAccessToken.objects.get().pk

    response = by_session(UserFactory()).delete(reverse("api-token-detail", args=[token_id]))

    assert response.status_code == 404
    assert by_token(secret).get(GAMES).status_code == 200


def test_the_account_page_revokes_a_token(client, user):
    secret = new_token(user)
    client.force_login(user)

    response = client.post(
        reverse("token_revoke", args=[PersonalAccessToken.objects.get().pk]), follow=True
    )

    assert "The token is revoked" in response.content.decode()
    assert by_token(secret).get(GAMES).status_code == 401


def test_last_used_is_noted_at_most_once_a_minute(user, django_assert_num_queries):
    secret = new_token(user)
    by_token(secret).get(ME)
    first = PersonalAccessToken.objects.get().last_used_at
    assert first is not None

    by_token(secret).get(ME)

    assert PersonalAccessToken.objects.get().last_used_at == first


# -- logging out -----------------------------------------------------------------------------------


def test_logging_out_of_the_site_keeps_the_tokens_working(user):
    secret = new_token(user)
    account_key = Token.objects.create(user=user).key
    browser = Client()
    browser.force_login(user)

    assert browser.post(reverse("logout")).status_code == 302

    assert by_token(secret).get(GAMES).status_code == 200
    assert by_token(account_key).get(GAMES).status_code == 200


def test_the_api_logout_with_the_session_ends_the_session_only(user):
    secret = new_token(user)
    account_key = Token.objects.create(user=user).key
    browser = by_session(user)

    assert browser.post(reverse("api-logout")).status_code == 204

    assert browser.get(ME).status_code == 401  # signed out
    assert Token.objects.filter(key=account_key).exists()
    assert by_token(secret).get(GAMES).status_code == 200


def test_the_api_logout_with_a_token_ends_that_token_only(user):
    kept, ending = new_token(user, name="kept"), new_token(user, name="ending")
    account_key = Token.objects.create(user=user).key

    assert by_token(account_key).post(reverse("api-logout")).status_code == 204
    assert by_token(ending).post(reverse("api-logout")).status_code == 204

    assert not Token.objects.filter(key=account_key).exists()
    assert by_token(ending).get(GAMES).status_code == 401
    assert by_token(kept).get(GAMES).status_code == 200
    assert list(PersonalAccessToken.objects.values_list("name", flat=True)) == ["kept"]


def test_a_password_change_keeps_the_personal_tokens(client, user):
    secret = new_token(user)
    client.force_login(user)
    new = "another-siesta-secret-7"

    client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )

    assert by_token(secret).get(GAMES).status_code == 200


# -- GET /api/me/ ----------------------------------------------------------------------------------


def test_me_with_a_personal_token_names_its_scopes(user):
    body = by_token(new_token(user, scopes=["tournaments"])).get(ME).json()

    assert body["username"] == user.username
    assert body["auth"] == "personal_token"
    assert body["scopes"] == ["tournaments"]
    ratings = [(r["mode"], r["rating"]) for r in body["ratings"]]
    assert ratings == [("ffa", 1500.0), ("teams", 1500.0)]


def test_me_with_the_account_token_or_the_session(user):
    key = Token.objects.create(user=user).key

    by_account_token = by_token(key).get(ME).json()
    by_browser = by_session(user).get(ME).json()

    assert by_account_token["auth"] == "token"
    assert by_account_token["scopes"] == ["read", "play", "tournaments"]
    assert by_browser["auth"] == "session"
    assert by_browser["scopes"] is None
    assert by_browser["username"] == by_account_token["username"] == user.username


def test_me_without_credentials_is_a_401():
    response = APIClient().get(ME)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_an_id_past_the_database_range_is_a_404(user):
    response = by_session(user).delete("/api/tokens/99999999999999999999999/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
