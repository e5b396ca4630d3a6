"""The reference bot of the docs (docs/examples/reference_bot.py) against a live site: two copies
of the script, each a subprocess signed in on its own, one challenging the other and the other
accepting, or both seeking; they play the game to its end over the game socket."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.authtoken.models import Token

from core import inprocess
from games.models import Game
from tests.factories import PASSWORD, UserFactory

BOT = Path(django_settings.BASE_DIR) / "docs" / "examples" / "reference_bot.py"
GAME_SECONDS = 240  # a whole game of exact searches on two shared cores, with room


@pytest.fixture
def live_site(live_server_url, settings, transactional_db) -> Iterator[str]:
    """The live site as under ``make run``: tasks in threads (drained before the test's data is
    emptied); no engine budget, since the bots ask the analysis for every turn of a whole game
    within a minute."""
    settings.SIESTA_TASKS_IN_THREADS = True
    settings.ALLOWED_HOSTS = ["*"]
    settings.SIESTA_ENGINE_BUDGET = 0
    yield live_server_url
    assert inprocess.drain(), "an in-process task outlived the test by two minutes"


def run_bot(site: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(BOT), "--site", site, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(bot: subprocess.Popen[str]) -> str:
    try:
        output, _ = bot.communicate(timeout=GAME_SECONDS)
    except subprocess.TimeoutExpired:
        bot.kill()
        output, _ = bot.communicate()
        raise AssertionError(f"the bot did not finish:\n{output}") from None
    assert bot.returncode == 0, output
    return output


def assert_one_finished_game(outputs: list[str]) -> Game:
    finished = [re.search(r"^finished (\d+) (\w+) scores", out, re.M) for out in outputs]
    assert all(finished), outputs
    game_ids = {int(match.group(1)) for match in finished if match}
    assert len(game_ids) == 1, outputs
    game = Game.objects.get(pk=game_ids.pop())
    assert game.status == "finished"
    assert {seat.user.username for seat in game.seats.all()} == {"ana", "bo"}
    assert game.turns.count() == game.ply > 2
    return game


def test_two_reference_bots_play_a_challenge_to_the_end(live_site):
    ana, bo = UserFactory(username="ana"), UserFactory(username="bo")
    ana_token = Token.objects.create(user=ana).key

    accepting = run_bot(live_site, "--token", ana_token, "--accept")
    # The other signs in with a password (POST /api/auth/token/), then challenges ana.
    challenging = run_bot(
        live_site, "--username", bo.username, "--password", PASSWORD, "--challenge", "ana"
    )
    outputs = [finish(accepting), finish(challenging)]

    assert_one_finished_game(outputs)
    assert "accepting challenge" in outputs[0]
    assert "signed in as bo" in outputs[1]


def test_two_reference_bots_seek_and_play_the_match_to_the_end(live_site):
    tokens = [Token.objects.create(user=UserFactory(username=name)).key for name in ("ana", "bo")]

    bots = [run_bot(live_site, "--token", token, "--seek") for token in tokens]
    outputs = [finish(bot) for bot in bots]

    assert_one_finished_game(outputs)
    assert all("seeking, seek" in output for output in outputs)
