"""REST API routes of the tournaments app, included under /api/."""

from django.urls import URLPattern, URLResolver, path

from tournaments import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("tournaments/", api.TournamentListCreateApi.as_view(), name="api-tournaments"),
    path(
        "tournaments/<id:tournament_id>/",
        api.TournamentDetailApi.as_view(),
        name="api-tournament",
    ),
    path(
        "tournaments/<id:tournament_id>/join/",
        api.TournamentJoinApi.as_view(),
        name="api-tournament-join",
    ),
    path(
        "tournaments/<id:tournament_id>/leave/",
        api.TournamentLeaveApi.as_view(),
        name="api-tournament-leave",
    ),
    path(
        "tournaments/<id:tournament_id>/pause/",
        api.TournamentPauseApi.as_view(),
        name="api-tournament-pause",
    ),
]
