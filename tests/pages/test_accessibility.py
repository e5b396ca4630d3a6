"""The server-rendered side of accessibility (docs/accessibility.md): a skip link to ``main`` on
every page, and every ``aria-describedby`` pointing at an element of the page, form errors tied
to their fields (the browser side: tests/browser/test_accessibility.py)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


class Ids(HTMLParser):
    """Every id of a page and every element's aria-describedby and aria-invalid."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.described: list[tuple[str, str, bool]] = []  # (tag#id, described by, invalid)
        self.text_of: dict[str, list[str]] = {}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
            self.text_of[found["id"] or ""] = []
            self._open.append(found["id"] or "")
        if found.get("aria-describedby"):
            where = f"{tag}#{found.get('id') or found.get('name')}"
            invalid = found.get("aria-invalid") == "true"
            self.described.append((where, found["aria-describedby"] or "", invalid))

    def handle_data(self, data: str) -> None:
        for opened in self._open:
            self.text_of[opened].append(data)


def parsed(response) -> Ids:
    assert response.status_code == 200
    page = Ids()
    page.feed(response.content.decode())
    return page


def assert_descriptions_resolve(page: Ids) -> None:
    missing = [
        f"{where} → {ref}"
        for where, refs, _ in page.described
        for ref in refs.split()
        if ref not in page.ids
    ]
    assert not missing, "aria-describedby names no element: " + ", ".join(missing)


@pytest.mark.parametrize("path", ["/", "/play/", "/rules/", "/accounts/login/", "/leaderboard/"])
def test_every_page_starts_with_a_skip_link_to_main(client, path):
    html = client.get(path).content.decode()
    assert html.index('class="skip-link" href="#content"') < html.index("<header")
    assert '<main class="container" id="content" tabindex="-1">' in html


@pytest.mark.parametrize(
    "path", ["/play/", "/tournaments/new/", "/accounts/register/", "/accounts/login/"]
)
def test_every_description_of_a_form_names_an_element(client, path):
    client.force_login(UserFactory())
    assert_descriptions_resolve(parsed(client.get(path)))


def test_a_refused_registration_ties_each_error_to_its_field(client):
    response = client.post(
        "/accounts/register/",
        {"username": "carmen", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    page = parsed(response)
    assert_descriptions_resolve(page)
    invalid = [(where, refs) for where, refs, is_invalid in page.described if is_invalid]
    assert invalid, "no field is marked aria-invalid"
    where, refs = invalid[0]
    assert where == "input#id_password2"
    assert "id_password2_error" in refs.split()
    assert "not the same" in "".join(page.text_of["id_password2_error"])


def test_a_refused_game_form_ties_the_error_to_its_field(client):
    client.force_login(UserFactory())
    response = client.post("/play/", {"players": "9"})
    page = parsed(response)
    assert_descriptions_resolve(page)
    assert any(is_invalid for _, _, is_invalid in page.described)


@pytest.mark.parametrize("language", ["en", "es", "de", "it", "fr"])
def test_the_help_for_playing_without_sight_has_the_keys_and_the_commands(client, language):
    from django.utils import translation

    with translation.override(language):
        html = client.get("/rules/without-sight/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        title = translation.gettext("Playing without sight")
        keys = translation.gettext("Playing by keyboard and screen reader")
    assert html.count("<h1") == 1
    assert f"<h1>{title}</h1>" in html
    assert keys in html
    for command in ("help", "score", "last 5", "row 5", "cell F5", "SF5 RF6 HF7", "confirm"):
        assert f"<code>{command}</code>" in html
    if language != "en":
        assert title != "Playing without sight"  # translated


def test_the_game_page_links_the_help_under_the_board(client):
    from tests.games.factories import make_game

    player = UserFactory()
    game = make_game(users=[player, UserFactory()])
    client.force_login(player)
    html = client.get(f"/games/{game.pk}/").content.decode()
    board_end = html.index('id="board"')
    link = html.index('href="/rules/without-sight/"')
    assert link > board_end
    assert "Playing without sight: keys and commands" in html
