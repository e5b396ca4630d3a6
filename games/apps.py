from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from django.core.signals import request_started

        from games.tasks import start_inprocess_beat

        # Without a broker, the first request a server answers starts the periodic tasks in its
        # process (turn timeouts, bot re-enqueue); see games/tasks.py.
        request_started.connect(start_inprocess_beat, dispatch_uid="games-inprocess-beat")
