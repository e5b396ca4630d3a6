/*
 * The live game page: keeps the board in step with the server over the WebSocket
 * (/ws/games/<id>/, protocol in API.md) and lets the seat to move build, check and send a turn.
 *
 * Server → client: state (whole game + version), check (preview of the placements so far),
 * ack (our move was applied), hint, error (to the sender only, with the request id).
 * Client → server: check, move, hint, resign, sync.
 *
 * Needs board.js (window.Siesta) and the json_script elements "game-state" and "game-strings".
 */
(function () {
  "use strict";

  const S = window.Siesta;
  const page = document.getElementById("game-page");
  if (!S || !page) return;

  const strings = S.readJSON("game-strings");
  let state = S.readJSON("game-state");
  let version = state.version;
  const mySeat = Number(page.dataset.mySeat) || null;
  const board = new S.Board(document.getElementById("board"), strings);

  const $ = (id) => document.getElementById(id);
  const controls = $("controls");
  const messageBox = $("play-message");
  const pieceButtons = controls ? [...controls.querySelectorAll(".piece-button")] : [];

  let piece = "S";
  let placements = []; // provisional placements the server has checked
  let preview = null; // the last "check" answer for `placements`
  let hint = []; // placements suggested by a hint, drawn outlined
  let pending = null; // {id, kind, placements?}: one request at a time
  let requestCount = 0;

  // -- WebSocket ---------------------------------------------------------------------------------

  let socket = null;
  let retries = 0;
  let everOpened = false;
  let awaitingSnapshot = true;
  let reconnectTimer = null;

  function socketUrl() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + window.location.host + page.dataset.wsPath;
  }

  function connect() {
    reconnectTimer = null;
    try {
      socket = new WebSocket(socketUrl());
    } catch (error) {
      scheduleReconnect();
      return;
    }
    socket.addEventListener("open", () => {
      retries = 0;
      awaitingSnapshot = true;
      if (everOpened) {
        send({ type: "sync" });
        showMessage(strings.reconnected, "info");
      }
      everOpened = true;
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      receive(message);
    });
    socket.addEventListener("close", () => {
      socket = null;
      if (pending) {
        pending = null;
        render();
      }
      if (state.status !== "finished") {
        showMessage(strings.connection_lost, "error");
        scheduleReconnect();
      }
    });
  }

  function scheduleReconnect() {
    if (reconnectTimer) return;
    const delay = Math.min(30000, 1000 * 2 ** retries) + Math.random() * 500;
    retries += 1;
    reconnectTimer = window.setTimeout(connect, delay);
  }

  function send(message) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      showMessage(strings.connection_lost, "error");
      return false;
    }
    socket.send(JSON.stringify(message));
    return true;
  }

  function request(kind, message, extra) {
    requestCount += 1;
    const id = kind + "-" + requestCount;
    if (!send({ ...message, type: kind, id })) return;
    pending = { id, kind, ...extra };
    expectAnswer(kind === "move");
    render();
  }

  // A lost answer must never leave the page hanging: when neither the answer nor (after a move)
  // the new state arrives within a few seconds, ask for the current state.
  const SYNC_AFTER_MS = 4000;
  let syncTimer = null;
  let syncBelowVersion = null; // after a move: a state past this version is the answer

  function expectAnswer(stateToo) {
    window.clearTimeout(syncTimer);
    syncBelowVersion = stateToo ? version : null;
    syncTimer = window.setTimeout(() => {
      syncTimer = null;
      if (pending) {
        pending = null;
        render();
      }
      send({ type: "sync" });
    }, SYNC_AFTER_MS);
  }

  function answered(message) {
    const done =
      syncBelowVersion === null
        ? ["check", "hint", "error"].includes(message.type)
        : message.type === "error" || (message.type === "state" && version > syncBelowVersion);
    if (done) {
      window.clearTimeout(syncTimer);
      syncTimer = null;
      syncBelowVersion = null;
    }
  }

  function receive(message) {
    switch (message.type) {
      case "state":
        onState(message);
        break;
      case "check":
        if (pending && pending.id === message.id) {
          placements = pending.placements;
          preview = message;
          pending = null;
          clearMessage();
          render();
        }
        break;
      case "ack":
        if (pending && pending.id === message.id) pending = null;
        placements = [];
        preview = null;
        hint = [];
        if (mySeat && message.points) {
          showMessage(S.format(strings.scored, { points: message.points[mySeat - 1] }), "success");
        }
        render();
        break;
      case "hint":
        if (pending && pending.id === message.id) pending = null;
        hint = message.move ? S.parseMove(message.move) || [] : [];
        // Offer the hint in the text box: Check, then Confirm plays it.
        if (message.move && $("notation-input")) $("notation-input").value = message.move;
        showMessage(
          message.move
            ? S.format(strings.hint_shown, { move: message.move, points: message.points })
            : strings.hint_none,
          "info"
        );
        render();
        break;
      case "error":
        if (pending && (message.id === undefined || message.id === null || message.id === pending.id)) {
          pending = null;
        }
        showMessage(message.error || strings.unknown_error, "error");
        if (message.cell) flashCell(message.cell);
        // A stale ply: the page missed a change, so fetch the current state.
        if (typeof message.ply === "number" && message.ply !== state.ply) send({ type: "sync" });
        render();
        break;
      default:
        break;
    }
    if (syncTimer) answered(message);
  }

  function onState(message) {
    const incoming = message.version;
    if (incoming <= version) {
      awaitingSnapshot = false;
      if (incoming === version) applyState(message.game, incoming);
      return;
    }
    if (incoming > version + 1 && !awaitingSnapshot) {
      // A gap: ask for the whole current state rather than trust what we have.
      awaitingSnapshot = true;
      send({ type: "sync" });
      return;
    }
    awaitingSnapshot = false;
    applyState(message.game, incoming);
  }

  function applyState(game, newVersion) {
    const turnChanged = game.ply !== state.ply || game.to_move !== state.to_move;
    state = game;
    version = newVersion;
    if (turnChanged) {
      placements = [];
      preview = null;
      hint = [];
      if (pending && pending.kind !== "move") pending = null;
    }
    if (state.status === "finished") {
      // The finished game page shows the result banner and the replay.
      const words = S.resultWords(state, strings);
      if (words) showMessage(words.headline + " " + words.reason, "success");
      render();
      window.setTimeout(() => window.location.reload(), 1500);
      return;
    }
    render();
  }

  // -- state helpers -----------------------------------------------------------------------------

  function mySeatState() {
    return mySeat ? state.seats.find((seat) => seat.seat === mySeat) : null;
  }

  function isMyTurn() {
    const seat = mySeatState();
    return Boolean(seat && !seat.resigned && state.status === "active" && state.to_move === mySeat);
  }

  function occupied(cell) {
    const row = Number(cell.slice(1)) - 1;
    const column = S.COLUMNS.indexOf(cell[0]);
    return state.board[row][column] !== "." || placements.some((p) => p.cell === cell);
  }

  function myPoints() {
    return preview && preview.points ? preview.points[mySeat - 1] : 0;
  }

  function turnIsWhole() {
    return placements.length === 3 || Boolean(preview && (preview.ends_game || preview.complete));
  }

  function canConfirm() {
    return isMyTurn() && !pending && placements.length > 0 && turnIsWhole() && myPoints() >= 1;
  }

  function whyNotConfirm() {
    if (!isMyTurn()) return "";
    if (placements.length === 0) return strings.need["3"];
    if (preview && preview.ends_game) return myPoints() >= 1 ? strings.ends_game : strings.no_point;
    if (placements.length < 3) {
      return strings.need[String(3 - placements.length)];
    }
    return myPoints() >= 1 ? "" : strings.no_point;
  }

  // -- actions -----------------------------------------------------------------------------------

  function checkPlacements(candidate) {
    request("check", { move: S.moveText(candidate), ply: state.ply }, { placements: candidate });
  }

  function placeAt(cell) {
    if (!isMyTurn()) {
      showMessage(strings.not_your_turn, "error");
      return;
    }
    if (pending) return;
    if (occupied(cell)) {
      showMessage(S.format(strings.taken, { cell }), "error");
      flashCell(cell);
      return;
    }
    if (placements.length >= 3 || (preview && preview.ends_game)) {
      showMessage(preview && preview.ends_game ? strings.ends_game : strings.turn_full, "error");
      return;
    }
    hint = [];
    checkPlacements([...placements, { piece, cell }]);
  }

  function undo() {
    if (pending || !placements.length) return;
    const rest = placements.slice(0, -1);
    clearMessage();
    if (rest.length) {
      checkPlacements(rest);
    } else {
      placements = [];
      preview = null;
      render();
    }
  }

  function clearAll() {
    if (pending) return;
    placements = [];
    preview = null;
    clearMessage();
    render();
  }

  function confirmTurn() {
    if (!canConfirm()) {
      const why = whyNotConfirm();
      if (why) showMessage(why, "error");
      return;
    }
    request("move", { move: S.moveText(placements), ply: state.ply }, {});
    showMessage(strings.sent, "info");
  }

  function choosePiece(letter) {
    piece = letter;
    for (const button of pieceButtons) {
      button.setAttribute("aria-pressed", String(button.dataset.piece === letter));
    }
  }

  function submitNotation(event) {
    event.preventDefault();
    if (!isMyTurn()) {
      showMessage(strings.not_your_turn, "error");
      return;
    }
    if (pending) return;
    const input = $("notation-input");
    const parsed = S.parseMove(input.value);
    if (!parsed || parsed.length > 3) {
      showMessage(strings.bad_notation, "error");
      return;
    }
    hint = [];
    checkPlacements(parsed);
  }

  function askHint() {
    if (!isMyTurn() || pending) return;
    if (!window.confirm(strings.hint_confirm)) return;
    request("hint", {}, {});
  }

  function resign() {
    if (!window.confirm(strings.resign_confirm)) return;
    send({ type: "resign" });
  }

  // -- drawing -----------------------------------------------------------------------------------

  let messageTimer = null;

  function showMessage(text, kind) {
    if (!messageBox) return;
    window.clearTimeout(messageTimer);
    messageBox.textContent = text;
    messageBox.className = "play-message play-message-" + (kind || "info");
    messageBox.hidden = false;
  }

  function clearMessage() {
    if (!messageBox) return;
    messageBox.textContent = "";
    messageBox.className = "play-message";
  }

  function flashCell(cell) {
    const element = board.cells.get(String(cell).toUpperCase());
    if (!element) return;
    element.classList.add("cell-error");
    window.setTimeout(() => element.classList.remove("cell-error"), 1600);
  }

  function lastTurnCells() {
    const last = state.turns[state.turns.length - 1];
    return last ? (S.parseMove(last.move) || []).map((p) => p.cell) : [];
  }

  function statusText() {
    if (state.status === "open") return strings.status.open;
    if (state.status === "finished") return strings.status.finished;
    if (state.status === "cancelled") return strings.status.cancelled;
    if (isMyTurn()) return strings.status.your_turn;
    const seat = state.seats.find((s) => s.seat === state.to_move);
    return seat ? S.format(strings.status.their_turn, { name: S.seatName(seat, strings) }) : "";
  }

  function render() {
    board.render(state.board, {
      last: lastTurnCells(),
      provisional: placements,
      hint,
      seat: mySeat || 1,
    });
    board.grid.classList.toggle("is-playable", isMyTurn());
    board.grid.classList.toggle("is-busy", Boolean(pending));
    S.renderSeats($("seat-panels"), state.seats, {
      strings,
      mySeat,
      toMove: state.status === "active" ? state.to_move : null,
      teamBox: $("team-sums"),
    });
    $("supply-suns").textContent = state.supply.suns;
    $("supply-shadows").textContent = state.supply.shadows;
    $("game-status").textContent = statusText();
    renderControls();
    updateFocusable();
    tick();
  }

  function renderControls() {
    if (!controls) return;
    const myTurn = isMyTurn();
    const seat = mySeatState();
    const playing = Boolean(seat && !seat.resigned && state.status === "active");
    controls.hidden = !playing;
    controls.classList.toggle("is-waiting", !myTurn);
    for (const button of pieceButtons) button.disabled = !myTurn;
    $("undo-button").disabled = !myTurn || Boolean(pending) || !placements.length;
    $("clear-button").disabled = !myTurn || Boolean(pending) || !placements.length;
    $("confirm-button").disabled = !canConfirm();
    $("hint-button").disabled = !myTurn || Boolean(pending);
    $("resign-button").disabled = !playing;
    $("notation-input").disabled = !myTurn;
    $("notation-form").querySelector("button").disabled = !myTurn || Boolean(pending);

    const summary = $("placements");
    if (pending && pending.kind === "check") {
      summary.textContent = strings.checking;
    } else if (placements.length && preview) {
      summary.textContent =
        S.moveText(placements) + " — " + S.format(strings.preview, { points: myPoints() });
    } else {
      summary.textContent = "";
    }
    $("confirm-why").textContent = myTurn ? whyNotConfirm() : "";
  }

  // -- clock -------------------------------------------------------------------------------------

  function pad(number) {
    return String(number).padStart(2, "0");
  }

  function tick() {
    const box = $("clock-box");
    if (!box) return;
    if (!state.deadline || state.status !== "active") {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const left = Math.max(0, Math.floor((Date.parse(state.deadline) - Date.now()) / 1000));
    const days = Math.floor(left / 86400);
    const hours = Math.floor((left % 86400) / 3600);
    const minutes = Math.floor((left % 3600) / 60);
    const seconds = left % 60;
    let text = hours || days ? hours + ":" + pad(minutes) + ":" + pad(seconds) : minutes + ":" + pad(seconds);
    if (days) text = S.format(strings.clock_days, { days, time: text });
    const clock = $("clock");
    clock.textContent = text;
    clock.setAttribute("datetime", state.deadline);
    box.classList.toggle("clock-low", left <= 10);
  }

  // -- keyboard and pointer ----------------------------------------------------------------------

  let focusCell = "F6";

  function updateFocusable() {
    for (const [name, cell] of board.cells) {
      if (isMyTurn()) cell.tabIndex = name === focusCell ? 0 : -1;
      else cell.removeAttribute("tabindex");
    }
  }

  function moveFocus(cell, dx, dy) {
    const column = Math.min(11, Math.max(0, S.COLUMNS.indexOf(cell[0]) + dx));
    const row = Math.min(12, Math.max(1, Number(cell.slice(1)) + dy));
    focusCell = S.COLUMNS[column] + row;
    updateFocusable();
    board.cells.get(focusCell).focus();
  }

  board.grid.addEventListener("click", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    if (!cell || !mySeat) return;
    focusCell = cell.dataset.cell;
    placeAt(cell.dataset.cell);
  });

  board.grid.addEventListener("keydown", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    if (!cell || !isMyTurn()) return;
    const name = cell.dataset.cell;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      moveFocus(name, ...moves[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      placeAt(name);
    }
  });

  document.addEventListener("keydown", (event) => {
    if (!controls || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select")) return;
    const letter = event.key.toUpperCase();
    if (["S", "R", "H"].includes(letter) && isMyTurn()) {
      choosePiece(letter);
    } else if ((event.key === "Backspace" || event.key === "Delete") && isMyTurn()) {
      event.preventDefault();
      undo();
    }
  });

  if (controls) {
    for (const button of pieceButtons) {
      button.addEventListener("click", () => choosePiece(button.dataset.piece));
    }
    $("undo-button").addEventListener("click", undo);
    $("clear-button").addEventListener("click", clearAll);
    $("confirm-button").addEventListener("click", confirmTurn);
    $("hint-button").addEventListener("click", askHint);
    $("resign-button").addEventListener("click", resign);
    $("notation-form").addEventListener("submit", submitNotation);
  }

  render();
  window.setInterval(tick, 1000);
  if (state.status !== "finished") connect();
})();
