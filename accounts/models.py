"""Personal access tokens: one per bot or tool, each with its own scopes and expiry.

The account's API token of API.md (DRF's ``Token``) stays as it was: every scope, no expiry. A
personal token is stored as the SHA-256 of its secret (``core.credentials.secret_digest``);
the secret itself is shown once, when it is created.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.credentials import SCOPES


class PersonalAccessToken(models.Model):
    MAX_PER_USER = 20
    NAME_MAX_LENGTH = 100

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="personal_tokens"
    )
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    """``secret_digest`` of the whole key (prefix included)."""
    shown = models.CharField(max_length=24)
    """The key's first characters, to tell tokens apart in the list (``siesta_pat_AbCd``)."""
    scopes = models.JSONField(default=list)
    """A subset of ``core.credentials.SCOPES``, in that order."""
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.shown}…)"

    def expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    @property
    def scope_list(self) -> list[str]:
        return [scope for scope in SCOPES if scope in self.scopes]
