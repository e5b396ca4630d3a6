/*
 * Helpers shared by the analysis board (analysis_board.js) and the puzzles (puzzle.js).
 *
 * Exports:
 *   post(url, body)            JSON POST with the CSRF token → {ok, status, data}
 *   TurnBuilder(options)       a turn being built on a Board: a chosen piece, clicks on
 *                              empty cells add placements; options.onChange(placements) is called
 *                              after every change. .clear(), .undo(), .setPiece(p), .placements;
 *                              it also wires undo, clear and the notation field of
 *                              templates/learn/_turn_controls.html (options.onError for bad text)
 *   seatTable(box, state, strings)  scores, roofs left and the mover of a position
 *   messenger(id)              a say(text, kind) function for a message element
 *   markCell(board, name)      outline a cell an error named
 *   refusal(answer, throttled) the words for a refused answer: the server's own when the
 *                              engine budget is spent (they say how long to wait)
 *   commandLine(options)       the game page's command line (a11y/game.js) on these pages:
 *                              questions about the position, a turn typed, undo, clear, confirm
 * The rules are never computed here: every check and score comes from the server's engine.
 */
import { post } from "./http.js";
import { cellIndex, decodeChar, emptyBoard, moveText, parseMove } from "./notation.js";
import { format } from "./util.js";
import { rovingGrid } from "../a11y/grid_keys.js";
import { setUpCommandLine } from "../a11y/game.js";

export { post };

export function refusal(answer, throttled) {
  if (answer.status === 429 && answer.data?.code !== "engine_budget") return throttled;
  return answer.data?.error ?? throttled;
}

export class TurnBuilder {
  constructor(options) {
    this.board = options.board;
    this.rows = options.rows || (() => emptyBoard());
    this.seat = options.seat || (() => 1);
    this.onChange = options.onChange || (() => {});
    this.onError = options.onError || (() => {});
    this.throttled = options.throttled;
    this.enabled = options.enabled || (() => true);
    this.piece = "S";
    this.placements = [];
    this.pickerButtons = Array.from(document.querySelectorAll(options.picker + " [data-piece]"));
    for (const button of this.pickerButtons) {
      button.addEventListener("click", () => this.setPiece(button.dataset.piece));
    }
    this.board.grid.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell[data-cell]");
      if (cell && this.enabled()) this.add(cell.dataset.cell);
    });
    this.board.grid.addEventListener("keydown", (event) => {
      const key = event.key.toUpperCase();
      if (["S", "R", "H"].includes(key)) {
        this.setPiece(key);
      } else if (event.key === "Enter" || event.key === " ") {
        const cell = event.target.closest(".cell[data-cell]");
        if (cell && this.enabled()) {
          event.preventDefault();
          this.add(cell.dataset.cell);
        }
      }
    });
    rovingGrid(this.board); // one Tab stop, walked by the arrows, Home/End, PageUp/PageDown
    // The controls of templates/learn/_turn_controls.html.
    const byId = (id) => document.getElementById(id);
    byId("undo-button").addEventListener("click", () => this.undo());
    byId("clear-button").addEventListener("click", () => this.clear());
    byId("notation-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const placements = parseMove(byId("notation-input").value);
      if (!placements) {
        this.onError(options.badNotation);
        return;
      }
      this.placements = placements.slice(0, 3);
      this.onChange(this.placements);
    });
    this.setPiece("S");
  }

  setPiece(piece) {
    this.piece = piece;
    for (const button of this.pickerButtons) {
      button.setAttribute("aria-pressed", String(button.dataset.piece === piece));
    }
  }

  add(cell) {
    const { row, column } = cellIndex(cell);
    const taken = decodeChar(this.rows()[row][column]).kind !== "empty" || this.placements.some((p) => p.cell === cell);
    if (taken || this.placements.length >= 3) return;
    this.placements.push({ piece: this.piece, cell });
    this.onChange(this.placements);
  }

  /**
   * Ask the engine about the placements so far (POST /api/analysis/turn/, `body` beside the
   * move). Returns its answer; null when a newer placement overtook it, or when it was refused:
   * then the refused placements are taken back, `redraw()` is called and the cell outlined.
   */
  async check(body, redraw) {
    const move = this.text();
    const answer = await post("/api/analysis/turn/", { ...body, move });
    if (this.text() !== move) return null;
    if (!answer.ok) {
      this.onError(refusal(answer, this.throttled));
      this.refuse(answer.data.cell);
      redraw();
      markCell(this.board, answer.data.cell);
      return null;
    }
    return answer.data;
  }

  /** Take back the placement at `cell` (named by the server's error) and every later one;
   * without a cell, the last placement. */
  refuse(cell) {
    const index = this.placements.findIndex((p) => p.cell === cell);
    this.placements = index >= 0 ? this.placements.slice(0, index) : this.placements.slice(0, -1);
  }

  undo() {
    this.placements.pop();
    this.onChange(this.placements);
  }

  clear() {
    this.placements = [];
    this.onChange(this.placements);
  }

  text() {
    return moveText(this.placements);
  }
}

/** A function showing a message (and its kind: "error") in the element `id`. */
export function messenger(id) {
  return (text, kind) => {
    const box = document.getElementById(id);
    box.textContent = text || "";
    box.className = "play-message" + (kind ? " is-" + kind : "");
  };
}

export function seatTable(box, state, strings) {
  box.replaceChildren();
  state.scores.forEach((score, index) => {
    const seat = index + 1;
    const item = document.createElement("li");
    item.className = "seat-panel seat-" + seat + (state.to_move === seat ? " is-to-move" : "");
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = format(strings.seat, { seat });
    const roofs = document.createElement("span");
    roofs.className = "roofs-left";
    roofs.textContent = format(strings.roofs_left, { count: state.supply.roofs[index] });
    const value = document.createElement("strong");
    value.className = "seat-score";
    value.textContent = String(score);
    item.append(name, " ", roofs, " ", value);
    box.appendChild(item);
  });
}

/** Outline a cell the server named in an error, until the board is drawn again. */
export function markCell(board, name) {
  const cell = name && board.cells.get(name);
  if (cell) cell.classList.add("cell-error");
}


/**
 * A position (and the turns that led to it) as the command line reads a game's state: the seats
 * say their label as the page shows it ("Player 2"), there is no clock.
 */
export function commandState(position, turns, strings) {
  return {
    players: position.players || position.scores.length,
    status: position.over ? "finished" : "active",
    board: position.board,
    siestas: position.siestas,
    to_move: position.to_move,
    supply: position.supply,
    turns: turns.map((turn, index) => ({ ply: index + 1, ...turn })),
    deadline: null,
    result: null,
    seats: position.scores.map((score, index) => ({
      seat: index + 1,
      label: format(strings.seat, { seat: index + 1 }),
      score,
      roofs_left: position.supply.roofs[index],
    })),
  };
}

/**
 * The command line (templates/games/_command_line.html) on the analysis board and the puzzles:
 * `getState()` gives `commandState(...)`; a typed turn goes to the builder like the notation
 * field, confirm presses the page's confirm button (`confirmId`) when it is enabled.
 */
export function commandLine({ builder, getState, strings, confirmId }) {
  setUpCommandLine({
    getState,
    mySeat: null,
    strings,
    actions: {
      undo: () => builder.undo(),
      clearAll: () => builder.clear(),
      confirmTurn: () => {
        const button = document.getElementById(confirmId);
        if (button && !button.disabled) button.click();
      },
      typeTurn: (text) => {
        const placements = parseMove(text);
        if (!placements || !builder.enabled()) return false;
        builder.placements = placements.slice(0, 3);
        builder.onChange(builder.placements);
        return true;
      },
    },
  });
}
