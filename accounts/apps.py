from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Accounts: registration, the sign-in pages, password change, the account's API token and
    the personal access tokens of bots and tools (``accounts.models``).

    Users are Django's own (``auth_user``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
        from django.db.models.signals import post_save, pre_save

        from accounts.receivers import (
            close_sockets_on_logout,
            note_password_change,
            revoke_tokens_on_password_change,
        )
        from accounts.services import personal_token_grant
        from core.credentials import personal_tokens_provide
        from core.throttling import record_logged_in, record_login_failure

        # How the API and the sockets check a personal access token (core/credentials.py).
        personal_tokens_provide(personal_token_grant)

        # Failed sign-ins (login form, API token, anything calling authenticate()) are counted per
        # username and address, delaying that pair (core/throttling.py); a sign-in ends
        # the pair's delay and makes its address known.
        user_login_failed.connect(record_login_failure, dispatch_uid="siesta-login-failures")
        user_logged_in.connect(record_logged_in, dispatch_uid="siesta-login-known")
        # A changed password revokes the user's API token.
        user_model = get_user_model()
        pre_save.connect(note_password_change, sender=user_model, dispatch_uid="siesta-pw-note")
        post_save.connect(
            revoke_tokens_on_password_change, sender=user_model, dispatch_uid="siesta-pw-revoke"
        )
        # A logout closes the sockets of that session (core/sockets.py).
        user_logged_out.connect(close_sockets_on_logout, dispatch_uid="siesta-logout-sockets")
