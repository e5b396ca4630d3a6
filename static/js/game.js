/*
 * The live game page: keeps the board in step with the server over the WebSocket
 * (game/socket.js; protocol in API.md) through the state store (game/store.js), and lets the
 * player to move build, check and send a turn. The views (game/views.js, lib/seats.js,
 * lib/board.js) draw from the store's state and the turn being built.
 *
 * Server → client: state (whole game + version), check (preview of the placements so far),
 * ack (our move was applied), hint, error (to the sender only, with the request id).
 * Client → server: check, move, hint, resign, sync.
 *
 * A click shows the piece at once ("pending"); the server's check of the placements so far
 * confirms it or refuses it (the piece is taken back, the cell marked and the message shown
 * above the board). The rules live in the engine only: this page never decides legality.
 *
 * Never stale (lib/fresh.js): on focus, when the page comes back into view, while the socket
 * has been silent for 30 s and a few seconds after the turn's deadline, the page sends
 * {"type": "sync", "version"} (the server answers "sync" when it is the newest, else the state),
 * or reconnects at once when the socket is down.
 *
 * Bootstrap: the json_script elements "game-state" and "game-strings".
 */
import { seatWords, setUpGameAccess } from "./a11y/game.js";
import { announceTurn, setUpToggles } from "./game/alerts.js";
import { pageSocket } from "./game/socket.js";
import { GameStore } from "./game/store.js";
import {
  recentMarks,
  renderClock,
  renderMoves,
  renderStatus,
  showBoardMessage,
  showSide,
} from "./game/views.js";
import { Board } from "./lib/board.js";
import { keepFresh } from "./lib/fresh.js";
import { moveText, parseMove } from "./lib/notation.js";
import { renderScoreStrip, renderSeats, resultWords } from "./lib/seats.js";
import { byId as $, plural, readJSON } from "./lib/util.js";

const DEADLINE_GRACE_MS = 2000; // after a turn's deadline, the server's word is due
const page = $("game-page");
if (page) start(page);

function start(page) {
  const strings = readJSON("game-strings");
  const store = new GameStore(readJSON("game-state"));
  const mySeat = Number(page.dataset.mySeat) || null;
  const board = new Board($("board"), strings);
  const baseTitle = document.title;
  const controls = $("controls");
  const pieceButtons = controls ? [...controls.querySelectorAll(".piece-button")] : [];

  // The turn being built.
  let piece = "S";
  let placements = []; // placements of the turn being built, shown at once
  let checkedCount = 0; // how many of them the server's last check confirmed
  let preview = null; // the last "check" answer, for the first `checkedCount` placements
  let checkId = null; // the id of the check in flight (only the latest one counts)
  let refused = null; // the cell of the last refused placement: stays marked until the next one
  let hint = []; // placements suggested by a hint, drawn outlined
  let pending = null; // {id, kind}: a move or hint request in flight

  // The page's one socket to the game, shared with the chat (chat.js): every frame comes once.
  const socket = pageSocket(page.dataset.wsPath);
  socket.version = () => store.version;
  const listener = {
    onOpen({ reopened }) {
      store.expectSnapshot();
      if (reopened && store.state.status !== "finished") showSide(strings.reconnected, "info");
    },
    onMessage(message) {
      fresh.heard();
      receive(message);
    },
    onClose() {
      pending = null;
      if (checkId) {
        checkId = null;
        placements = placements.slice(0, checkedCount);
      }
      render();
      if (store.state.status !== "finished") {
        showSide(strings.connection_lost, "error");
        socket.scheduleReconnect();
      }
    },
  };

  function send(message) {
    if (socket.send(message)) return true;
    showSide(strings.connection_lost, "error");
    return false;
  }

  function request(kind, message) {
    const id = socket.nextId(kind);
    if (!send({ ...message, type: kind, id })) return;
    pending = { id, kind };
    socket.expectAnswer(
      kind === "move",
      () => {
        if (pending) {
          pending = null;
          render();
        }
      },
      id,
    );
    render();
  }

  function receive(message) {
    switch (message.type) {
      case "state":
        if (store.receive(message) === "gap") send({ type: "sync" });
        break;
      case "sync":
        // "Up to date" at a version this page does not hold: ask for the state it missed.
        if (message.version > store.version) send({ type: "sync", version: store.version });
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
        clearNotation();
        if (mySeat && message.points) {
          const points = message.points[mySeat - 1];
          showSide(plural(strings.scored, points, { points }), "success");
        }
        render();
        break;
      case "hint":
        if (pending && pending.id === message.id) pending = null;
        hint = message.move ? parseMove(message.move) || [] : [];
        // Offer the hint in the text box: Check, then Confirm plays it.
        if (message.move && $("notation-input")) $("notation-input").value = message.move;
        showSide(
          message.move
            ? plural(strings.hint_shown, message.points, { move: message.move, points: message.points })
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
  }

  function onError(message) {
    if (message.id === "chat") return; // the chat's own refusal (chat.js shows it)
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
    if (typeof message.ply === "number" && message.ply !== store.state.ply) send({ type: "sync" });
    render();
  }

  store.subscribe((state, before) => {
    const turnChanged = state.ply !== before.ply || state.to_move !== before.to_move;
    if (turnChanged) {
      resetTurn();
      clearNotation(); // a hint's move or a typed turn belongs to the turn that is over
      refused = null;
      if (pending && pending.kind !== "move") pending = null;
      announceTurn({
        played: state.ply > before.ply,
        myTurn: isMyTurn(),
        title: strings.your_turn_title,
        body: baseTitle,
      });
    }
    if (state.status === "finished") {
      // The finished game page shows the result banner and the replay.
      const words = resultWords(state, strings);
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
  });

  function resetTurn() {
    placements = [];
    checkedCount = 0;
    preview = null;
    checkId = null;
    hint = [];
  }

  function clearNotation() {
    const input = $("notation-input");
    if (input) input.value = "";
  }

  // -- the turn being built ----------------------------------------------------------------------

  const isMyTurn = () => store.isTurnOf(mySeat);
  const myPoints = () => (preview && preview.points ? preview.points[mySeat - 1] : 0);
  const allChecked = () => !checkId && checkedCount === placements.length;
  const turnIsWhole = () =>
    placements.length === 3 || Boolean(preview && (preview.ends_game || preview.complete));

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

  function sendCheck() {
    const id = socket.nextId("check");
    if (!send({ type: "check", id, move: moveText(placements), ply: store.state.ply })) {
      placements = placements.slice(0, checkedCount);
      return;
    }
    checkId = id;
  }

  function clearBoardMessage() {
    showBoardMessage("");
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
    request("move", { move: moveText(placements), ply: store.state.ply });
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
    typeTurn($("notation-input").value);
  }

  /** A turn typed in the notation (the text box or the command line): checked as if clicked. */
  function typeTurn(text) {
    if (!isMyTurn()) {
      showBoardMessage(strings.not_your_turn);
      return false;
    }
    if (pending) return false;
    const parsed = parseMove(text);
    if (!parsed || parsed.length > 3) {
      showBoardMessage(strings.bad_notation);
      return false;
    }
    hint = [];
    refused = null;
    clearBoardMessage();
    placements = parsed;
    checkedCount = 0;
    preview = null;
    sendCheck();
    render();
    return true;
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

  // In the dialog the Tab key wraps from its last button to its first and back (the page behind
  // is inert; without this the focus would leave for the browser's own controls).
  const confirmDialog = $("confirm-dialog");
  confirmDialog?.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const buttons = Array.from(confirmDialog.querySelectorAll("button"));
    const edge = event.shiftKey ? buttons[0] : buttons[buttons.length - 1];
    if (document.activeElement === edge) {
      event.preventDefault();
      (event.shiftKey ? buttons[buttons.length - 1] : buttons[0]).focus();
    }
  });

  function askHint() {
    if (!isMyTurn() || pending) return;
    // Only a rated game has a rating to lose.
    const warning = store.state.rated ? strings.hint_confirm : strings.hint_confirm_casual;
    confirmInPage(warning, strings.hint_ok, () => request("hint", {}));
  }

  function resign() {
    confirmInPage(strings.resign_confirm, strings.resign_ok, () => send({ type: "resign" }));
  }

  // -- drawing -----------------------------------------------------------------------------------

  function render() {
    const state = store.state;
    const marks = recentMarks(state, mySeat);
    board.render(state.board, {
      marks,
      provisional: placements,
      pending: placements.slice(checkedCount).map((p) => p.cell),
      refused,
      hint,
      seat: mySeat || 1,
      // The cells' names: "D4: roof of Ana (player 1), 2 siestas" (the server counts siestas).
      siestas: state.siestas,
      owner: (seat) => seatWords(state, seat, strings),
    });
    board.grid.classList.toggle("is-playable", isMyTurn());
    board.grid.classList.toggle("is-busy", Boolean(pending));
    renderSeats($("seat-panels"), state.seats, {
      strings,
      mySeat,
      toMove: state.status === "active" ? state.to_move : null,
      teamBox: $("team-sums"),
    });
    renderScoreStrip($("score-strip"), state.seats, {
      strings,
      mySeat,
      toMove: state.status === "active" ? state.to_move : null,
    });
    $("supply-suns").textContent = state.supply.suns;
    $("supply-shadows").textContent = state.supply.shadows;
    renderStatus(state, isMyTurn(), strings, baseTitle);
    renderMoves(state, marks, strings);
    renderControls();
    renderClock(state, isMyTurn(), strings);
  }

  function renderControls() {
    if (mySeat) page.dataset.playing = store.isPlaying(mySeat) ? "1" : "0"; // next_game.js reads it
    if (!controls) return;
    const myTurn = isMyTurn();
    const playing = store.isPlaying(mySeat);
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
        moveText(placements) + " — " + plural(strings.preview, myPoints(), { points: myPoints() }) + (why ? " " + why : "");
    } else {
      summary.textContent = whyNotConfirm();
    }
  }

  // -- keyboard and pointer: the board's keys, the live region, the command line (a11y/game.js) --

  board.grid.addEventListener("click", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    if (!cell || !mySeat) return;
    placeAt(cell.dataset.cell);
  });

  // The keys, the live region and the command line.
  setUpGameAccess({
    page,
    store,
    board,
    strings,
    mySeat,
    actions: { isMyTurn, placeAt, undo, clearAll, confirmTurn, choosePiece, typeTurn },
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

  // -- never stale --------------------------------------------------------------------------------

  /** Asks the server whether this page shows the newest version; reconnects at once if down. */
  function checkFresh() {
    if (store.state.status !== "finished") socket.checkFresh();
  }
  const fresh = keepFresh(checkFresh);

  // A turn whose deadline passed a moment ago has been decided by the server (a move or a
  // timeout): once per deadline, check rather than show 0:00 and wait.
  let deadlineChecked = null;
  function checkPastDeadline() {
    const state = store.state;
    if (state.status !== "active" || !state.deadline || deadlineChecked === state.deadline) return;
    if (Date.now() - Date.parse(state.deadline) < DEADLINE_GRACE_MS || !socket.isOpen) return;
    deadlineChecked = state.deadline;
    fresh.now("deadline");
  }

  setUpToggles();
  render();
  window.setInterval(() => {
    renderClock(store.state, isMyTurn(), strings);
    checkPastDeadline();
  }, 1000);
  if (store.state.status !== "finished") {
    socket.listen(listener);
    socket.connect();
  }
}
