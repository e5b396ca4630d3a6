/*
 * The drawn board over the server-rendered grid of `.cell[data-cell]` elements
 * (templates/games/_board.html), shared by the game, the replay, the puzzles and the analysis.
 */
import { cellIndex, charOf, decodeChar } from "./notation.js";
import { format, plural } from "./util.js";

/** A piece as the board draws it, from its board character. */
export function pieceElement(char) {
  const span = document.createElement("span");
  span.setAttribute("aria-hidden", "true");
  const { kind, seat } = decodeChar(char);
  if (kind === "roof") {
    span.className = "piece piece-roof seat-" + seat;
    const label = document.createElement("span");
    label.className = "piece-label";
    label.textContent = seat;
    span.appendChild(label);
  } else {
    span.className = "piece piece-" + kind;
  }
  return span;
}

/**
 * A cell in words (docs/accessibility.md): "D4: roof of Ana (player 1), 2 siestas", "E5: empty".
 * `held` is the decoded square, `owner(seat)` names a roof's seat as the page shows it, `siestas`
 * is how many siestas the cell is part of (the server's count, `siestasAt`).
 */
export function cellLabel(strings, name, held, owner, siestas) {
  const label =
    held.kind === "roof"
      ? format(strings.a11y.cell_roof, { cell: name, name: owner(held.seat) })
      : format(strings.cell[held.kind], { cell: name });
  return siestas ? plural(strings.a11y.in_siestas, siestas, { words: label, count: siestas }) : label;
}

/** The server's siesta count of a cell (`siestas`: 12 strings of digits, or none). */
export function siestasAt(siestas, row, column) {
  return siestas && siestas[row] ? Number(siestas[row][column]) || 0 : 0;
}

export class Board {
  constructor(grid, strings) {
    this.grid = grid;
    this.strings = strings;
    this.cells = new Map();
    for (const cell of grid.querySelectorAll(".cell[data-cell]")) {
      this.cells.set(cell.dataset.cell, cell);
    }
  }

  /**
   * rows: 12 strings. options: last (cell names), provisional / hint / overlay
   * (lists of {piece, cell}); `seat` colours their roofs; overlay items may carry `className`;
   * `siestas` (the server's counts) and `owner(seat)` (a roof's owner, "Player 2" by default)
   * go into the cells' names.
   */
  render(rows, options = {}) {
    const last = new Set(options.last || []);
    const marks = options.marks || new Map(); // cell → seat whose recent turn placed it
    const pending = new Set(options.pending || []); // provisional cells the server has not checked yet
    const extra = new Map();
    for (const [kind, list] of [
      ["overlay", options.overlay],
      ["hint", options.hint],
      ["provisional", options.provisional],
    ]) {
      for (const p of list || []) extra.set(p.cell, { kind, ...p });
    }
    const words = this.strings.cell;
    const pieces = this.strings.pieces;
    const owner = options.owner || ((seat) => format(this.strings.seat, { seat }));
    for (const [name, cell] of this.cells) {
      const { row, column } = cellIndex(name);
      const char = rows[row][column];
      const held = decodeChar(char);
      const added = extra.get(name);
      cell.replaceChildren();
      cell.className = "cell";
      if (last.has(name)) cell.classList.add("cell-last");
      if (marks.has(name)) cell.classList.add("cell-last", "cell-recent", "seat-" + marks.get(name));
      if (options.refused === name) cell.classList.add("cell-refused");
      let label = cellLabel(this.strings, name, held, owner, siestasAt(options.siestas, row, column));
      if (held.kind !== "empty") cell.appendChild(pieceElement(char));
      if (added && held.kind === "empty") {
        const piece = pieceElement(charOf(added.piece, added.seat || options.seat || 1));
        piece.classList.add("piece-" + added.kind);
        if (added.className) piece.classList.add(added.className);
        cell.appendChild(piece);
        cell.classList.add("cell-" + added.kind);
        if (pending.has(name)) cell.classList.add("cell-pending");
        label = format(words[added.kind], { cell: name, piece: pieces[added.piece] });
      } else if (added && added.kind === "overlay") {
        cell.classList.add("cell-overlay");
        if (added.className) cell.classList.add(added.className);
      }
      cell.setAttribute("aria-label", label);
    }
  }
}
