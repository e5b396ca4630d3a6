"""Page routes of playing together, included at the site root."""

from django.urls import path

from social import views

urlpatterns = [
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/preferences/", views.preferences, name="notification_preferences"),
    path("notifications/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path(
        "notifications/preferences/confirm/",
        views.email_confirm_resend,
        name="email_confirm_resend",
    ),
    path("notifications/confirm/<str:token>/", views.email_confirm, name="email_confirm"),
    path("bots/challenge/", views.challenge_bot, name="challenge_bot"),
    path("users/<str:username>/challenge/", views.challenge_create, name="challenge_create"),
    path(
        "challenges/<id:challenge_id>/<str:answer>/",
        views.challenge_answer,
        name="challenge_answer",
    ),
]
