"""Refuse hostile request input before anything reads it (docs/reliability.md).

One middleware, before the sessions are loaded and before CSRF reads the form:

- a NUL character (``\\x00``, ``%00``) in the path, the query string, a cookie, a header or a
  page's form field is a 400: PostgreSQL text cannot hold one (psycopg raises ``DataError``, a
  500), and no address, name or value of this site ever contains one. JSON bodies (the API takes
  no other) are checked where they are parsed (``core.safejson``), socket frames where
  their text is validated;
- a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413, and a form Django refuses to parse
  (too many fields, a broken multipart body) a 400. Django raises ``RequestDataTooBig`` (and its
  kin) lazily, wherever ``request.POST`` is first read, and answers those with a 400 page and an
  ERROR log; here the form is read first, so the refusal is a clean 4xx (logged at WARNING, as
  every 4xx).

Answers are JSON under ``/api/`` (``{"error", "code"}``), plain pages elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _

from siesta_site.handlers import error_response, is_api

NUL = "\x00"
UNREADABLE_FORM = (TooManyFieldsSent, TooManyFilesSent, MultiPartParserError, BadRequest)
"""What Django raises for a form (or a query string) it will not parse."""


def has_nul(values: Iterable[str]) -> bool:
    return any(NUL in value for value in values)


def _query_and_form(request: HttpRequest) -> Iterable[str]:
    """The query string's names and values and, parsed here to be refused here, a page's form
    fields. Not the API's: its bodies are JSON only, and DRF, finding the stream read, would take
    a form for an empty body instead of answering 415."""
    for data in (request.GET,) if is_api(request) else (request.GET, request.POST):
        for key, items in data.lists():
            yield key
            yield from (item for item in items if isinstance(item, str))


class InputGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refusal = self.refusal(request)
        if refusal is not None:
            return refusal
        return self.get_response(request)

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        """The answer to a request that must go no further, or None."""
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return self.bad(request, _("The request could not be read."))
        if limit is not None and length > limit:
            return self.too_large(request, limit)
        headers = (
            v for k, v in request.META.items() if k.startswith("HTTP_") and isinstance(v, str)
        )
        if has_nul([request.path, *request.COOKIES.values()]) or has_nul(headers):
            return self.nul(request)
        try:
            if has_nul(_query_and_form(request)):
                return self.nul(request)
        except RequestDataTooBig:
            return self.too_large(request, limit or 0)
        except (*UNREADABLE_FORM, SuspiciousOperation):
            return self.bad(request, _("The request could not be read."))
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view that reads the body itself meets the same limits."""
        if isinstance(exception, RequestDataTooBig):
            return self.too_large(request, settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)
        if isinstance(exception, UNREADABLE_FORM):
            return self.bad(request, _("The request could not be read."))
        return None

    def nul(self, request: HttpRequest) -> HttpResponse:
        return self.bad(
            request, _("The request contains a NUL character, which no value may hold.")
        )

    def bad(self, request: HttpRequest, message: str) -> HttpResponse:
        return error_response(request, 400, message, "invalid")

    def too_large(self, request: HttpRequest, limit: int) -> HttpResponse:
        message = _("The body is too large: at most %(limit)s bytes.") % {"limit": limit}
        return error_response(request, 413, message, "body_too_large")
