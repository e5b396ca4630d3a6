"""REST API routes of accounts (API.md, Auth), included under /api/."""

from django.urls import URLPattern, URLResolver, path

from accounts import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/register/", api.RegisterApi.as_view(), name="api-register"),
    path("auth/token/", api.TokenApi.as_view(), name="api-token"),
    path("auth/logout/", api.LogoutApi.as_view(), name="api-logout"),
    path("tokens/", api.PersonalTokenListCreateApi.as_view(), name="api-tokens"),
    path("tokens/<id:token_id>/", api.PersonalTokenDetailApi.as_view(), name="api-token-detail"),
    path("me/", api.MeApi.as_view(), name="api-me"),
]
