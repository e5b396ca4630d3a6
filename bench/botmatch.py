"""``python -m bench.botmatch --games 200 --players 2 hard medium``: bot-against-bot matches.

A thin wrapper over ``bench.bots_bench`` (which also runs as ``python -m bench.bots_bench``) with
progress on stderr."""

from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bench import bots_bench, run_command
from games.bots import LEVELS


class Command(BaseCommand):
    help = (
        "Play bot-against-bot games (the first level named against the others) in parallel "
        "processes; print its win rate with a 95% confidence interval and the think times."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        bots_bench.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            hard = bots_bench.hard_options(options["hard"])
            expert = bots_bench.expert_options(options["expert"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        unknown = [level for level in options["levels"] if level not in LEVELS]
        if unknown or not options["levels"]:
            raise CommandError(f"name the measured level, then the others, of {', '.join(LEVELS)}")
        started = time.perf_counter()

        def progress(done: int, total: int) -> None:
            if options["verbosity"] > 1 or done == total or done % 10 == 0:
                self.stderr.write(f"{done}/{total} games")

        summary = bots_bench.run(
            options["games"],
            options["players"],
            options["levels"],
            processes=options["processes"],
            seed=options["seed"],
            variant=options["variant"],
            hard=hard,
            expert=expert,
            opening=options["opening"],
            progress=progress,
        )
        for line in summary.lines(options["players"]):
            self.stdout.write(line)
        self.stdout.write(f"{options['games']} games in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    run_command(Command, "bench.botmatch")
