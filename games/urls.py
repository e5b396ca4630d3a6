"""Page routes of the games app, included at the site root."""

from django.urls import path

from games import views

urlpatterns = [
    path("play/", views.lobby, name="lobby"),
    path("games/<id:game_id>/", views.game, name="game"),
    path("games/<id:game_id>/join/", views.game_join, name="game_join"),
    path("games/<id:game_id>/cancel/", views.game_cancel, name="game_cancel"),
    path("games/<id:game_id>/replay/", views.game_replay, name="game_replay"),
]
