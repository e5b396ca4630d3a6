from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    """Playing together: quick pairing, rematches, chat, challenges, presence and notices.

    Depends on ``games`` (and reads ``ratings``, hears ``tournaments``' rounds); neither imports
    it."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "social"
    verbose_name = _("Playing together")

    def ready(self) -> None:
        from games.signals import game_changed
        from social import tasks  # noqa: F401 - registers the periodic matcher for the beat
        from social.receivers import (
            game_changed_notify,
            player_withdrawn_notify,
            round_started_notify,
        )
        from tournaments.signals import player_withdrawn, round_started

        game_changed.connect(game_changed_notify, dispatch_uid="social.game_changed_notify")
        round_started.connect(round_started_notify, dispatch_uid="social.round_started_notify")
        player_withdrawn.connect(
            player_withdrawn_notify, dispatch_uid="social.player_withdrawn_notify"
        )
