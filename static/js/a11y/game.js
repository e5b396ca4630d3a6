/*
 * The live game page without sight (docs/accessibility.md): every turn, the game's end and the
 * rating change said in a polite live region; the board's cells named with their owner and
 * siestas (game.js draws them with `seatWords` and the state's `siestas`); the
 * board walked by keys (arrows, Home/End, PageUp/PageDown, Ctrl+Home/End); and the command
 * line that takes a turn in the notation or answers a question in words.
 *
 * game.js hands over its store, board and the actions of the turn being built; this module
 * decides nothing about the rules (the server checks every placement, as for a click).
 */
import { COLUMNS, SIZE, cellIndex, decodeChar, parseMove } from "../lib/notation.js";
import { rovingGrid } from "./grid_keys.js";
import { cellLabel, siestasAt } from "../lib/board.js";
import { resultWords, seatName } from "../lib/seats.js";
import { byId, format, plural } from "../lib/util.js";

export const ENDED_KEY = "siesta.a11y.ended.";

/** The polite live region of the page (made once): what it is given is read out in turn. */
export function announcer() {
  let region = byId("a11y-announcer");
  if (!region) {
    region = document.createElement("div");
    region.id = "a11y-announcer";
    region.className = "visually-hidden";
    region.setAttribute("role", "log");
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-relevant", "additions");
    document.body.appendChild(region);
  }
  return (text) => {
    if (!text) return;
    const line = document.createElement("p");
    line.textContent = text;
    region.appendChild(line);
    while (region.childElementCount > 12) region.firstElementChild.remove();
  };
}

/** "Ana (player 1)", "Bot (easy) (player 2)"; a seat with a `label` (the analysis board's and
 * the puzzles' "Player 2", who have no names) says its label. */
export function seatWords(state, seat, strings) {
  const found = state.seats.find((s) => s.seat === seat);
  if (found && found.label) return found.label;
  const name = found ? seatName(found, strings) : "";
  return format(strings.a11y.seat_name, { name, seat });
}

/** What a cell holds, in words: "D4: roof of Ana (player 1), 2 siestas" / "E5: empty". */
export function cellWords(state, name, strings) {
  const { row, column } = cellIndex(name);
  const held = decodeChar(state.board[row][column]);
  const owner = (seat) => seatWords(state, seat, strings);
  return cellLabel(strings, name, held, owner, siestasAt(state.siestas, row, column));
}

/** One turn said out: who, what, the points it scored and gave. */
export function turnWords(state, turn, strings) {
  const a = strings.a11y;
  const own = turn.points[turn.seat - 1] || 0;
  let text = plural(a.turn_played, own, {
    name: seatWords(state, turn.seat, strings),
    move: turn.move,
    points: own,
  });
  const others = turn.points
    .map((points, index) => ({ points, seat: index + 1 }))
    .filter((p) => p.points && p.seat !== turn.seat);
  if (others.length) {
    text +=
      " " +
      others
        .map((p) => plural(a.turn_gave, p.points, { name: seatWords(state, p.seat, strings), points: p.points }))
        .join(" ");
  }
  return text;
}

export function scoresWords(state, strings) {
  return state.seats
    .map((seat) => plural(strings.a11y.seat_score, seat.score, { name: seatWords(state, seat.seat, strings), points: seat.score }))
    .join(" ");
}

function secondsLeft(state) {
  if (!state.deadline) return null;
  return Math.max(0, Math.floor((Date.parse(state.deadline) - Date.now()) / 1000));
}

function durationWords(seconds, strings) {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const parts = [];
  if (minutes) parts.push(plural(strings.a11y.minutes, minutes, { count: minutes }));
  if (rest || !minutes) parts.push(plural(strings.a11y.seconds, rest, { count: rest }));
  return parts.join(" ");
}

export function toMoveWords(state, mySeat, strings) {
  const a = strings.a11y;
  if (state.status !== "active") return resultText(state, strings) || strings.status[state.status] || "";
  let text =
    state.to_move === mySeat ? a.your_turn : format(a.their_turn, { name: seatWords(state, state.to_move, strings) });
  const left = secondsLeft(state);
  if (left !== null) text += " " + format(a.time_left, { time: durationWords(left, strings) });
  return text;
}

export function resultText(state, strings) {
  const words = resultWords(state, strings);
  return words ? words.headline + " " + words.reason : "";
}

/** A row ("5") or a column ("F") read cell by cell, empties counted in runs. */
export function lineWords(state, line, strings) {
  const a = strings.a11y;
  let cells;
  if (/^\d{1,2}$/.test(line) && Number(line) >= 1 && Number(line) <= SIZE) {
    cells = COLUMNS.split("").map((column) => column + Number(line));
  } else if (line.length === 1 && COLUMNS.includes(line)) {
    cells = Array.from({ length: SIZE }, (_, i) => line + (i + 1));
  } else {
    return null;
  }
  const parts = [];
  let empties = [];
  const flush = () => {
    if (empties.length === 1) parts.push(format(strings.cell.empty, { cell: empties[0] }));
    else if (empties.length) parts.push(format(a.empty_run, { from: empties[0], to: empties[empties.length - 1] }));
    empties = [];
  };
  for (const cell of cells) {
    const { row, column } = cellIndex(cell);
    if (decodeChar(state.board[row][column]).kind === "empty") {
      empties.push(cell);
    } else {
      flush();
      parts.push(cellWords(state, cell, strings));
    }
  }
  flush();
  return parts.join("; ") + ".";
}

/**
 * The answer to a command-line question, or null when the text is not one. `text` is trimmed
 * and lower case; the words are English or the page language's (strings.a11y.commands).
 */
export function answer(state, mySeat, text, strings) {
  const a = strings.a11y;
  const [word, ...rest] = text.split(/\s+/);
  const command = commandOf(word, a.commands);
  switch (command) {
    case "help":
      return a.help;
    case "score":
      return scoresWords(state, strings);
    case "turn":
    case "time":
      return toMoveWords(state, mySeat, strings);
    case "last": {
      const count = Math.min(20, Math.max(1, Number(rest[0]) || state.players));
      const turns = state.turns.slice(-count);
      if (!turns.length) return a.no_turns;
      return turns.map((turn) => turnWords(state, turn, strings)).join(" ");
    }
    case "pieces": {
      let words = format(a.supply, { suns: state.supply.suns, shadows: state.supply.shadows });
      words +=
        " " +
        state.seats
          .map((seat) => format(a.roofs_left, { name: seatWords(state, seat.seat, strings), count: seat.roofs_left }))
          .join(" ");
      return words;
    }
    case "row":
    case "column":
      return lineWords(state, (rest[0] || "").toUpperCase(), strings) || a.bad_line;
    case "cell": {
      const placed = parseMove("S" + (rest[0] || ""));
      return placed && placed.length === 1 ? cellWords(state, placed[0].cell, strings) : a.bad_line;
    }
    default:
      return null;
  }
}

/** The command a typed word names: English, or one of the page language's words for it. */
function commandOf(word, commands) {
  for (const [command, words] of Object.entries(commands)) {
    if (word === command || words.split("|").includes(word)) return command;
  }
  return null;
}

/**
 * Wire the page: `actions` = {isMyTurn, placeAt(cell), undo, clearAll, confirmTurn,
 * choosePiece(letter), typeTurn(text) → bool}.
 */
export function setUpGameAccess({ page, store, board, strings, mySeat, actions }) {
  const a = strings.a11y;
  const say = announcer();
  const gameId = page.dataset.gameId;

  // -- the board by keys: walked as a grid (grid_keys.js); Enter or Space places -----------------

  rovingGrid(board);
  board.grid.addEventListener("keydown", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    if (cell && mySeat && (event.key === "Enter" || event.key === " ") && !event.ctrlKey) {
      event.preventDefault();
      actions.placeAt(cell.dataset.cell);
    }
  });

  // Turn keys anywhere outside a text field: S / R / H choose the piece, Backspace undoes,
  // Escape clears, C or Ctrl+Enter confirms.
  document.addEventListener("keydown", (event) => {
    if (!mySeat || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, dialog")) return;
    if (!actions.isMyTurn()) return;
    const key = event.key;
    if (event.ctrlKey) {
      if (key === "Enter") {
        event.preventDefault();
        actions.confirmTurn();
      }
      return;
    }
    const letter = key.toUpperCase();
    if (["S", "R", "H"].includes(letter)) {
      actions.choosePiece(letter);
      say(format(a.piece_chosen, { piece: strings.pieces[letter] }));
    } else if (letter === "C") {
      actions.confirmTurn();
    } else if (key === "Backspace" || key === "Delete") {
      event.preventDefault();
      actions.undo();
    } else if (key === "Escape") {
      actions.clearAll();
    }
  });

  // -- announcements ----------------------------------------------------------------------------

  store.subscribe((state, before) => {
    if (state.ply > before.ply) {
      for (const turn of state.turns.filter((t) => t.ply > before.ply)) say(turnWords(state, turn, strings));
    }
    if (state.status === "finished" && before.status !== "finished") {
      const text = resultText(state, strings);
      say(text);
      try {
        window.sessionStorage.setItem(ENDED_KEY + gameId, "1");
      } catch (error) {
        /* private mode: the reloaded page does not say it again */
      }
      return;
    }
    if (state.status === "active" && (state.ply !== before.ply || state.to_move !== before.to_move)) {
      say(toMoveWords(state, mySeat, strings));
    }
  });

  // -- the command line -------------------------------------------------------------------------

  setUpCommandLine({ getState: () => store.state, mySeat, strings, actions: mySeat ? actions : null });

  return { say };
}

/**
 * The command line of templates/games/_command_line.html, on the game page, the analysis board
 * and the puzzles: questions are answered from `getState()` (a game state, or one made like it:
 * learn.js `commandState`); turn commands go to `actions` ({undo, clearAll, confirmTurn,
 * typeTurn(text) → bool}), none for a watcher.
 */
export function setUpCommandLine({ getState, mySeat, strings, actions }) {
  const a = strings.a11y;
  const form = byId("command-form");
  const input = byId("command-input");
  const output = byId("command-output");
  if (!form || !input || !output) return;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim().toLowerCase();
    if (!text) return;
    let reply = answer(getState(), mySeat, text, strings);
    if (reply === null) reply = command(text);
    output.textContent = reply;
    input.value = "";
  });

  /** Turn commands: a move in the notation, confirm, undo, clear. */
  function command(text) {
    const word = commandOf(text, a.commands);
    if (!actions) return a.unknown;
    if (word === "confirm") {
      actions.confirmTurn();
      return a.confirming;
    }
    if (word === "undo") {
      actions.undo();
      return a.undone;
    }
    if (word === "clear") {
      actions.clearAll();
      return a.cleared;
    }
    if (parseMove(text)) {
      return actions.typeTurn(text) ? format(a.checking_move, { move: text.toUpperCase() }) : "";
    }
    return a.unknown;
  }
}
