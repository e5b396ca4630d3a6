from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from games.signals import game_finished
        from ratings.receivers import rate_finished_game

        game_finished.connect(rate_finished_game, dispatch_uid="ratings.rate_finished_game")
