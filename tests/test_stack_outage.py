"""Real outages under `make up`: no game is lost on time (docs/reliability.md, "Turn clocks wait
for the site").

The stack (``deploy/up.sh``, as ``tests/test_stack.py`` starts it) runs on a Redis of this test's
own and reaches PostgreSQL through a TCP proxy of this test's own, and a game has 15 s turns.
Three real faults, each from before the turn's deadline to past it:

1. Redis killed (SIGKILL) and started again on the same port;
2. PostgreSQL unreachable for the stack only: the proxy drops every connection and refuses new
   ones, then listens again (the machine's PostgreSQL is never stopped);
3. the whole web tier frozen (SIGSTOP of every Daphne process: no beat, no move) while the Celery
   worker and beat go on running the timeout sweep, then SIGCONT.

After each, the first beat records the outage and moves the turn's deadline on by at least the
fault's length; once the grace is over (2 s here) the player to move still moves (201), no seat
is put out, and no sweep of the whole run timed a turn out. Every wait is bounded and ends on
what the test sees (a port, a deadline moved, a move applied), not on a fixed sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings

from games.engine import Position
from games.engine.search import best_turn
from tests.reliability.live import port_open, redis_server, wait_for
from tests.test_stack import (
    _free,
    _make_up,
    _rest,
    _shell,
    _stack_env,
    _supervised_pids,
)
from tests.test_stack import pytestmark as stack_marks

pytestmark = stack_marks

TURN_SECONDS = 15
PAST_DEADLINE = 4.0
"""Each fault lasts until this long after the turn's deadline (about 19 s in all)."""
GRACE = 2.0
SLACK = 0.5
"""A beat under way when a fault begins may still land a moment after it."""

SETUP = """
import json
from rest_framework.authtoken.models import Token
from django.contrib.auth import get_user_model
from games import services
User = get_user_model()
a, b = (User.objects.create_user(f"outage{tag}{{n}}", password="x") for n in "ab")
game = services.game_create(user=a, players=2, rated=False, turn_seconds={turn})
services.game_join(game_id=game.pk, user=b)
print(json.dumps({{"game": game.pk, "tokens": [Token.objects.create(user=u).key for u in (a, b)]}}))
"""

CHECK = """
import json
from datetime import datetime
from games.models import ClockOutage, Game
game = Game.objects.get(pk={game})
since = datetime.fromtimestamp({since}).astimezone()
print(json.dumps({{
    "outages": [
        o.games for o in ClockOutage.objects.filter(started_at__gte=since).order_by("started_at")
    ],
    "status": game.status,
    "out": [s.out_reason for s in game.seats.all()],
}}))
"""


def _free_port() -> int:
    for _ in range(50):
        port = random.randrange(40000, 50000)
        if _free(port):
            return port
    raise RuntimeError("no free port")


class TcpProxy:
    """A TCP proxy on 127.0.0.1 to ``target``: ``cut`` drops every connection and stops
    listening (a client connecting is refused), ``restore`` listens again on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = _free_port()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._serving: threading.Event | None = None

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        listener.settimeout(0.2)
        serving = self._serving = threading.Event()
        serving.set()
        threading.Thread(target=self._accept, args=(listener, serving), daemon=True).start()

    def cut(self) -> None:
        if self._serving is not None:
            self._serving.clear()
        with self._lock:
            sockets, self._open = self._open, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        assert wait_for(lambda: not port_open(self.port), 5), "the proxy still listens"

    def _accept(self, listener: socket.socket, serving: threading.Event) -> None:
        with listener:
            while serving.is_set():
                try:
                    client, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                try:
                    server = socket.create_connection(self.target, timeout=5)
                except OSError:
                    client.close()
                    continue
                client.settimeout(None)
                server.settimeout(None)
                with self._lock:
                    if not serving.is_set():
                        client.close()
                        server.close()
                        continue
                    self._open |= {client, server}
                for source, sink in ((client, server), (server, client)):
                    threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):  # one side gone: the other end learns it
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def _postgres_proxy() -> Iterator[TcpProxy]:
    db = settings.DATABASES["default"]
    proxy = TcpProxy((db.get("HOST") or "127.0.0.1", int(db.get("PORT") or 5432)))
    proxy.restore()
    try:
        yield proxy
    finally:
        proxy.cut()


def _through(url: str, port: int) -> str:
    """``url`` (the stack's database) reached on 127.0.0.1:``port`` instead."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    return parts._replace(netloc=f"{userinfo}@127.0.0.1:{port}").geturl()


def _game(port: int, game_id: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/{game_id}/", timeout=10) as r:
        return json.loads(r.read())


def _deadline(game: dict) -> float:
    return datetime.fromisoformat(game["deadline"]).timestamp()


def _extended(web: int, game_id: int, deadline: float, by: float) -> dict:
    """The game once the outage is recorded: its deadline moved on by ``by`` seconds at least
    (or once it is over, which ``_assert_nobody_out`` then reports)."""
    seen: dict = {}

    def moved() -> bool:
        try:
            seen.update(_game(web, game_id))
        except OSError:  # the site is still coming back
            return False
        if seen["status"] != "active":  # over (timed out): no deadline to move on
            return True
        return _deadline(seen) >= deadline + by

    assert wait_for(moved, 60, step=0.2), (seen, deadline, by)
    return seen


def _assert_nobody_out(game: dict) -> None:
    assert game["status"] == "active", game
    assert [seat["out_reason"] for seat in game["seats"]] == [None, None], game["seats"]


def _outage(
    name: str,
    web: int,
    game_id: int,
    token: str,
    position: Position,
    begin: Callable[[], None],
    end: Callable[[], None],
) -> dict:
    """``begin`` a fault before the turn's deadline, ``end`` it past it; the turn is extended by
    the outage, and the player to move moves once the grace is over. Its figures."""
    deadline = _deadline(_game(web, game_id))
    began = time.time()
    assert began < deadline - 1, f"{name}: the turn ran out before the fault ({deadline - began})"
    try:
        begin()
        assert wait_for(lambda: time.time() > deadline + PAST_DEADLINE, TURN_SECONDS + 10)
    finally:
        end()
    ended = time.time()
    game = _extended(web, game_id, deadline, ended - began - SLACK)
    recorded = time.time()
    _assert_nobody_out(game)
    extension = _deadline(game) - deadline
    # Extended by the whole fault (the gap between the beats around it), and not by much more.
    assert extension <= recorded - began + 10, (name, extension)
    # Past the grace of the outage (which ended before ``recorded``), against the moved deadline.
    assert wait_for(lambda: time.time() > recorded + GRACE + SLACK, GRACE + 5)
    move = str(best_turn(position).turn)
    status = _rest(
        web, token, "POST", f"/api/games/{game_id}/moves/", {"move": move, "ply": position.ply}
    )
    assert status == 201, (name, status)
    position.play(move)
    return {
        "fault": name,
        "length": round(ended - began, 1),
        "past_deadline": round(ended - deadline, 1),
        "extension": round(extension, 1),
        "recorded_after": round(recorded - ended, 1),
        "move": status,
    }


def test_real_outages_cost_no_game_on_time(tmp_path):
    started = time.time()
    redis_port = _free_port()
    with (
        redis_server(redis_port, tmp_path) as redis,
        _postgres_proxy() as proxy,
        _make_up(
            tmp_path,
            REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
            DATABASE_URL=_through(_stack_env(0)["DATABASE_URL"], proxy.port),
            SIESTA_OUTAGE_GRACE_SECONDS=str(GRACE),
        ) as (port, env, _stack, log_path),
    ):
        web = port + 1
        data = json.loads(
            _shell(env, port, SETUP.format(tag=random.randrange(10**9), turn=TURN_SECONDS))
        )
        game_id, tokens = data["game"], data["tokens"]
        position = Position(players=2)
        figures = []

        def redis_back() -> None:
            redis.start()
            assert wait_for(lambda: port_open(redis_port), 10)

        def redis_down() -> None:
            redis.kill()
            assert not port_open(redis_port)

        figures.append(
            _outage("Redis killed", web, game_id, tokens[0], position, redis_down, redis_back)
        )
        figures.append(
            _outage(
                "PostgreSQL unreachable",
                web,
                game_id,
                tokens[1],
                position,
                proxy.cut,
                proxy.restore,
            )
        )

        webs = [pid for name, pid in _supervised_pids().items() if name.startswith("siesta:web")]
        assert len(webs) == 2, _supervised_pids()

        def freeze() -> None:
            for pid in webs:
                os.kill(pid, signal.SIGSTOP)

        def thaw() -> None:
            for pid in webs:
                os.kill(pid, signal.SIGCONT)

        figures.append(
            _outage("web processes frozen", web, game_id, tokens[0], position, freeze, thaw)
        )

        # The sweep ran all along (through the faults it could run in) and never timed this game
        # out (a game a run before this one left behind may be, its turn long over).
        up_log = log_path.read_text()
        sweeps = re.findall(
            r"games\.tasks\.expire_turns\[[^\]]+\] succeeded in \S+ \[(.*)\]", up_log
        )
        assert sweeps, up_log[-3000:]
        timed_out = {int(n) for sweep in sweeps for n in sweep.split(",") if n.strip()}
        assert game_id not in timed_out, sweeps
        game = _game(web, game_id)
        _assert_nobody_out(game)
        assert game["ply"] == 3
        check = json.loads(_shell(env, port, CHECK.format(game=game_id, since=started)))
        assert check["status"] == "active", check
        assert not any(check["out"]), check
        # An outage recorded per fault (more only if a loaded machine let beats lapse), each
        # extending this game (and any other still running: a game an earlier run left).
        assert len(check["outages"]) >= 3, check
        assert min(check["outages"]) >= 1, check
        print("\n" + "\n".join(json.dumps(f) for f in figures))
