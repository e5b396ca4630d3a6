import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

REGISTER = reverse("api-register")
TOKEN = reverse("api-token")
STRONG = "a-long-siesta-secret-9"


def test_register_creates_a_user_and_returns_a_working_token(anon):
    response = anon.post(REGISTER, {"username": "carmen", "password": STRONG}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "carmen"
    user = get_user_model().objects.get(username="carmen")
    assert user.check_password(STRONG)
    assert Token.objects.get(user=user).key == body["token"]
    anon.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    created = anon.post(reverse("api-games"), {"players": 2}, format="json")
    assert created.status_code == 201
    assert created.json()["seats"][0]["username"] == "carmen"


@pytest.mark.parametrize("taken", ["carmen", "CARMEN"])
def test_register_refuses_a_taken_username(anon, taken):
    UserFactory(username="carmen")

    response = anon.post(REGISTER, {"username": taken, "password": STRONG}, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["username"] == ["A user with that username already exists."]
    assert body["error"].startswith("username: ")
    assert get_user_model().objects.filter(username__iexact="carmen").count() == 1


@pytest.mark.parametrize(
    ("password", "reason"),
    [("short1", "too short"), ("password123", "too common"), ("4815162342", "entirely numeric")],
)
def test_register_refuses_a_weak_password(anon, password, reason):
    response = anon.post(REGISTER, {"username": "dolores", "password": password}, format="json")

    assert response.status_code == 400
    assert any(reason in message for message in response.json()["password"])
    assert not get_user_model().objects.filter(username="dolores").exists()


def test_register_refuses_a_password_like_the_username(anon):
    response = anon.post(
        REGISTER, {"username": "siestalover", "password": "siestalover1"}, format="json"
    )

    assert response.status_code == 400
    assert "password" in response.json()


@pytest.mark.parametrize(
    "data",
    [{}, {"username": "x y!", "password": STRONG}, {"username": "", "password": STRONG}],
)
def test_register_refuses_missing_or_invalid_fields(anon, data):
    response = anon.post(REGISTER, data, format="json")

    assert response.status_code == 400
    assert response.json()["error"]
    assert get_user_model().objects.count() == 0


def test_token_for_good_credentials_is_the_users_token(anon):
    user = UserFactory(username="emilio")

    first = anon.post(TOKEN, {"username": "emilio", "password": PASSWORD}, format="json")
    again = anon.post(TOKEN, {"username": "emilio", "password": PASSWORD}, format="json")

    assert first.status_code == 200
    assert first.json() == {"token": Token.objects.get(user=user).key}
    assert again.json() == first.json()


@pytest.mark.parametrize(
    "data",
    [
        {"username": "emilio", "password": "wrong-password"},
        {"username": "nobody", "password": PASSWORD},
        {"username": "emilio"},
    ],
)
def test_token_refuses_bad_credentials(anon, data):
    UserFactory(username="emilio")

    response = anon.post(TOKEN, data, format="json")

    assert response.status_code == 400
    assert response.json()["error"]
    assert "token" not in response.json()


def test_token_refuses_an_inactive_user(anon):
    UserFactory(username="emilio", is_active=False)

    response = anon.post(TOKEN, {"username": "emilio", "password": PASSWORD}, format="json")

    assert response.status_code == 400


def test_auth_endpoints_answer_malformed_json_with_400(anon):
    response = anon.generic("POST", TOKEN, "{not json", content_type="application/json")

    assert response.status_code == 400
    assert "JSON" in response.json()["error"]


# -- passwords of spaces, case-insensitive usernames, logout, token rotation ------------------


@pytest.mark.parametrize("password", [" " * 10, "\t" * 12, " \u3000 " * 4])
def test_register_refuses_a_password_of_only_spaces(anon, password):
    response = anon.post(REGISTER, {"username": "blanca", "password": password}, format="json")

    assert response.status_code == 400
    assert response.json()["password"] == ["Your password cannot be only spaces."]
    assert not get_user_model().objects.filter(username="blanca").exists()


def test_usernames_differing_only_in_case_cannot_both_be_stored():
    """The database refuses it too, so two registrations racing past the form's check cannot
    both win."""
    from django.db import IntegrityError, transaction

    get_user_model().objects.create_user(username="Ana", password=STRONG)
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user(username="aNA", password=STRONG)


def test_logout_deletes_the_token(anon, user):
    key = anon.post(TOKEN, {"username": user.username, "password": PASSWORD}, format="json").json()[
        "token"
    ]
    anon.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert anon.post(reverse("api-logout")).status_code == 204

    assert not Token.objects.filter(key=key).exists()
    assert anon.post(reverse("api-games"), {"players": 2}, format="json").status_code == 401
    fresh = APIClient().post(
        TOKEN, {"username": user.username, "password": PASSWORD}, format="json"
    )
    assert fresh.json()["token"] != key


def test_logout_without_credentials_is_401(anon):
    assert anon.post(reverse("api-logout")).status_code == 401


def test_a_password_change_revokes_the_token(client, user):
    key = Token.objects.create(user=user).key
    client.force_login(user)
    new = "another-siesta-secret-7"

    page = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )

    assert page.status_code == 302
    assert not Token.objects.filter(key=key).exists()
    scripted = APIClient()
    scripted.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert scripted.post(reverse("api-games"), {"players": 2}, format="json").status_code == 401


def test_signing_in_or_saving_other_fields_keeps_the_token(client, user):
    key = Token.objects.create(user=user).key
    assert client.login(username=user.username, password=PASSWORD)  # writes last_login
    user.email = "new@example.com"
    user.save()
    user.set_password(PASSWORD)  # the same password, hashed anew: no change
    user.save()
    assert Token.objects.filter(key=key).exists()


@pytest.mark.requires_postgres
@pytest.mark.django_db(transaction=True)
def test_registrations_racing_with_names_differing_in_case_create_one_account():
    """Both requests pass the "name taken?" check before either inserts; the index refuses the
    second, which gets the same 400 as a name already taken (never a 500, never two accounts)."""
    import threading

    from django.db import connection

    rounds = 8
    for number in range(rounds):
        names = [f"Racer{number}", f"rACER{number}"]
        start = threading.Barrier(len(names))
        statuses: list[int] = []
        errors: list[BaseException] = []

        def register(name: str, start=start, statuses=statuses, errors=errors) -> None:
            try:
                start.wait(timeout=10)
                response = APIClient().post(
                    REGISTER, {"username": name, "password": STRONG}, format="json"
                )
                statuses.append(response.status_code)
            except BaseException as exc:  # surfaced below
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=register, args=(name,)) for name in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert not errors
        assert sorted(statuses) == [201, 400]
        users = get_user_model().objects.filter(username__iexact=names[0])
        assert users.count() == 1
