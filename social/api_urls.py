"""API routes of playing together, included under /api/."""

from django.urls import URLPattern, path

from social import api

urlpatterns: list[URLPattern] = [
    path("seeks/", api.SeekListCreateApi.as_view(), name="api-seeks"),
    path("seeks/<id:seek_id>/", api.SeekDetailApi.as_view(), name="api-seek"),
    path("games/<id:game_id>/rematch/", api.RematchApi.as_view(), name="api-game-rematch"),
    path("challenges/", api.ChallengeListCreateApi.as_view(), name="api-challenges"),
    path("challenges/bots/", api.BotChallengeApi.as_view(), name="api-challenge-bot"),
    path("challenges/<id:challenge_id>/", api.ChallengeDetailApi.as_view(), name="api-challenge"),
    path(
        "challenges/<id:challenge_id>/accept/",
        api.ChallengeAcceptApi.as_view(),
        name="api-challenge-accept",
    ),
    path(
        "challenges/<id:challenge_id>/decline/",
        api.ChallengeDeclineApi.as_view(),
        name="api-challenge-decline",
    ),
    path("notifications/", api.NotificationListApi.as_view(), name="api-notifications"),
    path("notifications/read/", api.NotificationReadApi.as_view(), name="api-notifications-read"),
    path("presence/", api.PresenceApi.as_view(), name="api-presence"),
]
