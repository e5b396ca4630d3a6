#!/usr/bin/env python3
"""A reference bot for the Siesta site: signs in with an API token, gets a game (accepts a
challenge, challenges a player, or seeks one), and plays it to the end over the game's WebSocket.

It uses only the public interface (docs/api.md, docs/sockets.md, the AsyncAPI document at
/api/asyncapi.json): the REST API with ``Authorization: Token``, the lobby socket for its
challenges and seeks, the game socket for the states and its moves. Each turn it plays the best
turn that ``POST /api/analysis/best/`` finds for the game's record; a real bot puts its own
engine there (``choose_turn``). Python 3.11 and the ``websockets`` package (15 or later).

    python reference_bot.py --site http://127.0.0.1:8000 --token KEY --accept
    python reference_bot.py --site http://127.0.0.1:8000 --username ana --password PW --challenge bo
    python reference_bot.py --site http://127.0.0.1:8000 --token KEY --seek

``--token`` may also come from ``SIESTA_TOKEN``. The bot prints one line per event and, at the end,
``finished <game id> <end_reason> scores <scores>``; its exit status is 0 once its game finished.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

from websockets.sync.client import ClientConnection, connect

TIMEOUT = 120.0
"""Seconds to wait for any one thing (a challenge, a match, the opponent's turn)."""


class Site:
    """The REST API, signed in by token."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """The decoded answer; waits and tries again on 429 (``Retry-After``)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        for _attempt in range(10):
            request = urllib.request.Request(self.base + path, data, headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    raw = response.read()
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as refusal:
                if refusal.code != 429:
                    detail = refusal.read().decode(errors="replace")
                    raise SystemExit(f"{method} {path}: {refusal.code} {detail}") from None
                time.sleep(float(refusal.headers.get("Retry-After") or 1))
        raise SystemExit(f"{method} {path}: still throttled")

    def sign_in(self, username: str, password: str) -> None:
        """``POST /api/auth/token/``: the account's API token."""
        self.token = self.call(
            "POST", "/api/auth/token/", {"username": username, "password": password}
        )["token"]

    def socket(self, path: str) -> tuple[ClientConnection, dict[str, Any]]:
        """A WebSocket signed in by ``auth`` as its first message, and the answer to it: ``auth``
        on the game socket (the first ``state`` follows), the one ``welcome`` on the lobby."""
        url = "ws" + self.base.removeprefix("http") + path
        ws = connect(url, open_timeout=TIMEOUT)  # no Origin: a script
        send(ws, {"type": "auth", "token": self.token})
        answer = receive(ws)
        if answer["type"] == "error":
            raise SystemExit(f"{path}: {answer['error']}")
        return ws, answer


def send(ws: ClientConnection, message: dict[str, Any]) -> None:
    ws.send(json.dumps(message))


def receive(ws: ClientConnection) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(ws.recv(TIMEOUT))
    return frame


def log(*words: Any) -> None:
    print(*words, flush=True)


# -- getting a game --------------------------------------------------------------------------------


def accept_challenge(site: Site, lobby: ClientConnection, welcome: dict[str, Any]) -> int:
    """Accept the first challenge received: one pending at connect (in the ``welcome``), or the
    next ``challenge`` frame to this bot."""
    pending = welcome.get("challenges") or []
    while not pending:
        frame = receive(lobby)
        if frame["type"] != "challenge":
            continue
        challenge = frame["challenge"]
        if challenge["to"] == welcome["username"] and challenge["status"] == "pending":
            pending = [challenge]
    challenge = pending[0]
    log("accepting challenge", challenge["id"], "from", challenge["from"])
    accepted = site.call("POST", f"/api/challenges/{challenge['id']}/accept/")
    return int(accepted["game"])


def challenge_player(site: Site, lobby: ClientConnection, username: str) -> int:
    """Challenge ``username`` to a casual game; the game once they accept it."""
    challenge = site.call("POST", "/api/challenges/", {"username": username, "rated": False})
    log("challenged", username, "challenge", challenge["id"])
    while True:
        frame = receive(lobby)
        if frame["type"] == "challenge" and frame["challenge"]["id"] == challenge["id"]:
            if frame["challenge"]["status"] == "accepted":
                return int(frame["challenge"]["game"])
            if frame["challenge"]["status"] != "pending":
                raise SystemExit(f"challenge {frame['challenge']['status']}")


def seek_game(site: Site, lobby: ClientConnection) -> int:
    """Put a casual two-player seek in the pool; the game once it is matched."""
    seek = site.call("POST", "/api/seeks/", {"players": 2, "rated": False})
    log("seeking, seek", seek["id"])
    while True:
        frame = receive(lobby)
        if frame["type"] == "seek" and frame["seek"]["id"] == seek["id"]:
            if frame["seek"]["status"] == "matched":
                return int(frame["seek"]["game"])
            raise SystemExit(f"seek {frame['seek']['status']}")


# -- playing ---------------------------------------------------------------------------------------


def choose_turn(site: Site, game_id: int) -> str:
    """The turn to play: here the site's analysis of the game's record (a real bot thinks)."""
    record = site.call("GET", f"/api/games/{game_id}/record/")
    best = site.call("POST", "/api/analysis/best/", {"record": record, "count": 1})
    return str(best["move"])


def play(site: Site, game_id: int) -> dict[str, Any]:
    """Play ``game_id`` to its end over its socket; its final state."""
    ws, answer = site.socket(f"/ws/games/{game_id}/")
    me = answer["username"]
    log("playing game", game_id, "as", me)
    played_at = -1  # the ply of the last turn sent, so that a state is answered once
    try:
        while True:
            frame = receive(ws)
            if frame["type"] == "state":
                game: dict[str, Any] = frame["game"]
                if game["status"] in ("finished", "cancelled"):
                    return game
                seat = next(s["seat"] for s in game["seats"] if s["username"] == me)
                if (
                    game["status"] == "active"
                    and game["to_move"] == seat
                    and game["ply"] > played_at
                ):
                    move = choose_turn(site, game_id)
                    played_at = game["ply"]
                    log("ply", game["ply"], "plays", move)
                    send(
                        ws,
                        {"type": "move", "move": move, "ply": game["ply"], "id": uuid.uuid4().hex},
                    )
            elif frame["type"] == "error":
                log("refused:", frame["error"])
                played_at = -1  # think again from the current state
                send(ws, {"type": "sync"})
    finally:
        ws.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("SIESTA_TOKEN"))
    parser.add_argument("--username")
    parser.add_argument("--password")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--accept", action="store_true", help="accept the first challenge")
    how.add_argument("--challenge", metavar="USERNAME", help="challenge a player")
    how.add_argument("--seek", action="store_true", help="seek a two-player game")
    how.add_argument("--game", type=int, help="play a game already joined")
    args = parser.parse_args(argv)

    site = Site(args.site, args.token)
    if not site.token:
        if not (args.username and args.password):
            parser.error("give --token (or SIESTA_TOKEN), or --username and --password")
        site.sign_in(args.username, args.password)
    game_id = args.game
    if game_id is None:
        lobby, welcome = site.socket("/ws/lobby/")
        log("signed in as", welcome["username"])
        try:
            if args.accept:
                game_id = accept_challenge(site, lobby, welcome)
            elif args.challenge:
                game_id = challenge_player(site, lobby, args.challenge)
            else:
                game_id = seek_game(site, lobby)
        finally:
            lobby.close()
    game = play(site, game_id)
    result = game["result"] or {}
    log(
        "finished", game_id, result.get("end_reason"), "scores", [s["score"] for s in game["seats"]]
    )
    return 0 if game["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
