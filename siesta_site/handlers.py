"""The site's answers to requests that never reach a view's own error handling: an unknown
address, a malformed request, a server error. Under ``/api/`` they keep the API's JSON shape
(``{"error": message, "code": ...}``, API.md), elsewhere Django's plain pages.

Wired as ``handler404``, ``handler400``, ``handler403`` and ``handler500`` in
``siesta_site.urls``; ``siesta_site.input_guard`` answers through :func:`error_response` too.
With ``DEBUG`` on (``make run``) Django answers an unknown address with its technical 404 page
and never asks ``handler404``: :class:`ApiNotFoundMiddleware` gives ``/api/`` its JSON there too.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views import defaults


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def api_error(status: int, message: str, code: str) -> JsonResponse:
    """An error in the API's shape, for answers made outside DRF."""
    return JsonResponse({"error": message, "code": code}, status=status)


def plain_error(status: int, title: str, message: str) -> HttpResponse:
    """A page like Django's own error pages (no template, nothing that could fail)."""
    title, message = escape(title), escape(message)
    body = (
        f'<!doctype html>\n<html lang="en">\n<head>\n  <title>{title}</title>\n</head>\n'
        f"<body>\n  <h1>{title}</h1><p>{message}</p>\n</body>\n</html>\n"
    )
    return HttpResponse(body, status=status)


def error_response(request: HttpRequest, status: int, message: str, code: str) -> HttpResponse:
    """JSON under ``/api/``, a plain page elsewhere."""
    if is_api(request):
        return api_error(status, message, code)
    return plain_error(status, f"{HTTPStatus(status).phrase} ({status})", message)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return api_error(404, _("There is nothing at this address."), "not_found")
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return api_error(400, _("The request could not be read."), "invalid")
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return api_error(403, _("You may not do this."), "not_allowed")
    return defaults.permission_denied(request, exception)


def server_error(request: HttpRequest, *args: Any) -> HttpResponse:
    if is_api(request):
        return api_error(500, _("Something went wrong. Please try again."), "server_error")
    return defaults.server_error(request)


class ApiNotFoundMiddleware(MiddlewareMixin):
    """A 404 under ``/api/`` that is not JSON (Django's technical 404 page, with ``DEBUG``)
    becomes the API's ``{"error", "code": "not_found"}``; the API's own 404s pass untouched."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if (
            response.status_code == 404
            and is_api(request)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return not_found(request, Exception())
        return response
