"""Page routes of accounts at the site root: a person's profile."""

from django.urls import URLPattern, URLResolver, path

from accounts import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("users/<str:username>/", views.profile, name="profile"),
]
