from django.apps import AppConfig


class LearnConfig(AppConfig):
    """The analysis board and the puzzles. Depends on games (its engine, models, selectors and
    analysis); games never imports learn."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "learn"
    verbose_name = "Learn"

    def ready(self) -> None:
        from learn import tasks  # noqa: F401  (registers the periodic task with Celery)
