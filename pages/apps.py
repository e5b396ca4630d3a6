from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The pages that are not game play: home, the rules with their worked examples. Depends on
    games' engine; nothing imports pages."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "pages"
    verbose_name = "Pages"
