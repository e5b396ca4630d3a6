"""Page routes of the learn app, included at the site root."""

from django.urls import path

from learn import views

urlpatterns = [
    path("analysis/", views.analysis_board, name="analysis"),
    path("puzzles/", views.puzzles_home, name="puzzles"),
    path("puzzles/next/", views.puzzle_next, name="puzzle_next"),
    path("puzzles/list/", views.puzzle_list, name="puzzle_list"),
    path("puzzles/history/", views.puzzle_history, name="puzzle_history"),
    path("puzzles/<id:puzzle_id>/", views.puzzle_page, name="puzzle"),
]
