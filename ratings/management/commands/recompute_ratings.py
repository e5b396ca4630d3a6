"""``manage.py recompute_ratings [--fix]``: replay every rated game from 1500 and compare."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

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
        counts = {
            "games": report.games,
            "counted": report.counted_games,
            "differences": len(report.differences),
        }
        if not report.differences:
            message = _(
                "Replayed %(games)s games (%(counted)s counted): %(differences)s differences; "
                "stored ratings match."
            )
            self.stdout.write(self.style.SUCCESS(message % counts))
        elif fix:
            message = _(
                "Replayed %(games)s games (%(counted)s counted): %(differences)s differences, "
                "fixed."
            )
            self.stdout.write(self.style.WARNING(message % counts))
        else:
            message = _(
                "Replayed %(games)s games (%(counted)s counted): %(differences)s differences; "
                "run with --fix to repair."
            )
            self.stdout.write(self.style.ERROR(message % counts))
