"""REST API routes of the games app, included under /api/."""

from django.urls import URLPattern, URLResolver, path

from games.api import analysis, export, views

urlpatterns: list[URLPattern | URLResolver] = [
    path("games/", views.GameListCreateApi.as_view(), name="api-games"),
    path("games/<id:game_id>/", views.GameDetailApi.as_view(), name="api-game"),
    path("games/<id:game_id>/join/", views.GameJoinApi.as_view(), name="api-game-join"),
    path("games/<id:game_id>/cancel/", views.GameCancelApi.as_view(), name="api-game-cancel"),
    path("games/<id:game_id>/moves/", views.GameMoveApi.as_view(), name="api-game-moves"),
    path("games/<id:game_id>/hint/", views.GameHintApi.as_view(), name="api-game-hint"),
    path("games/<id:game_id>/resign/", views.GameResignApi.as_view(), name="api-game-resign"),
    path("games/<id:game_id>/record/", views.GameRecordApi.as_view(), name="api-game-record"),
    path(
        "games/<id:game_id>/analysis/",
        analysis.GameAnalysisApi.as_view(),
        name="api-game-analysis",
    ),
    path(
        "users/<str:username>/games/export/",
        export.GameExportApi.as_view(),
        name="api-user-games-export",
    ),
]
