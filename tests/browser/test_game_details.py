"""The game page's smaller promises in a real browser: every score above the board on a phone
in a 4-player game, a hint's move leaving the text box with its turn, the hint's warning only
where a rating is at stake, the lobby's start button naming the bots, and the password reset
reached from the sign-in page."""

from __future__ import annotations

import re

from django.core import mail
from playwright.sync_api import expect

from games import services
from games.engine.search import best_turn
from games.selectors import game_get, position_of
from tests.browser.conftest import DESKTOP, PASSWORD, PHONE, off_the_loop
from tests.browser.helpers import cell, play_turn_by_clicking, quick_turn, start_bot_game
from tests.factories import UserFactory
from tests.games.factories import make_game


def _four_player_game(player, turns: int):
    users = [player, *(UserFactory(username=f"player{seat}") for seat in (2, 3, 4))]
    game = make_game(players=4, users=users)
    for _ in range(turns):
        game = game_get(game.pk)
        move = best_turn(position_of(game)).turn
        user = users[game.to_move - 1]
        services.game_move_make(game_id=game.pk, user=user, move=str(move), ply=game.ply)
    return game_get(game.pk)


def test_a_four_player_game_shows_every_score_above_the_board_on_a_phone(pages, player, screenshot):
    game = off_the_loop(_four_player_game, player, 5)
    page = pages.open(player, viewport=PHONE)
    page.goto(f"/games/{game.pk}/")
    strip = page.get_by_role("list", name="Scores")
    expect(strip).to_be_visible()
    chips = strip.get_by_role("listitem")
    expect(chips).to_have_count(4)
    for seat in game.seats.order_by("seat"):
        expect(chips.nth(seat.seat - 1)).to_contain_text(f"{seat.user.username}")
        expect(chips.nth(seat.seat - 1).locator(".score-chip-score")).to_have_text(
            re.compile(rf"\b{seat.score}$")
        )
    expect(chips.nth(game.to_move - 1)).to_have_class(re.compile("is-to-move"))
    strip_box = strip.bounding_box()
    board_box = page.get_by_role("grid").bounding_box()
    assert strip_box["y"] + strip_box["height"] <= board_box["y"]  # above the board
    assert strip_box["y"] >= 0
    assert strip_box["x"] + strip_box["width"] <= PHONE["width"]
    screenshot(page, "game-4-players-phone")
    # On a wide screen the seat panels stand beside the board: no strip.
    page.set_viewport_size(DESKTOP)
    expect(strip).to_be_hidden()
    expect(page.locator("#seat-panels .seat-panel")).to_have_count(4)


def test_a_hint_leaves_the_text_box_once_its_turn_is_played(page):
    game = start_bot_game(page)  # casual: nothing to lose by a hint
    box = page.locator("#notation-input")
    page.get_by_role("button", name="Hint").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("The engine shows you the turn that scores the most")
    expect(dialog).not_to_contain_text("rating")
    dialog.get_by_role("button", name="Show me a hint").click()
    expect(box).not_to_have_value("")
    # Another turn is played by clicking: the hint's move goes with the turn.
    play_turn_by_clicking(page, quick_turn(game))
    expect(box).to_have_value("")
    expect(page.locator("#game-status")).to_have_text("Your turn", timeout=30_000)
    expect(box).to_have_value("")
    expect(page.locator("#play-message")).to_contain_text(re.compile(r"scored \d+ points?\."))


def test_the_hint_warns_about_the_rating_in_a_rated_game(pages, player):
    bob = UserFactory(username="bob")
    game = off_the_loop(lambda: make_game(users=[player, bob], rated=True))
    page = pages.open(player)
    page.goto(f"/games/{game.pk}/")
    expect(cell(page, "F6")).to_be_visible()
    page.get_by_role("button", name="Hint").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("This game will then not count for your rating.")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()


def test_the_start_button_names_the_bots(pages, player):
    page = pages.open(player, viewport=PHONE)
    page.goto("/play/")
    start = page.locator("#start-button")
    expect(start).to_have_text("Start game against Bot (medium)")
    page.locator(".more-options summary").click()
    page.get_by_label("Players").select_option("3")
    expect(start).to_have_text("Start game against 2 × Bot (medium)")
    page.get_by_label("Player 3").select_option("hard")
    expect(start).to_have_text("Start game against Bot (medium), Bot (hard)")
    page.get_by_label("Players").select_option("2")
    page.get_by_label("Player 2").select_option("expert")
    expect(start).to_have_text("Start game against Bot (expert)")
    page.get_by_label("Players").select_option("3")
    start.click()
    page.wait_for_url(re.compile(r"/games/\d+/$"))
    expect(page.get_by_role("list", name="Scores").get_by_role("listitem")).to_have_count(3)


def _confirmed_address(user, address: str) -> None:
    from social.services.preferences import preferences_update

    user.email = address
    user.save(update_fields=["email"])
    preferences_update(user=user, email_confirmed=address)


def test_the_forgot_password_link_leads_to_a_new_password(pages, player, screenshot):
    off_the_loop(_confirmed_address, player, "alice@example.com")
    page = pages.open(viewport=PHONE, language="fr")
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Mot de passe oublié").click()
    expect(page.get_by_role("heading", name="Mot de passe oublié")).to_be_visible()
    screenshot(page, "password-reset-phone-fr")
    page.locator("#id_email").fill("alice@example.com")
    page.get_by_role("button", name="M’envoyer le lien").click()
    expect(page.get_by_role("heading", name="Consultez vos e-mails")).to_be_visible()
    [sent] = mail.outbox
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+)", sent.body)
    assert link is not None, sent.body
    page.goto(link.group(1))
    new_password = PASSWORD + "-new"
    page.locator("#id_new_password1").fill(new_password)
    page.locator("#id_new_password2").fill(new_password)
    page.get_by_role("button", name="Enregistrer le mot de passe").click()
    expect(page.get_by_role("heading", name="Mot de passe modifié")).to_be_visible()
    page.locator("main").get_by_role("link", name="Se connecter").click()
    page.locator("#id_username").fill(player.username)
    page.locator("#id_password").fill(new_password)
    page.locator("main").get_by_role("button", name="Se connecter").click()
    page.get_by_role("button", name="Menu").click()
    expect(page.get_by_role("link", name=player.username)).to_be_visible()
