"""The base of the API views of one game (``/api/games/<id:game_id>/...``)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from core.api.base import SiestaApi
from games import selectors


class GameRouteApi(SiestaApi):
    # A private game (``Game.private``) that the caller may not see answers exactly as an
    # unknown id (404, "There is no game 7."), before the view does anything, once the caller
    # is known (after authentication, permissions and throttles, as an unknown id would be), for
    # a method the view has.

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        game_id = kwargs.get("game_id")
        # A method the view lacks stays a 405 (DRF finds the handler after ``initial``).
        if game_id is not None and hasattr(self, str(request.method).lower()):
            selectors.game_visible_check(int(game_id), request.user)
