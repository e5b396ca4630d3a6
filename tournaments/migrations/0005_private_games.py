"""The games of invitation-only tournaments become private (``Game.private``), as the services
make every new one."""

from django.db import migrations


def private_games(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Pairing = apps.get_model("tournaments", "Pairing")
    games = Pairing.objects.filter(tournament__visibility="invite", game__isnull=False)
    Game.objects.filter(pk__in=games.values("game_id")).update(private=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_game_private"),
        ("tournaments", "0004_arena"),
    ]

    operations = [migrations.RunPython(private_games, migrations.RunPython.noop)]
