from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from games.selectors import seat_ratings_provide, user_ratings_provide
        from games.signals import game_finished
        from ratings.receivers import rate_finished_game
        from ratings.selectors import game_seat_ratings, ratings_of

        game_finished.connect(rate_finished_game, dispatch_uid="ratings.rate_finished_game")
        seat_ratings_provide(game_seat_ratings)
        user_ratings_provide(ratings_of)
