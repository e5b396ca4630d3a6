"""REST API routes of the ratings app, included under /api/."""

from django.urls import URLPattern, URLResolver, path

from ratings import api

urlpatterns: list[URLPattern | URLResolver] = [
    path(
        "ratings/leaderboard/",
        api.LeaderboardApi.as_view(),
        name="api-ratings-leaderboard",
    ),
    path("ratings/bots/", api.BotPerformancesApi.as_view(), name="api-ratings-bots"),
    path("users/<str:username>/", api.UserProfileApi.as_view(), name="api-user-profile"),
    path(
        "users/<str:username>/ratings/",
        api.UserRatingsApi.as_view(),
        name="api-user-ratings",
    ),
]
