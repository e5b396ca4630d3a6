"""Routes of the pages that are not game play, included at the site root."""

from django.urls import path

from pages import views

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("rules/", views.rules, name="rules"),
    path("rules/without-sight/", views.without_sight, name="without_sight"),
]
