"""Two people in two browsers: an invite, live moves, the move list and the tab title."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from games.models import Game
from tests.browser.helpers import cell, moves_listed, play_turn_by_clicking, quick_turn
from tests.factories import UserFactory


def test_two_people_see_each_others_moves_live(pages, player, screenshot):
    alice = pages.open(player)
    bob = pages.open(UserFactory(username="bob"))

    bob.goto("/play/")  # before the game exists: his lobby must show it without a reload
    alice.goto("/play/")
    alice.get_by_role("button", name="Play a person").click()
    alice.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.latest("id")
    assert game.status == Game.Status.OPEN
    invite = alice.get_by_role("textbox", name="Invite link").input_value()
    assert invite.endswith(f"/games/{game.pk}/")
    expect(alice.get_by_role("button", name="Cancel game")).to_be_visible()
    expect(alice.locator("#clock-box")).to_be_hidden()  # no "–:––" clock while waiting
    screenshot(alice, "open-game-desktop")

    # Bob sees the open game in his lobby without reloading it.
    expect(bob.get_by_role("button", name=f"Join game {game.pk}")).to_be_visible(timeout=12_000)
    bob.goto(invite)
    bob.get_by_role("button", name="Join this game").click()
    expect(bob.locator("#game-status")).to_have_text("alice is to move.")
    expect(alice.locator("#game-status")).to_have_text("Your turn")
    expect(alice).to_have_title(re.compile(r"^\(Your turn\) "))
    expect(bob).not_to_have_title(re.compile(r"Your turn"))

    game.refresh_from_db()
    first = quick_turn(game)
    play_turn_by_clicking(alice, first)
    expect(moves_listed(bob)).to_have_count(1)
    expect(moves_listed(bob).first).to_contain_text(str(first))
    placed = str(first).split()[0][1:]
    expect(cell(bob, placed)).not_to_have_attribute("aria-label", f"{placed}: empty")
    expect(bob.locator("#game-status")).to_have_text("Your turn")
    expect(bob).to_have_title(re.compile(r"^\(Your turn\) "))
    expect(alice.locator("#game-status")).to_have_text("bob is to move.")
    expect(alice).not_to_have_title(re.compile(r"Your turn"))
    expect(alice.locator("#clock-label")).to_have_text("Time left for bob")

    game.refresh_from_db()
    second = quick_turn(game)
    play_turn_by_clicking(bob, second)
    expect(moves_listed(alice)).to_have_count(2)
    # Every turn since alice's last one is outlined in its player's colour.
    bobs_cell = str(second).split()[0][1:]
    expect(cell(alice, bobs_cell)).to_have_class(re.compile(r"cell-recent seat-2"))
    expect(alice.locator("#game-status")).to_have_text("Your turn")
    screenshot(alice, "two-people-desktop")


def test_the_creator_cancels_an_open_game(pages, player):
    page = pages.open(player)
    page.goto("/play/")
    page.get_by_role("button", name="Play a person").click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    page.get_by_role("button", name="Cancel game").click()
    page.wait_for_url(re.compile(r"/play/$"))
    game = Game.objects.get()
    assert game.status == Game.Status.CANCELLED
    # It left the lobby: the open games list no longer offers it.
    expect(page.locator(f'a[href="/games/{game.pk}/"]')).to_have_count(0)
