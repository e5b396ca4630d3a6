"""Page routes of accounts, included under /accounts/."""

from django.urls import URLPattern, URLResolver, include, path

from accounts import views

urlpatterns: list[URLPattern | URLResolver] = [
    # The login and reset forms are throttled (accounts.views); the rest is Django's.
    path("login/", views.SiteLoginView.as_view(), name="login"),
    path("register/", views.register, name="register"),
    path("password_reset/", views.SitePasswordResetView.as_view(), name="password_reset"),
    # Django's pages with the site's forms (its words); same paths and names as Django's.
    path(
        "reset/<uidb64>/<token>/",
        views.SitePasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("password_change/", views.SitePasswordChangeView.as_view(), name="password_change"),
    path("", views.account, name="account"),
    path("tokens/<id:token_id>/revoke/", views.personal_token_revoke, name="token_revoke"),
    path("", include("django.contrib.auth.urls")),
]
