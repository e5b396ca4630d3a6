"""Page routes of the ratings app, included at the site root."""

from django.urls import URLPattern, URLResolver, path

from ratings import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("ratings/about/", views.about, name="ratings_about"),
]
