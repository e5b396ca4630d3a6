"""Pages that never go stale (static/js/lib/fresh.js and GameSocket.checkFresh), run in Node with
a manual clock, a fake document and a fake WebSocket: a page checks its version on focus, when it
comes back into view and after 30 s of silence (never while hidden, once for a focus and a
visibilitychange together); the game page's check is a ``sync`` with its version on an open
socket and an immediate reconnect on a closed one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.games.node_js import needs_node, page_script_runner
from tests.games.test_game_js import HARNESS as GAME_HARNESS

pytestmark = needs_node

# The game page's harness (a manual clock, window's timers, FakeWebSocket and its `sockets`), plus
# what fresh.js listens to: window's focus and a document with its visibility.
HARNESS = (
    GAME_HARNESS
    + """
Date.now = () => clock.now;

function target() {
  const listeners = {};
  return {
    addEventListener(type, fn) {
      (listeners[type] ||= []).push(fn);
    },
    removeEventListener(type, fn) {
      listeners[type] = (listeners[type] || []).filter((other) => other !== fn);
    },
    fire(type) {
      for (const fn of listeners[type] || []) fn({ type });
    },
  };
}
Object.assign(window, target());
globalThis.document = { ...target(), visibilityState: "visible" };
function show(state) {
  document.visibilityState = state;
  document.fire("visibilitychange");
}

const checks = [];
const record = (reason) => checks.push([clock.now, reason]);
"""
)


@pytest.fixture
def run_fresh_js(js_tree: Path):
    return page_script_runner(
        js_tree, {"lib/fresh.js": "keepFresh, SILENT_MS", "game/socket.js": "GameSocket"}, HARNESS
    )


def test_a_silent_socket_is_checked_every_30_s_and_a_frame_restarts_the_wait(run_fresh_js):
    result = run_fresh_js(
        """
        const fresh = keepFresh(record);
        clock.advance(SILENT_MS);          // silent for 30 s: check
        clock.advance(20000);
        fresh.heard();                      // a frame at 50 s: the next check waits 30 s more
        clock.advance(29000);
        const before = checks.length;
        clock.advance(1000);
        result = { silent: SILENT_MS, checks, before };
        """
    )
    assert result["silent"] == 30000
    assert result["before"] == 1
    assert result["checks"] == [[30000, "silence"], [80000, "silence"]]


def test_focus_and_coming_back_into_view_check_once_and_a_hidden_page_never(run_fresh_js):
    result = run_fresh_js(
        """
        keepFresh(record);
        clock.advance(5000);
        show("hidden");                     // going away is no reason to ask
        clock.advance(60000);               // nor is a silence while hidden
        const whileHidden = checks.length;
        show("visible");
        window.fire("focus");               // the pair a browser sends: one check
        clock.advance(3000);
        window.fire("focus");
        result = { whileHidden, checks };
        """
    )
    assert result["whileHidden"] == 0
    assert result["checks"] == [[65000, "visible"], [68000, "focus"]]


def test_the_game_page_asks_with_its_version_or_reconnects_at_once(run_fresh_js):
    result = run_fresh_js(
        """
        let version = 7;
        const socket = new GameSocket("/ws/games/7/", { version: () => version });
        socket.listen({ onClose: () => socket.scheduleReconnect() });
        keepFresh(() => socket.checkFresh());
        socket.connect();
        sockets[0].open();
        window.fire("focus");
        const asked = sockets[0].sent.slice();
        sockets[0].close();                 // down: the backoff waits about a second
        clock.advance(1500);
        show("hidden");
        show("visible");                    // back in view: reconnect now, not after the backoff
        const opened = sockets.length;
        sockets[1].open();
        result = { asked, opened, url: sockets[1].url, reopenedWith: sockets[1].sent };
        """
    )
    assert result["asked"] == [{"type": "sync", "version": 7}]
    assert result["opened"] == 2
    assert result["url"] == "ws://siesta.test:8000/ws/games/7/"
    assert result["reopenedWith"] == [{"type": "sync"}]  # the reconnect asks for the state
