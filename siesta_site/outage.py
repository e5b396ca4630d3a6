"""A database that does not answer is an outage, not a bug: 503 with ``Retry-After``.

A view (or the template it renders) that cannot reach the database raises Django's
``OperationalError`` or ``InterfaceError`` (the pool timing out, the server refusing or gone).
Left alone that is a 500 with a traceback at ERROR, per request. Here it is:

- under ``/api/``: 503 ``{"error": "...", "code": "unavailable"}`` (the API's error shape);
- elsewhere: a plain 503 page (``siesta_site.handlers.plain_error``, no template, no database);
- ``Retry-After: SIESTA_DB_RETRY_AFTER`` (10 s) on both;
- one line at WARNING (logger ``siesta_site.outage``): the path and the error's class and message,
  no traceback. Django's own line for a 5xx (``django.request``, at ERROR) is not written for it.

``/health/`` reports the outage itself (``down``, 503). The last middleware of ``MIDDLEWARE``, so
its ``process_exception`` is asked first.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _

from siesta_site.handlers import error_response

logger = logging.getLogger(__name__)


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached (Django's wrappers, or the driver's own
    classes when raised outside them)."""
    driver = getattr(connection, "Database", None)
    kinds: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
    if driver is not None:
        kinds += (driver.OperationalError, driver.InterfaceError)
    return isinstance(exc, kinds)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """The 503 of an outage: the API's JSON error or a plain page, with ``Retry-After``."""
    response = error_response(
        request,
        503,
        _("The site is briefly unavailable. Please try again in a moment."),
        "unavailable",
    )
    response["Retry-After"] = str(settings.SIESTA_DB_RETRY_AFTER)
    # Logged below at WARNING: an outage is not a bug. Django skips its own ERROR line for a
    # response marked as logged (django.utils.log.log_response).
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


class DatabaseOutageMiddleware(MiddlewareMixin):
    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not database_unavailable(exception):
            return None
        logger.warning(
            "database unavailable: %s %s answered 503 (%s: %s)",
            request.method,
            request.path,
            type(exception).__name__,
            str(exception).strip().splitlines()[0] if str(exception).strip() else "",
        )
        return unavailable_response(request)
