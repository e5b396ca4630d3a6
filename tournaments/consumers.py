"""Live tournaments over a WebSocket: ``/ws/tournaments/{id}/`` of API.md.

Read only: the consumer sends the tournament on connect and whenever the services push a new
state (join, leave, start, a game's end, a new round). ``{"type": "sync"}`` asks for the current
state again, as on the game socket. Frames pass the limits of every socket of the site first
(``core.sockets.GuardedJsonConsumer``).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.utils import translation
from django.utils.translation import gettext as _

from core.converters import id_of
from core.sockets import GuardedJsonConsumer
from games.state import SyncFrame
from tournaments import realtime
from tournaments.models import Tournament
from tournaments.selectors import can_see, tournament_get, tournament_state
from tournaments.state import TournamentFrame, TournamentState, TournamentStateEvent

CLOSE_UNKNOWN_TOURNAMENT = 4404


def _current_state(tournament_id: int, viewer: Any, invite: str | None) -> TournamentState | None:
    """The state, or None when there is no such tournament for this watcher (an invitation
    needs its token, ``?invite=``, unless the watcher created or joined it)."""
    try:
        tournament = tournament_get(tournament_id)
    except Tournament.DoesNotExist:
        return None
    return tournament_state(tournament) if can_see(tournament, viewer, invite) else None


def _current_version(tournament_id: int) -> int | None:
    versions = Tournament.objects.filter(pk=tournament_id).values_list("version", flat=True)
    return versions.first()


class TournamentConsumer(GuardedJsonConsumer):
    """One watcher of one tournament."""

    kind = "tournament"
    tournament_id: int | None
    version: int
    invite: str | None = None

    async def connect(self) -> None:
        self.tournament_id = id_of(str(self.scope["url_route"]["kwargs"]["tournament_id"]))
        self.version = -1
        self.joined = False
        await self.accept()
        if self.tournament_id is not None:
            group = realtime.tournament_group(self.tournament_id)
            # Join before reading, so that no change between the read and the join is missed.
            if not await self.join_group(group):
                return  # the layer is down: closed, to come back later
            self.joined = True
            query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
            invites = query.get("invite")
            self.invite = invites[0] if invites else None
            state = await self._read_state()
            if state is not None:
                await self._send_state(state)
                return
            await self.leave_group(group)
            self.joined = False
        with translation.override(self.language):
            await self.send_error(_("There is no such tournament."))
        await self.close(code=CLOSE_UNKNOWN_TOURNAMENT)

    async def disconnect(self, code: int) -> None:
        self.joined = False  # the gate leaves the tournament's group

    def accepts_frames(self) -> bool:
        return self.joined and self.tournament_id is not None

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "sync" and self.tournament_id:
            held = content.get("version")
            if isinstance(held, int) and not isinstance(held, bool):
                # A page's check (on focus, after a silence): one small query when up to date.
                version = await database_sync_to_async(_current_version)(self.tournament_id)
                if version == held:
                    up_to_date: SyncFrame = {"type": "sync", "version": held}
                    await self.send_json(up_to_date)
                    return
            state = await self._read_state()
            if state is not None:
                await self._send_state(state, force=True)
            return
        await self.send_error('Only {"type": "sync"} is understood.')

    async def _read_state(self) -> TournamentState | None:
        assert self.tournament_id is not None
        read = database_sync_to_async(_current_state)
        return await read(self.tournament_id, self.scope.get("user"), self.invite)

    async def tournament_state(self, event: TournamentStateEvent) -> None:
        """A ``tournament.state`` event from ``tournaments.realtime``."""
        await self._send_state(event["tournament"])

    async def _send_state(self, state: TournamentState, *, force: bool = False) -> None:
        version = state["version"]
        if version <= self.version and not force:
            return
        self.version = max(self.version, version)
        frame: TournamentFrame = {"type": "tournament", "tournament": state, "version": version}
        await self.send_json(frame)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return json.dumps(content, ensure_ascii=False)
