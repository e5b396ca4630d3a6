/*
 * The analysis board (/analysis/). The line being studied is a game record (RULES.md): a start
 * (empty, or a set-up position) and moves. The server's engine answers everything:
 *   POST /api/analysis/line/  the positions along the line
 *   POST /api/analysis/turn/  a turn in progress: points so far, the most it can still reach
 *   POST /api/analysis/best/  the exact best turn and the best few
 * Playing a turn at an earlier position replaces the rest of the line.
 */
import * as Learn from "./lib/learn.js";
import { BOARD_CHARS } from "./codec.js";
import { Board } from "./lib/board.js";
import { COLUMNS, emptyBoard, parseMove } from "./lib/notation.js";
import { format, plural, readJSON } from "./lib/util.js";

function main() {
  const $ = (id) => document.getElementById(id);
  const initial = readJSON("analysis-initial");
  const strings = readJSON("learn-strings");
  const words = strings.learn;
  const board = new Board($("analysis-board"), strings);

  let record = normalise(initial.record);
  let line = null;
  let cursor = 0;
  let reach = null;
  let shown = null; // a best turn shown on the board
  let errorCell = null;
  let editRows = emptyBoard();
  let editPiece = BOARD_CHARS.sun;

  function normalise(raw) {
    const result = { players: raw.players || 2, variant: raw.variant || "standard", moves: raw.moves || [] };
    if (raw.setup) result.setup = raw.setup;
    return result;
  }

  function editing() {
    return $("setup-box").open;
  }

  function state() {
    return line ? line.states[cursor] : null;
  }

  function recordAt(ply) {
    return { ...record, moves: record.moves.slice(0, ply) };
  }

  const say = Learn.messenger("analysis-message");

  const builder = new Learn.TurnBuilder({
    board,
    picker: "#play-picker",
    rows: () => (state() ? state().board : emptyBoard()),
    seat: () => (state() ? state().to_move : 1),
    enabled: () => !editing() && state() && !state().over,
    onChange: checkTurn,
    onError: (message) => say(message, "error"),
    badNotation: strings.bad_notation,
    throttled: words.throttled,
  });

  async function load(ply) {
    const answer = await Learn.post("/api/analysis/line/", { record });
    if (!answer.ok) {
      say(answer.data.error, "error");
      return false;
    }
    line = answer.data;
    if (line.error) {
      say(format("%(turn)s: %(message)s", { turn: line.error.turn + 1, message: line.error.message }), "error");
      record.moves = record.moves.slice(0, line.error.turn);
    }
    const last = line.states.length - 1;
    cursor = Math.max(0, Math.min(last, ply === undefined || ply === null ? last : ply));
    builder.placements = [];
    reach = null;
    shown = null;
    render();
    return true;
  }

  function lastCells() {
    if (cursor === 0 || !line) return [];
    return (parseMove(line.turns[cursor - 1].move) || []).map((p) => p.cell);
  }

  function render() {
    if (editing()) {
      board.render(editRows);
      Learn.markCell(board, errorCell);
      return;
    }
    const current = state();
    if (!current) return;
    const overlay = shown ? (parseMove(shown) || []).map((p) => ({ ...p, seat: current.to_move })) : [];
    board.render(current.board, {
      last: lastCells(),
      provisional: builder.placements,
      overlay,
      seat: current.to_move,
      siestas: current.siestas,
    });
    board.grid.classList.toggle("is-playable", !current.over);
    $("analysis-status").textContent = current.over
      ? format(words.over, { reason: strings.end_reasons[current.end_reason] || current.end_reason })
      : format(words.to_move, { seat: current.to_move });
    Learn.seatTable($("analysis-seats"), current, strings);
    $("supply-suns").textContent = current.supply.suns;
    $("supply-shadows").textContent = current.supply.shadows;
    $("analysis-position").textContent =
      cursor === 0 && line.turns.length === 0
        ? words.start
        : format(words.position, { ply: cursor, total: line.turns.length });
    for (const button of document.querySelectorAll("#play-picker .piece-roof")) {
      button.className = "piece piece-roof piece-inline seat-" + (current.to_move || 1);
      button.querySelector(".piece-label").textContent = current.to_move || 1;
    }
    renderTurn();
    renderLine();
    $("share-link").value = shareLink();
  }

  function renderTurn() {
    $("pending-move").textContent = builder.text();
    const info = $("reach");
    const play = $("play-button");
    play.disabled = !(reach && reach.complete);
    if (!builder.placements.length || !reach) {
      info.textContent = builder.placements.length ? words.thinking : "";
      return;
    }
    const parts = [format(words.so_far, { points: reach.so_far })];
    parts.push(reach.reachable > 0 ? format(words.reachable, { points: reach.reachable }) : words.no_reach);
    if (reach.complete) parts.push(words.complete);
    info.textContent = parts.join(" · ");
  }

  function renderLine() {
    const list = $("line-list");
    list.replaceChildren();
    line.turns.forEach((turn, index) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link-button" + (index + 1 === cursor ? " is-current" : "");
      button.textContent = `${index + 1}. ${turn.move}  (+${turn.points[turn.seat - 1]})`;
      button.dataset.ply = index + 1;
      button.setAttribute("aria-current", String(index + 1 === cursor));
      button.addEventListener("click", () => go(index + 1));
      const chip = document.createElement("span");
      chip.className = "seat-chip seat-" + turn.seat;
      chip.textContent = turn.seat;
      item.append(chip, " ", button);
      list.appendChild(item);
    });
  }

  function go(ply) {
    if (!line) return;
    cursor = Math.max(0, Math.min(line.states.length - 1, ply));
    builder.placements = [];
    reach = null;
    shown = null;
    $("best-list").replaceChildren();
    say("");
    render();
  }

  async function checkTurn(placements) {
    reach = null;
    shown = null;
    render();
    if (!placements.length) return;
    const data = await builder.check({ record: recordAt(cursor) }, render);
    if (!data) return;
    say("");
    reach = data;
    renderTurn();
  }

  async function playMove(move) {
    const before = record.moves.slice();
    record.moves = record.moves.slice(0, cursor).concat([move]);
    const target = cursor + 1;
    if (!(await load(target))) record.moves = before;
    $("best-list").replaceChildren();
  }

  async function askBest() {
    if (!state() || state().over) return;
    $("best-list").replaceChildren();
    say(words.thinking);
    const count = Number($("best-count").value) || 5;
    const answer = await Learn.post("/api/analysis/best/", { record: recordAt(cursor), count });
    if (!answer.ok) {
      say(Learn.refusal(answer, words.throttled), "error");
      return;
    }
    const data = answer.data;
    say(data.move ? plural(words.best, data.points, { move: data.move, points: data.points }) : words.no_best);
    for (const item of data.top) {
      const li = document.createElement("li");
      const show = document.createElement("button");
      show.type = "button";
      show.className = "link-button move-text";
      show.textContent = item.move;
      show.addEventListener("click", () => {
        shown = shown === item.move ? null : item.move;
        render();
      });
      const points = document.createElement("span");
      points.textContent = " " + plural(words.points, item.points, { points: item.points }) + " ";
      const play = document.createElement("button");
      play.type = "button";
      play.className = "button-small button-secondary";
      play.textContent = $("play-button").textContent;
      play.addEventListener("click", () => playMove(item.move));
      li.append(show, points, play);
      $("best-list").appendChild(li);
    }
  }

  // -- share, export, import ---------------------------------------------------------------------

  function encode(value) {
    const bytes = new TextEncoder().encode(JSON.stringify(value));
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function shareLink() {
    return `${location.origin}/analysis/?r=${encode(record)}&ply=${cursor}`;
  }

  function exportRecord() {
    const blob = new Blob([JSON.stringify(record, null, 2)], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "siesta-analysis.json";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  async function importText(text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch (error) {
      say(String(error), "error");
      return;
    }
    const previous = record;
    record = normalise(data);
    if (!(await load())) record = previous;
    else $("import-box").open = false;
  }

  // -- position setup ----------------------------------------------------------------------------

  function numbers(text) {
    const parts = String(text || "").split(/[\s,]+/).filter(Boolean);
    return parts.length ? parts.map(Number) : null;
  }

  function setupPosition() {
    const position = {
      players: Number($("setup-players").value),
      variant: $("setup-variant").value,
      board: editRows,
      to_move: Number($("setup-to-move").value),
    };
    const supply = {};
    if ($("setup-suns").value !== "") supply.suns = Number($("setup-suns").value);
    if ($("setup-shadows").value !== "") supply.shadows = Number($("setup-shadows").value);
    const roofs = numbers($("setup-roofs").value);
    if (roofs) supply.roofs = roofs;
    if (Object.keys(supply).length) position.supply = supply;
    const scores = numbers($("setup-scores").value);
    if (scores) position.scores = scores;
    return position;
  }

  async function useSetup() {
    errorCell = null;
    const position = setupPosition();
    const answer = await Learn.post("/api/analysis/line/", { position });
    if (!answer.ok) {
      errorCell = answer.data.cell || null;
      $("setup-error").textContent = answer.data.error;
      render();
      return;
    }
    $("setup-error").textContent = "";
    const { players, variant, ...setup } = position;
    record = { players, variant, setup, moves: [] };
    $("setup-box").open = false;
    await load(0);
    say(words.setup_ok);
  }

  function editCell(cell) {
    const row = Number(cell.slice(1)) - 1;
    const column = COLUMNS.indexOf(cell[0]);
    const chars = editRows[row].split("");
    chars[column] = chars[column] === editPiece ? BOARD_CHARS.empty : editPiece;
    editRows[row] = chars.join("");
    errorCell = null;
    render();
  }

  // -- wiring ------------------------------------------------------------------------------------

  board.grid.addEventListener("click", (event) => {
    const cell = event.target.closest(".cell[data-cell]");
    if (cell && editing()) editCell(cell.dataset.cell);
  });
  for (const button of document.querySelectorAll("#setup-picker [data-char]")) {
    button.addEventListener("click", () => {
      editPiece = button.dataset.char;
      for (const other of document.querySelectorAll("#setup-picker [data-char]")) {
        other.setAttribute("aria-pressed", String(other === button));
      }
    });
  }
  $("setup-box").addEventListener("toggle", () => {
    if (editing() && state()) editRows = state().board.slice();
    render();
  });
  $("setup-clear").addEventListener("click", () => {
    editRows = emptyBoard();
    render();
  });
  $("setup-use").addEventListener("click", useSetup);
  $("play-button").addEventListener("click", () => playMove(builder.text()));
  Learn.commandLine({
    builder,
    strings,
    confirmId: "play-button",
    getState: () =>
      Learn.commandState(
        { players: record.players, ...(state() || { board: emptyBoard(), scores: [], supply: {} }) },
        line ? line.turns.slice(0, cursor) : [],
        strings
      ),
  });
  $("best-button").addEventListener("click", askBest);
  for (const button of document.querySelectorAll("[data-step]")) {
    button.addEventListener("click", () => {
      const step = button.dataset.step;
      const last = line ? line.states.length - 1 : 0;
      go({ first: 0, previous: cursor - 1, next: cursor + 1, last }[step]);
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowLeft") go(cursor - 1);
    else if (event.key === "ArrowRight") go(cursor + 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(line ? line.states.length - 1 : 0);
  });
  $("copy-link").addEventListener("click", async () => {
    $("share-link").select();
    try {
      await navigator.clipboard.writeText($("share-link").value);
      say(words.copied);
    } catch (error) {
      document.execCommand("copy");
    }
  });
  $("export-button").addEventListener("click", exportRecord);
  $("import-button").addEventListener("click", () => importText($("import-text").value));
  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    if (file) importText(await file.text());
  });

  if (initial.error) say(initial.error, "error");
  load(initial.ply);
}

main();
