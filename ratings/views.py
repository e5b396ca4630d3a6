"""Pages of ratings: leaderboards and the "About ratings" page (a player's profile, which shows
their ratings, is accounts')."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from games.models import Seat
from ratings import elo, selectors
from ratings.models import Pool

BOT_NAMES: dict[str, Any] = {
    Seat.BotLevel.EASY: gettext_lazy("Bot (easy)"),
    Seat.BotLevel.MEDIUM: gettext_lazy("Bot (medium)"),
    Seat.BotLevel.HARD: gettext_lazy("Bot (hard)"),
    Seat.BotLevel.EXPERT: gettext_lazy("Bot (expert)"),
}


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    mode = request.GET.get("mode")
    try:
        pool = selectors.pool_parse(mode)
    except ValueError:
        # Plain text: the echoed mode is the client's own input and must never become markup.
        return HttpResponseBadRequest(
            _("Unknown mode %(mode)s: use ffa or teams.") % {"mode": mode},
            content_type="text/plain; charset=utf-8",
        )
    paginator = Paginator(selectors.leaderboard(pool=pool), selectors.LEADERBOARD_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    mine = selectors.leaderboard_position(user=request.user, pool=pool)
    return render(
        request,
        "ratings/leaderboard.html",
        {
            "pool": pool,
            "pool_label": Pool(pool).label,
            "pools": Pool.choices,
            "page_obj": page,
            "rows": [{"rating": row, "hints": selectors.HintShare.of(row)} for row in page],
            "mine": mine,
            "mine_on_page": mine is not None and mine.page == page.number,
            "min_games": selectors.leaderboard_min_games(),
            "provisional_games": elo.PROVISIONAL_GAMES,
            "bots": [
                {
                    "level": bot.level,
                    "name": BOT_NAMES[bot.level],
                    "performance": bot.performance,
                    "games": bot.games,
                }
                for bot in selectors.bot_performances(pool=pool)
            ],
            "bot_min_games": selectors.BOT_PERFORMANCE_MIN_GAMES,
        },
    )


@require_GET
def about(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "ratings/about.html",
        {
            "start": int(elo.START_RATING),
            "k_new": elo.K_NEW,
            "k_established": elo.K_ESTABLISHED,
            "example_gain": elo.K_NEW // 2,
            "provisional_games": elo.PROVISIONAL_GAMES,
            "min_games": selectors.leaderboard_min_games(),
        },
    )
