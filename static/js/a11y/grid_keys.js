/*
 * The board's grid by keys (docs/accessibility.md), for the game page, the analysis board and the
 * puzzles: one cell takes the Tab (the last one visited), and from it the arrows move one cell,
 * Home/End go to the row's ends, PageUp/PageDown to the column's ends, Ctrl+Home/End to A1/L12.
 * Those keys stop at the grid: outside it a page may give them other work.
 */
import { COLUMNS, SIZE } from "../lib/notation.js";

/** The cell a navigation key leads to from `name`, or null for any other key. */
export function keyTarget(name, event) {
  const column = COLUMNS.indexOf(name[0]);
  const row = Number(name.slice(1));
  const last = COLUMNS[COLUMNS.length - 1];
  const at = (c, r) => COLUMNS[Math.min(SIZE - 1, Math.max(0, c))] + Math.min(SIZE, Math.max(1, r));
  switch (event.key) {
    case "ArrowLeft":
      return at(column - 1, row);
    case "ArrowRight":
      return at(column + 1, row);
    case "ArrowUp":
      return at(column, row - 1);
    case "ArrowDown":
      return at(column, row + 1);
    case "Home":
      return event.ctrlKey ? COLUMNS[0] + 1 : COLUMNS[0] + row;
    case "End":
      return event.ctrlKey ? last + SIZE : last + row;
    case "PageUp":
      return name[0] + 1;
    case "PageDown":
      return name[0] + SIZE;
    default:
      return null;
  }
}

/** Make `board`'s grid (lib/board.js) one Tab stop walked by keys. */
export function rovingGrid(board, start = "F6") {
  let current = start;
  const update = () => {
    for (const [name, cell] of board.cells) cell.tabIndex = name === current ? 0 : -1;
  };
  board.grid.addEventListener("focusin", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    if (cell && cell.dataset.cell !== current) {
      current = cell.dataset.cell;
      update();
    }
  });
  board.grid.addEventListener("keydown", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    const target = cell && keyTarget(cell.dataset.cell, event);
    if (!target) return;
    event.preventDefault();
    event.stopPropagation(); // the page's own arrow keys (stepping through a line) wait outside
    board.cells.get(target).focus();
  });
  update();
}
