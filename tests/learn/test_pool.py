"""The puzzle pool (top-up up to a target, spread over difficulty, bounded per run), themes kept
until a result, and the learn pages' refusals in the reader's language."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import translation
from rest_framework.test import APIClient

from learn import selectors, services, tasks
from learn.models import PoolGame, Puzzle
from learn.tasks import puzzle_pool_top_up
from tests.learn.test_puzzles import _small_puzzle


@pytest.mark.django_db
def test_the_top_up_creates_puzzles_up_to_the_target_and_stops():
    first = services.puzzle_pool_top_up(target=6, games=2)
    assert first.bot_games >= 1
    assert first.created > 0
    assert Puzzle.objects.count() == first.created == first.waiting
    assert PoolGame.objects.count() == first.bot_games  # each seed played once
    if first.waiting < 6:  # not there yet: the next run goes on from the next seed
        second = services.puzzle_pool_top_up(target=6, games=2)
        assert second.bot_games >= 1
        assert PoolGame.objects.count() == first.bot_games + second.bot_games
    assert sum(selectors.pool_waiting().values()) >= 6
    played = PoolGame.objects.count()
    stopped = services.puzzle_pool_top_up(target=6, games=2)
    assert (stopped.bot_games, stopped.site_games, stopped.created) == (0, 0, 0)
    assert PoolGame.objects.count() == played


@pytest.mark.django_db
def test_no_band_holds_more_than_half_the_target():
    for _ in range(3):
        services.puzzle_pool_top_up(target=8, games=1)
    waiting = selectors.pool_waiting()
    assert max(waiting.values()) <= 4
    assert sum(1 for n in waiting.values() if n) >= 2


@pytest.mark.django_db
@override_settings(
    SIESTA_PUZZLE_POOL=1, SIESTA_PUZZLE_POOL_GAMES=1, SIESTA_PUZZLE_POOL_MAX_LOAD=1e9
)
def test_the_periodic_task_keeps_the_pool_and_a_tried_puzzle_leaves_it():
    assert puzzle_pool_top_up() > 0
    assert puzzle_pool_top_up() == 0  # the target is met: no game is played
    Puzzle.objects.update(attempts=1)  # every puzzle tried: none is waiting
    assert selectors.pool_waiting() == {"easy": 0, "medium": 0, "hard": 0}
    assert puzzle_pool_top_up() > 0


@pytest.mark.django_db
@pytest.mark.parametrize("busy", [-1.0, 0.0])
def test_the_periodic_task_plays_no_game_unless_the_cores_are_idle(settings, busy):
    """Any load average is at least 0: below 0 is never (the install command fills the pool)."""
    settings.SIESTA_PUZZLE_POOL = 1
    settings.SIESTA_PUZZLE_POOL_MAX_LOAD = busy
    assert tasks.cores_idle() is False
    assert puzzle_pool_top_up() == 0
    assert not PoolGame.objects.exists()


@pytest.mark.django_db
def test_the_install_command_fills_the_pool_whatever_the_load(settings):
    settings.SIESTA_PUZZLE_POOL_MAX_LOAD = -1.0
    out = io.StringIO()
    call_command("top_up_puzzles", target=2, games=3, stdout=out)
    assert sum(selectors.pool_waiting().values()) >= 2
    assert "waiting" in out.getvalue()


@pytest.mark.django_db
def test_themes_are_shown_only_after_a_result(client):
    """The client keeps its session: the give-up makes the page's next showing practice."""
    puzzle = _small_puzzle()
    Puzzle.objects.filter(pk=puzzle.pk).update(themes=",crossing,")
    page = client.get(f"/puzzles/{puzzle.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert 'class="badge badge-theme"' not in page.content.decode()
    wrong = client.post(
        f"/api/puzzles/{puzzle.pk}/attempts/",
        {"move": "HE1 HF1 HG1"},
        content_type="application/json",
    )
    assert wrong.json()["themes"] is None
    answer = client.post(f"/api/puzzles/{puzzle.pk}/give-up/")
    assert answer.json()["themes"] == ["Crossing"]
    again = client.get(f"/puzzles/{puzzle.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert 'class="badge badge-theme">Crossing' in again.content.decode()


@pytest.mark.django_db
def test_a_refused_puzzle_turn_is_in_the_readers_language():
    puzzle = _small_puzzle()
    api = APIClient()
    answer = api.post(
        f"/api/puzzles/{puzzle.pk}/attempts/",
        {"move": "SA5 RB3 HC3"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert answer.status_code == 400
    body = answer.json()
    assert (body["cell"], body["code"]) == ("A5", "not_adjacent")
    with translation.override("it"):
        assert body["error"] == translation.gettext(
            "%(cell)s is not next to any piece on the board"
        ) % {"cell": "A5"}
    assert "is not next to" not in body["error"]


@pytest.mark.django_db
def test_a_refused_analysis_turn_is_in_the_readers_language():
    api = APIClient()
    answer = api.post(
        "/api/analysis/turn/",
        {"position": {"board": ["S1#"]}, "move": "SA5"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert answer.status_code == 400
    body = answer.json()
    assert (body["cell"], body["code"]) == ("A5", "not_adjacent")
    assert "is not next to" not in body["error"]
    line = api.post(
        "/api/analysis/line/",
        {"record": {"players": 2, "variant": "standard", "moves": ["SF5 RF6 HF7", "SA1"]}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="it",
    )
    error = line.json()["error"]
    assert error["turn"] == 1
    assert error["code"]
    assert error["message"]
    assert "params" not in error


@pytest.mark.django_db
def test_the_puzzle_list_filters_by_theme_and_difficulty_and_keeps_the_answers(client):
    from tests.factories import UserFactory

    crossing = _small_puzzle()
    Puzzle.objects.filter(pk=crossing.pk).update(themes=",crossing,", difficulty=2)
    other = Puzzle.objects.create(
        **{
            f.name: getattr(crossing, f.name)
            for f in Puzzle._meta.concrete_fields
            if f.name not in ("id", "key", "themes", "difficulty")
        },
        key="another",
        themes=",blocking,",
        difficulty=4,
    )
    page = client.get("/puzzles/list/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"/puzzles/{crossing.pk}/" in page
    assert f"/puzzles/{other.pk}/" in page
    assert crossing.solution not in page
    by_theme = client.get("/puzzles/list/?theme=crossing").content.decode()
    assert f"/puzzles/{crossing.pk}/?theme=crossing" in by_theme
    assert f"/puzzles/{other.pk}/" not in by_theme
    by_difficulty = client.get("/puzzles/list/?difficulty=4").content.decode()
    assert f"/puzzles/{other.pk}/" in by_difficulty
    assert f"/puzzles/{crossing.pk}/" not in by_difficulty
    assert client.get("/puzzles/list/?difficulty=9&theme=nope&page=x").status_code == 200
    user = UserFactory()
    services.puzzle_attempt_make(puzzle_id=crossing.pk, move=crossing.solution, user=user)
    client.force_login(user)
    mine = client.get("/puzzles/list/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert mine.count("✓ solved") == 1
