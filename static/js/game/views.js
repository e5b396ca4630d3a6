/*
 * The live game page's views, each drawn from the store's state (and, for the turn controls,
 * the turn being built): status line, move list, clock, messages and controls.
 */
import { parseMove } from "../lib/notation.js";
import { hintMark, seatName } from "../lib/seats.js";
import { byId, format } from "../lib/util.js";

export function seatLabel(state, seatNumber, strings) {
  const seat = state.seats.find((s) => s.seat === seatNumber);
  return seat ? seatName(seat, strings) : format(strings.seat, { seat: seatNumber });
}

/** Cells of every turn since my last one (a spectator: the last round), by the seat that moved. */
export function recentMarks(state, mySeat) {
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
    for (const p of parseMove(turn.move) || []) marks.set(p.cell, turn.seat);
  }
  return marks;
}

/** The message next to the side controls. */
export function showSide(text, kind) {
  const box = byId("play-message");
  if (!box) return;
  box.textContent = text;
  box.className = "play-message play-message-" + (kind || "info");
}

/** A refusal, shown over the board where the eye is; it stays until the next placement. */
export function showBoardMessage(text) {
  byId("board-message").textContent = text;
}

export function renderStatus(state, myTurn, strings, baseTitle) {
  let text;
  if (state.status === "open") text = strings.status.open;
  else if (state.status === "finished") text = strings.status.finished;
  else if (state.status === "cancelled") text = strings.status.cancelled;
  else if (myTurn) text = strings.status.your_turn;
  else text = format(strings.status.their_turn, { name: seatLabel(state, state.to_move, strings) });
  const status = byId("game-status");
  status.replaceChildren();
  if (state.status === "active" && state.to_move) {
    const dot = document.createElement("span");
    dot.className = "turn-dot seat-" + state.to_move;
    dot.setAttribute("aria-hidden", "true");
    status.appendChild(dot);
  }
  status.appendChild(document.createTextNode(text));
  status.classList.toggle("is-mine", myTurn);
  document.title = myTurn ? strings.your_turn_title + " " + baseTitle : baseTitle;
}

export function renderMoves(state, marks, strings) {
  const body = byId("move-list").querySelector("tbody");
  body.replaceChildren();
  const recentPlies = new Set();
  for (const turn of state.turns) {
    for (const p of parseMove(turn.move) || []) {
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
    chip.textContent = seatLabel(state, turn.seat, strings);
    who.appendChild(chip);
    if (turn.hint) who.appendChild(hintMark(strings));
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
        .map((p) => format(strings.points_for, { name: seatLabel(state, p.seat, strings), points: p.value }))
        .join(", ");
      points.textContent += " (" + others.map((p) => "+" + p.value).join(" ") + ")";
    }
    row.append(number, who, move, points);
    body.appendChild(row);
  }
  byId("no-moves").hidden = state.turns.length > 0;
  const legend = byId("points-legend");
  if (legend) legend.hidden = state.turns.length === 0;
  const box = body.closest(".turn-list-box");
  box.scrollTop = box.scrollHeight;
}

function pad(number) {
  return String(number).padStart(2, "0");
}

export function renderClock(state, myTurn, strings) {
  const box = byId("clock-box");
  if (!box) return;
  const note = byId("forfeit-note");
  if (note) note.hidden = !state.forfeit_on_timeout || state.status !== "active";
  if (!state.deadline || state.status !== "active") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  byId("clock-label").textContent = myTurn
    ? strings.clock_yours
    : format(strings.clock_of, { name: seatLabel(state, state.to_move, strings) });
  const left = Math.max(0, Math.floor((Date.parse(state.deadline) - Date.now()) / 1000));
  const days = Math.floor(left / 86400);
  const hours = Math.floor((left % 86400) / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  const seconds = left % 60;
  let text = hours || days ? hours + ":" + pad(minutes) + ":" + pad(seconds) : minutes + ":" + pad(seconds);
  if (days) text = format(strings.clock_days, { days, time: text });
  const clock = byId("clock");
  clock.textContent = text;
  clock.setAttribute("datetime", state.deadline);
  box.className = "clock seat-" + state.to_move + (left <= 10 ? " clock-low" : "");
}
