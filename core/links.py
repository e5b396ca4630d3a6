"""Links the site mails (address confirmation, password reset, notices, unsubscribe): all built
from one configured origin, ``SIESTA_SITE_URL``, never from a request (whose ``Host`` header the
sender chooses). Production refuses to start without it (siesta_site/settings.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def site_origin() -> str:
    """``scheme://host[:port]`` of the site, without a trailing slash."""
    return str(settings.SIESTA_SITE_URL).rstrip("/")


def absolute(path: str) -> str:
    """The site's own ``path`` (``/...``) as a full link."""
    return site_origin() + path


def site_domain() -> tuple[str, bool]:
    """``(host[:port], https)`` of the origin, for Django's password reset form."""
    parts = urlsplit(site_origin())
    return parts.netloc, parts.scheme == "https"
