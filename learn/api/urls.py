"""REST API routes of the learn app, included under /api/."""

from django.urls import URLPattern, URLResolver, path

from learn.api import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("analysis/best/", views.AnalysisBestApi.as_view(), name="api-analysis-best"),
    path("analysis/line/", views.AnalysisLineApi.as_view(), name="api-analysis-line"),
    path("analysis/turn/", views.AnalysisTurnApi.as_view(), name="api-analysis-turn"),
    path("puzzles/", views.PuzzleListApi.as_view(), name="api-puzzles"),
    path(
        "puzzles/<id:puzzle_id>/attempts/",
        views.PuzzleAttemptApi.as_view(),
        name="api-puzzle-attempt",
    ),
    path(
        "puzzles/<id:puzzle_id>/give-up/",
        views.PuzzleGiveUpApi.as_view(),
        name="api-puzzle-give-up",
    ),
]
