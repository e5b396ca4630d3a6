"""``manage.py make_puzzles --games 40``: puzzles from bot-against-bot games (idempotent)."""

from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from learn import generate
from learn.models import Puzzle
from learn.puzzles import PuzzleCandidate
from learn.services import puzzle_create


class Command(BaseCommand):
    help = (
        "Play bot-against-bot games (fixed by their seeds), search them for puzzles and store "
        "the new ones. Running it again with the same seeds adds nothing."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--games", type=int, default=40, help="Games to play (40).")
        parser.add_argument("--seed", type=int, default=1, help="Seed of the first game (1).")
        parser.add_argument("--players", default="2,3", help="Player counts, used in turn (2,3).")
        parser.add_argument("--processes", type=int, default=2, help="Worker processes (2).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            players = [int(p) for p in options["players"].split(",")]
        except ValueError:
            raise CommandError("--players is a list like 2,3,4") from None
        if not players or any(p not in (2, 3, 4) for p in players):
            raise CommandError("--players takes 2, 3 or 4")
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        started = time.perf_counter()
        games = generate.bot_games(options["games"], options["seed"], players)
        # Games that already gave puzzles need not be played again (the keys would find nothing
        # new anyway); a game that gave none is played again, harmlessly.
        done = set(
            Puzzle.objects.filter(source_label__in=[g.label for g in games]).values_list(
                "source_label", flat=True
            )
        )
        todo = [game for game in games if game.label not in done]
        if options["processes"] > 1:
            connections.close_all()  # forked workers must not share the parent's connection

        def progress(done: int, total: int) -> None:
            if options["verbosity"] > 1 or done == total or done % 25 == 0:
                self.stderr.write(f"{done}/{total} games")

        found = created = 0
        for game, record, candidates in generate.run(todo, options["processes"], progress):
            for data in candidates:
                found += 1
                _puzzle, made = puzzle_create(
                    candidate=PuzzleCandidate(**data),
                    source_record=record,
                    source_label=game.label,
                )
                created += made
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"{len(todo)} games played ({len(games) - len(todo)} already searched), "
            f"{found} puzzle positions, {created} new puzzles in {seconds:.0f} s"
        )
