"""The bot results (a bot's result against each person of a finished game), and those of the
games finished before them, rebuilt from what ratings stored of each game."""

import django.db.models.deletion
from django.db import migrations, models


def rebuild(apps, schema_editor):
    # Only when there is something to read: the service uses today's models, which a fresh
    # database migrating from scratch may not have reached yet.
    if not apps.get_model("ratings", "RatedGame").objects.exists():
        return
    from ratings.services import bot_results_rebuild

    bot_results_rebuild()


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0002_replay_under_the_hint_rule'),
    ]

    operations = [
        migrations.CreateModel(
            name='BotResult',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('pool', models.CharField(choices=[('ffa', 'free-for-all'), ('teams', 'teams')], max_length=5)),
                ('level', models.CharField(choices=[('easy', 'easy'), ('medium', 'medium'), ('hard', 'hard'), ('expert', 'expert')], max_length=6)),
                ('bot_seat', models.PositiveSmallIntegerField()),
                ('against', models.PositiveSmallIntegerField(help_text="The person's seat (free-for-all) or the other team (teams).")),
                ('opponent_rating', models.FloatField(help_text="The person's rating when the game ended, before any change it made (teams: the mean of the other team's people's).")),
                ('score', models.FloatField(help_text="The bot's result: 1, 0.5 or 0.")),
                ('at', models.DateTimeField(help_text='When the game finished.')),
                ('rated_game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='bot_results', to='ratings.ratedgame')),
            ],
            options={
                'ordering': ['at', 'rated_game_id', 'bot_seat', 'against'],
                'indexes': [models.Index(fields=['pool', 'level'], name='botresult_pool_level_idx')],
                'constraints': [models.UniqueConstraint(fields=('rated_game', 'bot_seat', 'against'), name='botresult_one_per_duel')],
            },
        ),
        migrations.RunPython(rebuild, migrations.RunPython.noop),
    ]
