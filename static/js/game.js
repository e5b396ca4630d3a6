/*
 * The live game page: keeps the board in step with the server over the WebSocket
 * (/ws/games/<id>/, protocol in API.md) and lets the player to move build, check and send a turn.
 *
 * Server → client: state (whole game + version), check (preview of the placements so far),
 * ack (our move was applied), hint, error (to the sender only, with the request id).
 * Client → server: check, move, hint, resign, sync.
 *
 * A click shows the piece at once ("pending"); the server's check of the placements so far
 * confirms it or refuses it (the piece is taken back, the cell marked and the message shown
 * above the board). The rules live in the engine only: this page never decides legality.
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
  const baseTitle = document.title;

  const $ = (id) => document.getElementById(id);
  const controls = $("controls");
  const boardMessage = $("board-message");
  const sideMessage = $("play-message");
  const pieceButtons = controls ? [...controls.querySelectorAll(".piece-button")] : [];

  let piece = "S";
  let placements = []; // placements of the turn being built, shown at once
  let checkedCount = 0; // how many of them the server's last check confirmed
  let preview = null; // the last "check" answer, for the first `checkedCount` placements
  let checkId = null; // the id of the check in flight (only the latest one counts)
  let refused = null; // the cell of the last refused placement: stays marked until the next one
  let hint = []; // placements suggested by a hint, drawn outlined
  let pending = null; // {id, kind}: a move or hint request in flight
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
        showSide(strings.reconnected, "info");
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
      pending = null;
      if (checkId) {
        checkId = null;
        placements = placements.slice(0, checkedCount);
      }
      render();
      if (state.status !== "finished") {
        showSide(strings.connection_lost, "error");
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
      showSide(strings.connection_lost, "error");
      return false;
    }
    socket.send(JSON.stringify(message));
    return true;
  }

  function nextId(kind) {
    requestCount += 1;
    return kind + "-" + requestCount;
  }

  function request(kind, message, extra) {
    const id = nextId(kind);
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
        if (message.id === checkId) {
          checkId = null;
          checkedCount = placements.length;
          preview = message;
          render();
        }
        break;
      case "ack":
        if (pending && pending.id === message.id) pending = null;
        resetTurn();
        if (mySeat && message.points) {
          showSide(S.format(strings.scored, { points: message.points[mySeat - 1] }), "success");
        }
        render();
        break;
      case "hint":
        if (pending && pending.id === message.id) pending = null;
        hint = message.move ? S.parseMove(message.move) || [] : [];
        // Offer the hint in the text box: Check, then Confirm plays it.
        if (message.move && $("notation-input")) $("notation-input").value = message.move;
        showSide(
          message.move
            ? S.format(strings.hint_shown, { move: message.move, points: message.points })
            : strings.hint_none,
          "info"
        );
        render();
        break;
      case "error":
        onError(message);
        break;
      default:
        break;
    }
    if (syncTimer) answered(message);
  }

  function onError(message) {
    const text = message.error || strings.unknown_error;
    if (checkId && message.id === checkId) {
      // The check of the placements so far refused one: take it back, and the ones after it.
      checkId = null;
      const at = placements.findIndex((p) => p.cell === message.cell);
      placements = placements.slice(0, at >= 0 ? at : Math.max(0, placements.length - 1));
      checkedCount = Math.min(checkedCount, placements.length);
      if (checkedCount < placements.length || !placements.length) preview = null;
      if (placements.length && checkedCount < placements.length) sendCheck();
      refused = message.cell || null;
      showBoardMessage(text);
    } else if (typeof message.id === "string" && message.id.startsWith("check-")) {
      return; // an older check: the latest one answers for the same placements
    } else {
      if (pending && (message.id === undefined || message.id === null || message.id === pending.id)) {
        pending = null;
      }
      if (message.cell) refused = message.cell;
      showBoardMessage(text);
    }
    // A stale ply: the page missed a change, so fetch the current state.
    if (typeof message.ply === "number" && message.ply !== state.ply) send({ type: "sync" });
    render();
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
    const before = state;
    const turnChanged = game.ply !== state.ply || game.to_move !== state.to_move;
    state = game;
    version = newVersion;
    if (turnChanged) {
      resetTurn();
      refused = null;
      if (pending && pending.kind !== "move") pending = null;
      announceTurn(before);
    }
    if (state.status === "finished") {
      // The finished game page shows the result banner and the replay.
      const words = S.resultWords(state, strings);
      if (words) showSide(words.headline + " " + words.reason, "success");
      render();
      window.setTimeout(() => window.location.reload(), 1500);
      return;
    }
    if (before.status === "open" && state.status === "active") {
      window.location.reload(); // the players are all here: show the page of a game in play
      return;
    }
    render();
  }

  function resetTurn() {
    placements = [];
    checkedCount = 0;
    preview = null;
    checkId = null;
    hint = [];
  }

  // -- state helpers -----------------------------------------------------------------------------

  function mySeatState() {
    return mySeat ? state.seats.find((seat) => seat.seat === mySeat) : null;
  }

  function isMyTurn() {
    const seat = mySeatState();
    return Boolean(seat && !seat.resigned && state.status === "active" && state.to_move === mySeat);
  }

  function myPoints() {
    return preview && preview.points ? preview.points[mySeat - 1] : 0;
  }

  function allChecked() {
    return !checkId && checkedCount === placements.length;
  }

  function turnIsWhole() {
    return placements.length === 3 || Boolean(preview && (preview.ends_game || preview.complete));
  }

  function canConfirm() {
    return (
      isMyTurn() && !pending && placements.length > 0 && allChecked() && turnIsWhole() && myPoints() >= 1
    );
  }

  function whyNotConfirm() {
    if (!isMyTurn()) return "";
    if (placements.length === 0) return strings.need["3"];
    if (!allChecked()) return strings.checking;
    if (preview && preview.ends_game) return myPoints() >= 1 ? strings.ends_game : strings.no_point;
    if (placements.length < 3) return strings.need[String(3 - placements.length)];
    return myPoints() >= 1 ? "" : strings.no_point;
  }

  function seatLabel(seatNumber) {
    const seat = state.seats.find((s) => s.seat === seatNumber);
    return seat ? S.seatName(seat, strings) : S.format(strings.seat, { seat: seatNumber });
  }

  // -- actions -----------------------------------------------------------------------------------

  function sendCheck() {
    const id = nextId("check");
    if (!send({ type: "check", id, move: S.moveText(placements), ply: state.ply })) {
      placements = placements.slice(0, checkedCount);
      return;
    }
    checkId = id;
  }

  function placeAt(cell) {
    if (!isMyTurn()) {
      showBoardMessage(strings.not_your_turn);
      return;
    }
    if (pending) return;
    if (placements.some((p) => p.cell === cell)) return; // already placed this turn
    if (placements.length >= 3 || (allChecked() && preview && preview.ends_game)) {
      showBoardMessage(preview && preview.ends_game ? strings.ends_game : strings.turn_full);
      return;
    }
    hint = [];
    refused = null;
    clearBoardMessage();
    placements = [...placements, { piece, cell }];
    sendCheck();
    render();
  }

  function undo() {
    if (pending || !placements.length) return;
    placements = placements.slice(0, -1);
    refused = null;
    clearBoardMessage();
    checkedCount = Math.min(checkedCount, placements.length);
    if (placements.length) {
      checkedCount = 0;
      sendCheck();
    } else {
      resetTurn();
    }
    render();
  }

  function clearAll() {
    if (pending) return;
    resetTurn();
    refused = null;
    clearBoardMessage();
    render();
  }

  function confirmTurn() {
    if (!canConfirm()) {
      const why = whyNotConfirm();
      if (why) showBoardMessage(why);
      return;
    }
    request("move", { move: S.moveText(placements), ply: state.ply });
    showSide(strings.sent, "info");
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
      showBoardMessage(strings.not_your_turn);
      return;
    }
    if (pending) return;
    const parsed = S.parseMove($("notation-input").value);
    if (!parsed || parsed.length > 3) {
      showBoardMessage(strings.bad_notation);
      return;
    }
    hint = [];
    refused = null;
    clearBoardMessage();
    placements = parsed;
    checkedCount = 0;
    preview = null;
    sendCheck();
    render();
  }

  /** An in-page confirmation (a <dialog>), never the browser's confirm(). */
  function confirmInPage(text, okLabel, then) {
    const dialog = $("confirm-dialog");
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = okLabel;
    dialog.returnValue = "";
    dialog.addEventListener(
      "close",
      () => {
        if (dialog.returnValue === "ok") then();
      },
      { once: true }
    );
    dialog.showModal();
  }

  function askHint() {
    if (!isMyTurn() || pending) return;
    confirmInPage(strings.hint_confirm, strings.hint_ok, () => request("hint", {}));
  }

  function resign() {
    confirmInPage(strings.resign_confirm, strings.resign_ok, () => send({ type: "resign" }));
  }

  // -- following the game: title, sound, notification ---------------------------------------------

  const SOUND_KEY = "siesta.sound";
  const NOTIFY_KEY = "siesta.notify";

  function stored(key) {
    try {
      return window.localStorage.getItem(key) === "on";
    } catch (error) {
      return false;
    }
  }

  function store(key, on) {
    try {
      window.localStorage.setItem(key, on ? "on" : "off");
    } catch (error) {
      /* private mode: the choice lasts for this page only */
    }
  }

  let audio = null;

  function beep() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      audio = audio || new Context();
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = 660;
      gain.gain.setValueAtTime(0.0001, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start();
      oscillator.stop(audio.currentTime + 0.3);
    } catch (error) {
      /* no sound device */
    }
  }

  function announceTurn(before) {
    if (state.ply > before.ply && $("sound-toggle") && $("sound-toggle").checked) beep();
    if (isMyTurn() && document.hidden && $("notify-toggle") && $("notify-toggle").checked) {
      if ("Notification" in window && Notification.permission === "granted") {
        try {
          new Notification(strings.your_turn_title, { body: baseTitle, tag: "siesta-turn" });
        } catch (error) {
          /* some browsers only notify from a service worker */
        }
      }
    }
  }

  function setUpToggles() {
    const sound = $("sound-toggle");
    if (sound) {
      sound.checked = stored(SOUND_KEY);
      sound.addEventListener("change", () => store(SOUND_KEY, sound.checked));
    }
    const notify = $("notify-toggle");
    if (notify) {
      if (!("Notification" in window)) {
        notify.closest("label").hidden = true;
        return;
      }
      notify.checked = stored(NOTIFY_KEY) && Notification.permission === "granted";
      notify.addEventListener("change", () => {
        if (!notify.checked) {
          store(NOTIFY_KEY, false);
          return;
        }
        Notification.requestPermission().then((answer) => {
          notify.checked = answer === "granted";
          store(NOTIFY_KEY, notify.checked);
        });
      });
    }
  }

  // -- drawing -----------------------------------------------------------------------------------

  function showSide(text, kind) {
    if (!sideMessage) return;
    sideMessage.textContent = text;
    sideMessage.className = "play-message play-message-" + (kind || "info");
  }

  /** A refusal, shown over the board where the eye is; it stays until the next placement. */
  function showBoardMessage(text) {
    boardMessage.textContent = text;
  }

  function clearBoardMessage() {
    boardMessage.textContent = "";
  }

  /** Cells of every turn since my last one (a spectator: the last round), by the seat that moved. */
  function recentMarks() {
    const marks = new Map();
    const turns = state.turns;
    let start = Math.max(0, turns.length - (state.players - 1));
    if (mySeat) {
      let mine = -1;
      for (let i = turns.length - 1; i >= 0; i -= 1) {
        if (turns[i].seat === mySeat) {
          mine = i;
          break;
        }
      }
      start = mine + 1;
      if (start >= turns.length && turns.length) start = turns.length - 1; // my own turn was last
    }
    for (const turn of turns.slice(start)) {
      for (const p of S.parseMove(turn.move) || []) marks.set(p.cell, turn.seat);
    }
    return marks;
  }

  function statusText() {
    if (state.status === "open") return strings.status.open;
    if (state.status === "finished") return strings.status.finished;
    if (state.status === "cancelled") return strings.status.cancelled;
    if (isMyTurn()) return strings.status.your_turn;
    return S.format(strings.status.their_turn, { name: seatLabel(state.to_move) });
  }

  function renderStatus() {
    const status = $("game-status");
    status.replaceChildren();
    if (state.status === "active" && state.to_move) {
      const dot = document.createElement("span");
      dot.className = "turn-dot seat-" + state.to_move;
      dot.setAttribute("aria-hidden", "true");
      status.appendChild(dot);
    }
    status.appendChild(document.createTextNode(statusText()));
    status.classList.toggle("is-mine", isMyTurn());
    document.title = isMyTurn() ? strings.your_turn_title + " " + baseTitle : baseTitle;
  }

  function renderMoves() {
    const body = $("move-list").querySelector("tbody");
    body.replaceChildren();
    const marks = recentMarks();
    const recentPlies = new Set();
    for (const turn of state.turns) {
      for (const p of S.parseMove(turn.move) || []) {
        if (marks.get(p.cell) === turn.seat) recentPlies.add(turn.ply);
      }
    }
    for (const turn of state.turns) {
      const row = document.createElement("tr");
      if (recentPlies.has(turn.ply)) row.className = "is-recent seat-" + turn.seat;
      const number = document.createElement("td");
      number.textContent = turn.ply;
      const who = document.createElement("td");
      const chip = document.createElement("span");
      chip.className = "seat-chip seat-" + turn.seat;
      chip.textContent = seatLabel(turn.seat);
      who.appendChild(chip);
      if (turn.hint) who.appendChild(S.hintMark(strings));
      const move = document.createElement("td");
      move.className = "move-text";
      move.textContent = turn.move;
      const points = document.createElement("td");
      points.className = "points-col";
      const own = turn.points[turn.seat - 1];
      points.textContent = "+" + own;
      if (own) points.classList.add("has-points");
      const others = turn.points
        .map((value, index) => ({ value, seat: index + 1 }))
        .filter((p) => p.value && p.seat !== turn.seat);
      if (others.length) {
        points.title = others
          .map((p) => S.format(strings.points_for, { name: seatLabel(p.seat), points: p.value }))
          .join(", ");
        points.textContent += " (" + others.map((p) => "+" + p.value).join(" ") + ")";
      }
      row.append(number, who, move, points);
      body.appendChild(row);
    }
    $("no-moves").hidden = state.turns.length > 0;
    const box = body.closest(".turn-list-box");
    box.scrollTop = box.scrollHeight;
  }

  function render() {
    const waiting = placements.slice(checkedCount).map((p) => p.cell);
    board.render(state.board, {
      marks: recentMarks(),
      provisional: placements,
      pending: waiting,
      refused,
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
    renderStatus();
    renderMoves();
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
    $("more-controls").hidden = !playing;
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
    if (!myTurn) {
      summary.textContent = "";
    } else if (placements.length && allChecked() && preview) {
      const why = whyNotConfirm();
      summary.textContent =
        S.moveText(placements) +
        " — " +
        S.format(strings.preview, { points: myPoints() }) +
        (why ? " " + why : "");
    } else {
      summary.textContent = whyNotConfirm();
    }
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
    $("clock-label").textContent = isMyTurn()
      ? strings.clock_yours
      : S.format(strings.clock_of, { name: seatLabel(state.to_move) });
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
    box.className = "clock seat-" + state.to_move + (left <= 10 ? " clock-low" : "");
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
    if (target.closest && target.closest("input, textarea, select, dialog")) return;
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

  const copy = $("copy-invite");
  if (copy) {
    copy.addEventListener("click", () => {
      const input = $("invite-link");
      input.select();
      const done = () => showSide(strings.link_copied, "success");
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, () => document.execCommand("copy"));
      } else {
        document.execCommand("copy");
        done();
      }
    });
  }

  setUpToggles();
  render();
  window.setInterval(tick, 1000);
  if (state.status !== "finished") connect();
})();
