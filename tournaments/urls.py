"""Page routes of the tournaments app, included at the site root."""

from django.urls import URLPattern, URLResolver, path

from tournaments import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<id:tournament_id>/", views.tournament_detail, name="tournament"),
    path("tournaments/<id:tournament_id>/live/", views.tournament_live, name="tournament_live"),
    path("tournaments/<id:tournament_id>/join/", views.tournament_join, name="tournament_join"),
    path("tournaments/<id:tournament_id>/leave/", views.tournament_leave, name="tournament_leave"),
]
