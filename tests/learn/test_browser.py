"""The analysis board and a puzzle in a real browser (Playwright + Chromium) against a live server:
what the page shows is the engine's exact answer. Skipped without Playwright or Chromium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from games.engine import Turn
from games.engine.record import GameRecord
from games.engine.study import top_turns, turn_reach
from learn import board
from tests.learn.helpers import recorded

playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="needs Chromium"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def page(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # Sync Playwright keeps an event loop in this thread; the test's own database calls are
    # still synchronous (the documented way to use Playwright with Django).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.base = live_server.url
        yield tab
        browser.close()
        assert errors == []


def test_the_board_shows_the_engines_best_turns_and_reach(page: Any) -> None:
    record = recorded(seed=2, turns=6)
    pos = GameRecord.from_json(record).start()
    for move in record["moves"]:
        pos.play(move)
    page.goto(f"{page.base}/analysis/?r={board.encode_record(record)}&ply=6")
    page.wait_for_selector("#line-list li")
    page.select_option("#best-count", "3")
    page.click("#best-button")
    page.wait_for_selector("#best-list li")
    buttons = page.query_selector_all("#best-list li button.move-text")
    shown = [button.inner_text() for button in buttons]
    assert shown == [str(turn) for _points, turn in top_turns(pos, 3)]
    # Build the first placement of the best turn by clicking: so far and reachable are exact.
    first = Turn.parse(shown[0]).placements[0]
    page.click(f'#play-picker [data-piece="{first.piece.value}"]')
    page.click(f'.cell[data-cell="{str(first)[1:]}"]')
    reach = turn_reach(pos, Turn((first,)))
    seat = pos.to_move
    assert seat is not None
    expected = f"So far: {reach.points[seat - 1]} · At most {reach.reachable} with this start"
    page.wait_for_function(
        "(text) => document.getElementById('reach').textContent === text", arg=expected
    )
    # Play the best turn from the list: the line grows by one and the position moves on.
    page.click("#best-list li button.button-small")
    page.wait_for_selector("#line-list li:nth-child(7)")
    assert "7" in page.inner_text("#analysis-position")


def test_an_impossible_setup_is_refused_with_its_cell_outlined(page: Any) -> None:
    page.goto(f"{page.base}/analysis/")
    page.wait_for_selector("#analysis-seats li")
    page.click("#setup-box summary")
    page.click('#setup-picker [data-char="S"]')
    page.click('.cell[data-cell="E5"]')
    page.click('#setup-picker [data-char="#"]')
    page.click('.cell[data-cell="F5"]')
    page.click("#setup-use")
    page.wait_for_selector('.cell[data-cell="E5"].cell-error')
    assert "E5" in page.inner_text("#setup-error")


def test_a_puzzle_solved_in_the_browser(page: Any) -> None:
    from tests.learn.test_puzzles import _small_puzzle

    puzzle = _small_puzzle()
    page.goto(f"{page.base}/puzzles/{puzzle.pk}/")
    for placement in Turn.parse(puzzle.solution).placements:
        page.click(f'#puzzle-picker [data-piece="{placement.piece.value}"]')
        page.click(f'.cell[data-cell="{str(placement)[1:]}"]')
        page.wait_for_function(
            "(text) => document.getElementById('pending-move').textContent.includes(text)",
            arg=str(placement),
        )
    page.wait_for_selector("#submit-button:not([disabled])")
    page.click("#submit-button")
    page.wait_for_selector("#puzzle-result:not([hidden])")
    result = page.inner_text("#result-line")
    assert f"You found {puzzle.best_points} points of {puzzle.best_points}." in result
    page.click("#solution-button")
    assert puzzle.solution in page.inner_text("#solution-text")


def _play(page: Any, move: str) -> None:
    for placement in Turn.parse(move).placements:
        page.click(f'#puzzle-picker [data-piece="{placement.piece.value}"]')
        page.click(f'.cell[data-cell="{str(placement)[1:]}"]')
        page.wait_for_function(
            "(text) => document.getElementById('pending-move').textContent.includes(text)",
            arg=str(placement),
        )
    page.wait_for_selector("#submit-button:not([disabled])")
    page.click("#submit-button")


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (375, 800)])
def test_a_wrong_turn_hides_the_answer_until_asked_for(page: Any, width: int, height: int) -> None:
    from tests.learn.test_puzzles import WRONG, _small_puzzle

    puzzle = _small_puzzle()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{page.base}/puzzles/{puzzle.pk}/")
    _play(page, WRONG)
    page.wait_for_function(
        "() => document.getElementById('puzzle-message').textContent.includes('try again')"
    )
    assert page.is_hidden("#puzzle-result")
    assert puzzle.solution not in page.content()

    page.click("#give-up-button")

    page.wait_for_selector("#puzzle-result:not([hidden])")
    assert "the most is 7 points" in page.inner_text("#result-line")
    assert page.is_visible("#solution-text")
    assert puzzle.solution in page.inner_text("#solution-text")
    assert page.is_hidden("#give-up-button")
    assert page.is_visible("#next-button")


def test_a_puzzle_solved_on_a_phone(page: Any) -> None:
    """At 375×800 the board spans the screen without overflowing it and Submit is on the first
    screen, in Italian too; the themes appear only with the result."""
    from learn.models import Puzzle
    from tests.learn.test_puzzles import _small_puzzle

    puzzle = _small_puzzle()
    Puzzle.objects.filter(pk=puzzle.pk).update(themes=",crossing,")
    page.set_viewport_size({"width": 375, "height": 800})
    page.context.add_cookies([{"name": "django_language", "value": "it", "url": page.base}])
    page.goto(f"{page.base}/puzzles/{puzzle.pk}/")
    sizes = page.evaluate(
        """() => ({
          page: document.documentElement.scrollWidth,
          board: document.getElementById('puzzle-board').getBoundingClientRect().right,
          submit: document.getElementById('submit-button').getBoundingClientRect().bottom,
        })"""
    )
    assert sizes["page"] <= 375, sizes
    assert sizes["board"] <= 375, sizes
    assert sizes["submit"] <= 800, sizes
    assert page.locator("#result-themes").is_hidden()
    page.screenshot(path="screenshots/puzzle-phone-it.png")
    _play(page, puzzle.solution)
    page.wait_for_selector("#puzzle-result:not([hidden])")
    assert page.locator("#result-themes").is_visible()
    page.screenshot(path="screenshots/puzzle-phone-it-solved.png", full_page=True)


@pytest.mark.parametrize(("width", "height", "language"), [(1366, 900, "en"), (375, 800, "de")])
def test_a_best_turn_puzzle_fits_a_phone_and_its_answer_keeps_to_its_kind(
    page: Any, width: int, height: int, language: str
) -> None:
    """The kind's label wraps within a 375 px phone; the answer is the expert's best turn, not
    "the most points", and the source says where it came from in the reader's words."""
    from learn.models import Puzzle
    from tests.learn.test_puzzles import _small_puzzle

    puzzle = _small_puzzle()
    Puzzle.objects.filter(pk=puzzle.pk).update(
        kind=Puzzle.Kind.BEST_TURN, solution_value=3.0, source_label="bots easy-easy-medium, seed 7"
    )
    page.set_viewport_size({"width": width, "height": height})
    page.context.add_cookies([{"name": "django_language", "value": language, "url": page.base}])
    page.goto(f"{page.base}/puzzles/{puzzle.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    badge = page.locator(".badge-kind").bounding_box()
    assert badge["x"] + badge["width"] <= width, badge
    page.screenshot(path=f"screenshots/puzzle-best-turn-{width}-{language}.png")
    page.click("#give-up-button")
    page.wait_for_selector("#puzzle-result:not([hidden])")
    line = page.inner_text("#result-line")
    source = page.inner_text("#source-label")
    page.screenshot(path=f"screenshots/puzzle-best-turn-{width}-{language}-answer.png")
    assert "seed" not in source
    assert "bots easy" not in source
    if language == "en":
        assert "the most is" not in line
        assert line.startswith("The answer: the expert's best turn, which scores 7 points now")
        assert source == "From a game between bots, turn 1"
    else:
        assert "The answer" not in line, line
        assert "meisten Punkte" not in line, line
        assert source.startswith("Aus einem Spiel"), source
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (375, 800)])
def test_the_puzzle_list_filters_by_kind_within_the_screen(
    page: Any, width: int, height: int
) -> None:
    from learn.models import Puzzle
    from tests.learn.test_puzzles import _small_puzzle

    puzzle = _small_puzzle()
    Puzzle.objects.filter(pk=puzzle.pk).update(kind=Puzzle.Kind.BEST_TURN, solution_value=3.0)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{page.base}/puzzles/")
    page.screenshot(path=f"screenshots/puzzles-home-{width}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.goto(f"{page.base}/puzzles/list/")
    page.select_option("select[name=kind]", "best_turn")
    page.click(".puzzle-filters button[type=submit]")
    page.wait_for_url("**kind=best_turn**")
    assert "Best turn" in page.inner_text(".puzzle-list tbody")
    page.screenshot(path=f"screenshots/puzzle-list-kind-{width}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
