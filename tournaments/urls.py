"""Page routes of the tournaments app, included at the site root."""

from django.urls import URLPattern, URLResolver, path

from tournaments import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament_new"),
    path("tournaments/invite/<str:token>/", views.tournament_invite, name="tournament_invite"),
    path("tournaments/<id:tournament_id>/", views.tournament_detail, name="tournament"),
    path("tournaments/<id:tournament_id>/edit/", views.tournament_edit, name="tournament_edit"),
    path(
        "tournaments/<id:tournament_id>/cancel/", views.tournament_cancel, name="tournament_cancel"
    ),
    path("tournaments/<id:tournament_id>/live/", views.tournament_live, name="tournament_live"),
    path("tournaments/<id:tournament_id>/join/", views.tournament_join, name="tournament_join"),
    path("tournaments/<id:tournament_id>/leave/", views.tournament_leave, name="tournament_leave"),
    path("tournaments/<id:tournament_id>/pause/", views.tournament_pause, name="tournament_pause"),
]
