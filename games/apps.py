from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_login_failed
        from django.db.models.signals import post_save, pre_save

        from games import tasks  # noqa: F401 - registers the tasks that games.enqueue names
        from games.api.auth import note_password_change, revoke_tokens_on_password_change
        from siesta_site.throttling import record_login_failure

        # Failed sign-ins (login form, API token, anything calling authenticate()) are counted per
        # username, to lock out distributed guessing (siesta_site/throttling.py).
        user_login_failed.connect(record_login_failure, dispatch_uid="siesta-login-failures")
        # A changed password revokes the user's API token.
        user_model = get_user_model()
        pre_save.connect(note_password_change, sender=user_model, dispatch_uid="siesta-pw-note")
        post_save.connect(
            revoke_tokens_on_password_change, sender=user_model, dispatch_uid="siesta-pw-revoke"
        )
