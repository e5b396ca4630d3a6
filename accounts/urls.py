"""Page routes of accounts, included under /accounts/."""

from django.urls import URLPattern, URLResolver, include, path

from accounts import views

urlpatterns: list[URLPattern | URLResolver] = [
    # The login form is throttled (accounts.views.SiteLoginView); the rest is Django's.
    path("login/", views.SiteLoginView.as_view(), name="login"),
    path("register/", views.register, name="register"),
    path("", include("django.contrib.auth.urls")),
]
