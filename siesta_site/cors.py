"""Read-only CORS for the API (docs/api.md, "Cross-origin reads").

A page on another site may read the API with ``fetch``: ``GET`` and ``HEAD`` under ``/api/``
answer ``Access-Control-Allow-Origin: *``, and a preflight (``OPTIONS`` with
``Access-Control-Request-Method``) asking for ``GET`` or ``HEAD`` is answered here, 204, before
anything else runs. Never with credentials: no ``Access-Control-Allow-Credentials``, so a
browser lets no other site's page read an answer made for the visitor's session; a script signs
its reads with ``Authorization: Token`` itself, if at all. Writes get no CORS header at all, so
a browser refuses to send them cross-origin (their preflight goes on to the view and gets none).
Reads carry the header with or without an ``Origin``, so a cache may keep one answer for all.

A small middleware rather than django-cors-headers, which the lock files do not hold; it sits
right after ``SecurityMiddleware`` so that every answer under ``/api/``, refusals included,
carries the header.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from siesta_site.handlers import is_api

READ_METHODS = frozenset({"GET", "HEAD"})
ALLOW_METHODS = "GET, HEAD, OPTIONS"
ALLOW_HEADERS = "Accept, Accept-Language, Authorization"
EXPOSE_HEADERS = "Content-Disposition, Retry-After"
PREFLIGHT_MAX_AGE = 86400
"""Seconds a browser may keep a preflight's answer."""


def is_read_preflight(request: HttpRequest) -> bool:
    asked = request.headers.get("Access-Control-Request-Method", "").upper()
    return request.method == "OPTIONS" and asked in READ_METHODS


class ReadOnlyCorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request):
            return self.get_response(request)
        if "Origin" in request.headers and is_read_preflight(request):
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Allow-Methods"] = ALLOW_METHODS
            response["Access-Control-Allow-Headers"] = ALLOW_HEADERS
            response["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE)
            return response
        response = self.get_response(request)
        # With or without an Origin: the same answer for every reader, so a cache in between
        # never serves one without the header to another site.
        if request.method in READ_METHODS:
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        return response
