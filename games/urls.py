"""Page routes of the games app, included at the site root."""

from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    path("accounts/register/", views.register, name="register"),
]
