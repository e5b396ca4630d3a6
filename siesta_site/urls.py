from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.views import sign_in_throttled
from siesta_site.asyncapi import AsyncApiDocument
from siesta_site.health import health
from siesta_site.metrics import metrics

urlpatterns = [
    path("health/", health, name="health"),  # for nginx and the containers' health checks
    path("metrics", metrics, name="metrics"),  # for Prometheus (staff, a token or an address)
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/login/", sign_in_throttled(admin.site.login)),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    # API
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: no inline script, as the CSP asks.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    # The WebSockets' frames as data (AsyncAPI 3.0), generated from the TypedDicts.
    path("api/asyncapi.json", AsyncApiDocument.as_view(), name="asyncapi"),
    path("api/", include("accounts.api_urls")),
    path("api/", include("games.api.urls")),
    path("api/", include("ratings.api_urls")),
    path("api/", include("tournaments.api_urls")),
    path("api/", include("learn.api.urls")),
    path("api/", include("social.api_urls")),
    # Pages
    path("", include("accounts.people_urls")),
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
    path("", include("learn.urls")),
    path("", include("social.urls")),
    path("", include("pages.urls")),
    path("", include("games.urls")),
]

# Errors raised outside the API views keep the API's JSON shape under /api/ (siesta_site.handlers).
handler400 = "siesta_site.handlers.bad_request"
handler403 = "siesta_site.handlers.permission_denied"
handler404 = "siesta_site.handlers.not_found"
handler500 = "siesta_site.handlers.server_error"
