"""``manage.py top_up_puzzles``: fill the puzzle pool now (at install), whatever the load."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from learn.services import puzzle_pool_top_up


class Command(BaseCommand):
    help = (
        "Top the puzzle pool up to SIESTA_PUZZLE_POOL waiting puzzles (from the site's analysed "
        "games, then bot games), as the periodic task does when the cores are idle, but now."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--games", type=int, default=200, help="Engine games at most (200, about 5 s each)."
        )
        parser.add_argument(
            "--target", type=int, default=None, help="Puzzles waiting (SIESTA_PUZZLE_POOL)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        target = options["target"] if options["target"] is not None else settings.SIESTA_PUZZLE_POOL
        done = puzzle_pool_top_up(target=target, games=options["games"])
        self.stdout.write(
            f"{done.created} puzzles added from {done.site_games} site games and "
            f"{done.bot_games} bot games; {done.waiting} waiting"
        )
