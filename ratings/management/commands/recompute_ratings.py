"""``manage.py recompute_ratings [--fix]``: replay every rated game from 1500 and compare."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings.services import ratings_recompute


class Command(BaseCommand):
    help = (
        "Replay every rated game in order (finish time, then game id) from 1500 and report any "
        "stored rating or history entry that differs. With --fix, write the replayed values."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--fix", action="store_true", help="Write the replayed values over the stored ones."
        )

    def handle(self, *args: Any, fix: bool = False, **options: Any) -> None:
        report = ratings_recompute(fix=fix)
        for difference in report.differences:
            self.stdout.write(str(difference))
        summary = (
            f"Replayed {report.games} games ({report.counted_games} counted): "
            f"{len(report.differences)} differences"
        )
        if not report.differences:
            self.stdout.write(self.style.SUCCESS(f"{summary}; stored ratings match."))
        elif fix:
            self.stdout.write(self.style.WARNING(f"{summary}, fixed."))
        else:
            self.stdout.write(self.style.ERROR(f"{summary}; run with --fix to repair."))
