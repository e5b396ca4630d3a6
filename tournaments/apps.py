from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from games.selectors import private_viewers_provide
        from games.signals import game_finished
        from tournaments.receivers import game_finished_enqueue
        from tournaments.selectors import sees_private_game

        game_finished.connect(game_finished_enqueue, dispatch_uid="tournaments-game-finished")
        private_viewers_provide(sees_private_game)
