"""Replay every stored rating under the hint rule of RULES.md ("Hints, ratings"): a player who
asked for a hint is left out but the other people are still rated against them. Games stored
before the rule was fixed gave the hinter's opponents ``too_few_rated_players``; this is
``manage.py recompute_ratings --fix`` run once."""

from django.db import migrations, models


def replay(apps, schema_editor):
    # Only when there is something to replay: the service uses today's models, which a fresh
    # database migrating from scratch may not have reached yet.
    if not apps.get_model("ratings", "RatedGame").objects.exists():
        return
    from ratings.services import ratings_recompute

    ratings_recompute(fix=True)




class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ratedgame',
            name='reason',
            field=models.CharField(choices=[('rated', 'counted'), ('hint', 'not counted: asked for a hint'), ('casual', 'not counted: casual game'), ('too_few_rated_players', 'not counted: fewer than two people in the game'), ('aborted', 'not counted: the game ended before everyone had moved')], max_length=24),
        ),
        migrations.AlterField(
            model_name='ratingchange',
            name='reason',
            field=models.CharField(choices=[('rated', 'counted'), ('hint', 'not counted: asked for a hint'), ('casual', 'not counted: casual game'), ('too_few_rated_players', 'not counted: fewer than two people in the game'), ('aborted', 'not counted: the game ended before everyone had moved')], max_length=24),
        ),
        migrations.RunPython(replay, migrations.RunPython.noop),
    ]
