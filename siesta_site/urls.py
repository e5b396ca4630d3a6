from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # API
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("games.api.urls")),
    path("api/", include("ratings.api_urls")),
    path("api/", include("tournaments.api_urls")),
    path("api/", include("social.api_urls")),
    # Pages
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
    path("", include("social.urls")),
    path("", include("games.urls")),
]
