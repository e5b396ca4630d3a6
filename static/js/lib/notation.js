/*
 * Turns in the notation and board text (RULES.md), with the engine's characters (../codec.js,
 * generated from games/engine). Pure: no DOM, so Node runs it in tests/games/test_pages_js.py.
 */
import { BOARD_CHARS, COLUMNS, PIECES, SIZE } from "../codec.js";

export { COLUMNS, SIZE };

const LETTERS = Object.values(PIECES).join("");
const PLACEMENT = new RegExp("^([" + LETTERS + "])([" + COLUMNS + "])(\\d{1,2})$");

/** "SF5 RF6 HF7" → [{piece: "S", cell: "F5"}, ...], or null when it is not the notation. */
export function parseMove(text) {
  const parts = String(text || "").trim().toUpperCase().split(/[\s,;]+/).filter(Boolean);
  if (!parts.length) return null;
  const placements = [];
  for (const part of parts) {
    const match = PLACEMENT.exec(part);
    if (!match) return null;
    const row = Number(match[3]);
    if (row < 1 || row > SIZE) return null;
    placements.push({ piece: match[1], cell: match[2] + row });
  }
  return placements;
}

export function moveText(placements) {
  return placements.map((p) => p.piece + p.cell).join(" ");
}

/** "F5" → {row: 4, column: 5} (0-based). */
export function cellIndex(cell) {
  return { row: Number(cell.slice(1)) - 1, column: COLUMNS.indexOf(cell[0]) };
}

export function emptyBoard() {
  return Array.from({ length: SIZE }, () => BOARD_CHARS.empty.repeat(SIZE));
}

/** The board character of a piece letter placed by `seat`. */
export function charOf(piece, seat) {
  if (piece === PIECES.SUN) return BOARD_CHARS.sun;
  if (piece === PIECES.SHADOW) return BOARD_CHARS.shadow;
  return BOARD_CHARS.roofs[seat - 1];
}

/** What a board character holds: {kind: "empty" | "sun" | "shadow" | "roof", seat}. */
export function decodeChar(char) {
  if (char === BOARD_CHARS.sun) return { kind: "sun", seat: null };
  if (char === BOARD_CHARS.shadow) return { kind: "shadow", seat: null };
  const roof = BOARD_CHARS.roofs.indexOf(char);
  if (roof >= 0) return { kind: "roof", seat: roof + 1 };
  return { kind: "empty", seat: null };
}

/** Put placements on board rows (a copy): roofs take `seat`'s character. */
export function place(rows, placements, seat) {
  const grid = rows.map((line) => line.split(""));
  for (const p of placements) {
    const { row, column } = cellIndex(p.cell);
    grid[row][column] = charOf(p.piece, seat);
  }
  return grid.map((chars) => chars.join(""));
}

/** Board rows (12 strings) after the first `ply` turns. */
export function boardAfter(turns, ply) {
  let rows = emptyBoard();
  for (const turn of turns.slice(0, ply)) {
    rows = place(rows, parseMove(turn.move) || [], turn.seat);
  }
  return rows;
}
