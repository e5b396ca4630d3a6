"""The game page's socket client (static/js/game/socket.js) and state store
(static/js/game/store.js), run in Node against a fake WebSocket and a manual clock: request ids,
the "sync" sent when no answer comes within 4 s, error frames, reconnecting with backoff, and the
store's versions (a gap asks for a sync, an older state is ignored, subscribers told once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.games.node_js import needs_node, page_script_runner

pytestmark = needs_node

# What the two modules use from the browser: window.location, window.setTimeout/clearTimeout and
# WebSocket. `clock` runs the timers by hand; `FakeWebSocket.instances` are the sockets opened, each
# recording the frames sent and letting the test open, deliver to and close it. `wire(store)` joins
# a socket and a store the way static/js/game.js does; `log` records what reached the page;
# `connected(version)` is such a page with its socket open.
HARNESS = """
const clock = {
  now: 0,
  lastId: 0,
  timers: new Map(),
  setTimeout(fn, delay) {
    this.lastId += 1;
    this.timers.set(this.lastId, { fn, at: this.now + delay });
    return this.lastId;
  },
  clearTimeout(id) {
    this.timers.delete(id);
  },
  /** The delays of the timers still pending, from now. */
  pending() {
    return [...this.timers.values()].map((timer) => timer.at - this.now);
  },
  advance(ms) {
    const end = this.now + ms;
    for (;;) {
      let next = null;
      for (const entry of this.timers) {
        if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      }
      if (!next) break;
      this.timers.delete(next[0]);
      this.now = next[1].at;
      next[1].fn();
    }
    this.now = end;
  },
};

globalThis.window = {
  location: { protocol: "http:", host: "siesta.test:8000" },
  setTimeout: (fn, delay) => clock.setTimeout(fn, delay),
  clearTimeout: (id) => clock.clearTimeout(id),
};

class FakeWebSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;
  static instances = [];
  static refuse = 0; // how many of the next constructions throw

  constructor(url) {
    if (FakeWebSocket.refuse > 0) {
      FakeWebSocket.refuse -= 1;
      throw new Error("refused");
    }
    this.url = url;
    this.readyState = FakeWebSocket.CONNECTING;
    this.sent = [];
    this.listeners = {};
    FakeWebSocket.instances.push(this);
  }
  addEventListener(type, listener) {
    (this.listeners[type] ||= []).push(listener);
  }
  emit(type, event) {
    for (const listener of this.listeners[type] || []) listener(event);
  }
  send(data) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error("send on a socket not open");
    this.sent.push(JSON.parse(data));
  }
  open() {
    this.readyState = FakeWebSocket.OPEN;
    this.emit("open", {});
  }
  deliver(message) {
    this.emit("message", { data: typeof message === "string" ? message : JSON.stringify(message) });
  }
  close() {
    this.readyState = FakeWebSocket.CLOSED;
    this.emit("close", { code: 1006 });
  }
}
globalThis.WebSocket = FakeWebSocket;
const sockets = FakeWebSocket.instances;
const last = () => sockets[sockets.length - 1];

const log = [];
function wire(store) {
  const socket = new GameSocket("/ws/games/7/", {
    version: () => store.version,
    onOpen(info) {
      log.push(["open", info]);
      store.expectSnapshot();
    },
    onMessage(message) {
      log.push(["message", message]);
      if (message.type !== "state") return;
      if (store.receive(message) === "gap") socket.send({ type: "sync" });
    },
    onClose() {
      log.push(["close"]);
      socket.scheduleReconnect();
    },
  });
  return socket;
}
/** A page at `version` whose socket is open. */
function connected(version) {
  const store = new GameStore(held(version));
  const socket = wire(store);
  socket.connect();
  last().open();
  return { store, socket };
}
/** Sends a move the way the page does; gives its id. */
function sendMove(socket, move, ply) {
  const id = socket.nextId("move");
  socket.send({ type: "move", move, ply, id });
  return id;
}
const game = (ply) => ({ ply, status: "active", to_move: 1 + (ply % 2), seats: [] });
const held = (version) => ({ ...game(version), version }); // the state the page starts with
const state = (version) => ({ type: "state", game: game(version), version });
"""


@pytest.fixture
def run_game_js(js_tree: Path):
    """Run `body` after HARNESS with GameSocket, GameStore and SYNC_AFTER_MS imported; the body
    sets `result`, which comes back parsed from JSON."""

    return page_script_runner(
        js_tree,
        {"game/socket.js": "GameSocket, SYNC_AFTER_MS, pageSocket", "game/store.js": "GameStore"},
        HARNESS,
    )


# -- the socket client ---------------------------------------------------------------------------


def test_connects_to_the_game_path_on_the_page_host(run_game_js):
    result = run_game_js("""
        const socket = wire(new GameStore(held(3)));
        const sentBeforeOpen = socket.send({ type: "sync" });
        socket.connect();
        const early = socket.send({ type: "sync" }); // still connecting
        last().open();
        window.location.protocol = "https:";
        result = {
          url: last().url,
          secureUrl: socket.url(),
          sentBeforeOpen,
          early,
          sentOnFirstOpen: last().sent,
          log,
          syncAfter: SYNC_AFTER_MS,
        };
    """)
    assert result["url"] == "ws://siesta.test:8000/ws/games/7/"
    assert result["secureUrl"] == "wss://siesta.test:8000/ws/games/7/"
    assert result["sentBeforeOpen"] is False
    assert result["early"] is False
    # The server sends the whole state on connect: the first open asks for nothing.
    assert result["sentOnFirstOpen"] == []
    assert result["log"] == [["open", {"reopened": False}]]
    assert result["syncAfter"] == 4000


def test_the_board_and_the_chat_share_one_socket_and_each_frame_comes_once(run_game_js):
    """game.js and chat.js both ask pageSocket for the game's path: one connection, each frame
    delivered once to each listener; a listener added once the socket is open hears onOpen."""
    result = run_game_js("""
        const board = pageSocket("/ws/games/9/");
        const seen = { board: [], chat: [] };
        board.listen({ onMessage: (m) => seen.board.push(m.type) });
        board.connect();
        const chat = pageSocket("/ws/games/9/");
        chat.connect(); // connecting already: no second connection
        last().open();
        let chatOpened = 0;
        chat.listen({
          onOpen: () => { chatOpened += 1; chat.send({ type: "chat_history" }); },
          onMessage: (m) => seen.chat.push(m.type),
        });
        last().deliver(state(3));
        last().deliver({ type: "chat", id: 1, text: "hi" });
        result = {
          same: board === chat,
          other: pageSocket("/ws/games/10/") === board,
          sockets: sockets.length,
          chatOpened,
          sent: last().sent,
          seen,
        };
    """)
    assert result["same"] is True
    assert result["other"] is False
    assert result["sockets"] == 1
    assert result["chatOpened"] == 1
    assert result["sent"] == [{"type": "chat_history"}]
    assert result["seen"] == {"board": ["state", "chat"], "chat": ["state", "chat"]}


def test_each_request_gets_a_fresh_id(run_game_js):
    result = run_game_js("""
        const { socket } = connected(3);
        const id = socket.nextId("move");
        const sent = socket.send({ type: "move", move: "SF5 SG5 SH5", ply: 3, id });
        const ids = [id, socket.nextId("check"), socket.nextId("hint")];
        result = { sent, ids, frames: last().sent };
    """)
    assert result["sent"] is True
    assert result["ids"] == ["move-1", "check-2", "hint-3"]
    assert result["frames"] == [{"type": "move", "move": "SF5 SG5 SH5", "ply": 3, "id": "move-1"}]


def test_a_move_answered_by_its_ack_and_the_newer_state_sends_no_sync(run_game_js):
    result = run_game_js("""
        const { store, socket } = connected(3);
        last().deliver(state(3)); // the snapshot on connect
        const id = sendMove(socket, "SF5", 3);
        let timedOut = false;
        socket.expectAnswer(true, () => { timedOut = true; });
        last().deliver({ type: "ack", id, points: [1, 0] });
        last().deliver(state(4));
        clock.advance(60000);
        result = { timedOut, frames: last().sent, timers: clock.pending(), log };
        result.version = store.version;
    """)
    assert result["timedOut"] is False
    assert result["frames"] == [{"type": "move", "move": "SF5", "ply": 3, "id": "move-1"}]
    assert result["timers"] == []
    assert result["version"] == 4
    # The ack reaches the page with its id (the page clears its request in flight with it).
    assert ["message", {"type": "ack", "id": "move-1", "points": [1, 0]}] in result["log"]


def test_a_move_with_no_newer_state_within_4_s_sends_sync(run_game_js):
    result = run_game_js("""
        const { socket } = connected(3);
        last().deliver(state(3));
        const id = sendMove(socket, "SF5", 3);
        const framesAtTimeout = [];
        socket.expectAnswer(true, () => framesAtTimeout.push(last().sent.length));
        last().deliver({ type: "ack", id }); // an ack alone does not answer a move
        last().deliver(state(3)); // nor does a state at the version the move was sent at
        clock.advance(SYNC_AFTER_MS - 1);
        const before = last().sent.slice(1);
        clock.advance(1);
        const after = last().sent.slice(1);
        clock.advance(60000);
        result = { before, after, framesAtTimeout, final: last().sent.slice(1) };
    """)
    assert result["before"] == []
    assert result["after"] == [{"type": "sync"}]
    # onTimeout runs before the sync goes out (the move frame was the only one sent then).
    assert result["framesAtTimeout"] == [1]
    assert result["final"] == [{"type": "sync"}]  # one sync, not one every 4 s


def test_a_hint_is_answered_by_the_hint_frame_and_unanswered_asks_for_sync(run_game_js):
    result = run_game_js("""
        const { socket } = connected(3);
        socket.expectAnswer(false, () => {});
        last().deliver({ type: "hint", id: "hint-1", move: "SF5", points: 2 });
        clock.advance(60000);
        const answered = [...last().sent];
        socket.expectAnswer(false, () => {});
        clock.advance(SYNC_AFTER_MS);
        result = { answered, unanswered: last().sent };
    """)
    assert result["answered"] == []
    assert result["unanswered"] == [{"type": "sync"}]


def test_a_new_request_restarts_the_4_s_wait(run_game_js):
    result = run_game_js("""
        const { socket } = connected(3);
        socket.expectAnswer(false, () => {});
        clock.advance(3000);
        socket.expectAnswer(false, () => {});
        clock.advance(3000);
        const midway = last().sent.length;
        clock.advance(1000);
        result = { midway, timers: clock.pending(), sent: last().sent };
    """)
    assert result["midway"] == 0
    assert result["timers"] == []
    assert result["sent"] == [{"type": "sync"}]


def test_an_error_frame_reaches_the_caller_and_ends_the_wait(run_game_js):
    result = run_game_js("""
        const { socket } = connected(3);
        const id = sendMove(socket, "SZ9", 3);
        let timedOut = false;
        socket.expectAnswer(true, () => { timedOut = true; });
        last().deliver({ type: "error", error: "Not a cell: Z9.", cell: null, id });
        clock.advance(60000);
        result = { timedOut, sent: last().sent.slice(1), log };
    """)
    assert result["timedOut"] is False
    assert result["sent"] == []
    assert result["log"][-1] == [
        "message",
        {"type": "error", "error": "Not a cell: Z9.", "cell": None, "id": "move-1"},
    ]


def test_a_frame_answering_an_earlier_request_does_not_end_the_wait(run_game_js):
    """Only the awaited request's own answer (its id) stops the 4 s wait; frames without an id
    (a state) go by type and version as before."""
    result = run_game_js("""
        const { socket } = connected(3);
        socket.expectAnswer(false, () => {}, "hint-2");
        last().deliver({ type: "check", id: "check-1", ok: true, points: [0, 0] });
        last().deliver({ type: "error", error: "Too late.", cell: null, id: "check-1" });
        clock.advance(SYNC_AFTER_MS);
        const unanswered = [...last().sent];
        socket.expectAnswer(false, () => {}, "hint-3");
        last().deliver({ type: "hint", id: "hint-3", move: "SF5", points: 2 });
        clock.advance(60000);
        result = { unanswered, answered: last().sent.slice(unanswered.length) };
    """)
    assert result["unanswered"] == [{"type": "sync"}]
    assert result["answered"] == []


def test_a_frame_that_is_not_json_is_dropped(run_game_js):
    result = run_game_js("""
        const { socket } = connected(3);
        socket.expectAnswer(false, () => {});
        last().deliver("<html>502</html>");
        clock.advance(SYNC_AFTER_MS);
        result = { log, sent: last().sent };
    """)
    assert result["log"] == [["open", {"reopened": False}]]
    assert result["sent"] == [{"type": "sync"}]  # and the wait goes on


def test_a_closed_socket_reconnects_after_a_backoff_and_asks_for_the_state(run_game_js):
    result = run_game_js("""
        const { store, socket } = connected(3);
        last().deliver(state(3));
        last().close();
        socket.scheduleReconnect(); // a second call while one is pending changes nothing
        const backoff = clock.pending();
        const whileDown = { isOpen: socket.isOpen, sent: socket.send({ type: "sync" }) };
        clock.advance(backoff[0] - 1);
        const socketsBefore = sockets.length;
        clock.advance(1);
        const socketsAfter = sockets.length;
        last().open();
        const awaitingSnapshot = store.awaitingSnapshot;
        last().deliver(state(6)); // the snapshot after a reconnect may jump versions
        result = {
          backoff,
          whileDown,
          socketsBefore,
          socketsAfter,
          url: last().url,
          sentOnReopen: last().sent,
          awaitingSnapshot,
          version: store.version,
          log: log.filter((entry) => entry[0] !== "message"),
        };
    """)
    assert len(result["backoff"]) == 1
    assert 1000 <= result["backoff"][0] < 1500
    assert result["whileDown"] == {"isOpen": False, "sent": False}
    assert (result["socketsBefore"], result["socketsAfter"]) == (1, 2)
    assert result["url"] == "ws://siesta.test:8000/ws/games/7/"
    # Browsers are known by their session cookie: on reopening the client asks for the state
    # ("sync") and sends no auth frame.
    assert result["sentOnReopen"] == [{"type": "sync"}]
    assert result["awaitingSnapshot"] is True
    assert result["version"] == 6
    assert result["log"] == [
        ["open", {"reopened": False}],
        ["close"],
        ["open", {"reopened": True}],
    ]


def test_the_backoff_doubles_up_to_30_s_and_starts_over_once_connected(run_game_js):
    result = run_game_js("""
        Math.random = () => 0;
        const socket = wire(new GameStore(held(3)));
        FakeWebSocket.refuse = 2; // the constructor throws: the client schedules the retry itself
        socket.connect();
        const delays = [];
        for (let attempt = 0; attempt < 7; attempt += 1) {
          delays.push(clock.pending()[0]);
          clock.advance(delays[delays.length - 1]);
          if (attempt >= 1 && attempt < 6) last().close(); // refused: closed without opening
        }
        last().open();
        last().close();
        const afterOpen = clock.pending();
        Math.random = () => 0.999;
        clock.advance(afterOpen[0]);
        last().close();
        result = { delays, afterOpen, jittered: clock.pending(), opened: sockets.length };
    """)
    assert result["delays"] == [1000, 2000, 4000, 8000, 16000, 30000, 30000]
    assert result["afterOpen"] == [1000]
    assert 2000 < result["jittered"][0] < 2500
    assert result["opened"] == 7


# -- the state store -----------------------------------------------------------------------------


def test_the_next_version_replaces_the_state_and_each_subscriber_hears_it_once(run_game_js):
    result = run_game_js("""
        const store = new GameStore(held(3));
        const heard = { a: [], b: [] };
        store.subscribe((game, before) => heard.a.push([before.ply, game.ply]));
        const stopB = store.subscribe((game, before) => heard.b.push([before.ply, game.ply]));
        const outcomes = [store.receive(state(4))];
        stopB();
        outcomes.push(store.receive(state(5)));
        result = { outcomes, heard, version: store.version, ply: store.state.ply };
    """)
    assert result["outcomes"] == ["applied", "applied"]
    assert result["heard"] == {"a": [[3, 4], [4, 5]], "b": [[3, 4]]}
    assert (result["version"], result["ply"]) == (5, 5)


def test_an_older_version_is_ignored(run_game_js):
    result = run_game_js("""
        const store = new GameStore(held(5));
        const heard = [];
        store.subscribe((game) => heard.push(game.ply));
        const outcome = store.receive(state(4));
        result = { outcome, heard, version: store.version, ply: store.state.ply };
    """)
    assert result == {"outcome": "stale", "heard": [], "version": 5, "ply": 5}


def test_a_version_gap_asks_for_a_sync_and_its_answer_replaces_the_state(run_game_js):
    result = run_game_js("""
        const { store } = connected(3);
        const heard = [];
        store.subscribe((game) => heard.push(game.ply));
        last().deliver(state(3)); // the snapshot on connect: same version
        last().deliver(state(4));
        last().deliver(state(6)); // 5 went missing
        const afterGap = { version: store.version, sent: [...last().sent] };
        last().deliver(state(6)); // the sync's answer
        last().deliver(state(5)); // the missing one, late: ignored
        result = { afterGap, heard, version: store.version, ply: store.state.ply };
        result.sent = last().sent;
    """)
    assert result["afterGap"] == {"version": 4, "sent": [{"type": "sync"}]}
    # The snapshot at the held version is drawn again; then 4 and 6, each once; 5 never.
    assert result["heard"] == [3, 4, 6]
    assert (result["version"], result["ply"]) == (6, 6)
    assert result["sent"] == [{"type": "sync"}]


def test_a_first_state_after_connecting_may_jump_versions(run_game_js):
    result = run_game_js("""
        const store = new GameStore(held(3));
        const first = store.receive(state(7)); // the page's state was old: the snapshot is newer
        const gap = store.receive(state(9));
        store.expectSnapshot();
        const again = store.receive(state(9));
        result = { first, gap, again, version: store.version };
    """)
    assert result == {"first": "applied", "gap": "gap", "again": "applied", "version": 9}
