from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from games.signals import game_finished
        from tournaments.receivers import game_finished_enqueue

        game_finished.connect(game_finished_enqueue, dispatch_uid="tournaments-game-finished")
