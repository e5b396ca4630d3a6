/*
 * The replay: step through a game's turns (buttons, ←/→, Home/End, or a click on a turn or on
 * the chart). The board after each turn is rebuilt here from the turns' placements (board.js).
 *
 * Hook for the post-game analysis (static/js/analysis.js, loaded after this file):
 *
 *   document "replay:ready"  CustomEvent, detail {state, replay}: once, at the window's "load" (after
 *                            every deferred script has run, so analysis.js can listen first).
 *   document "replay:step"   CustomEvent, detail {ply, total, turn}: after every step (and once
 *                            right after "replay:ready"). `turn` is the turn just played (null
 *                            at ply 0).
 *   event.detail.replay of "replay:ready" = {
 *     state,                 the game as API.md describes it
 *     ply, total,            the turn shown (0 = empty board) and the number of turns
 *     goTo(ply),             show the board after turn `ply`
 *     showMarks(marks),      marks: [{ply, text, title?, className?}]: a mark in that turn's row
 *                            of the turn list (a button that shows that turn; the title is
 *                            also its accessible text) and a dot on the chart; replaces earlier
 *                            marks
 *     clearMarks(),
 *     drawBoardOverlay(move, {seat?, className?, before?}):  outline placements ("SF5 RF6 HF7"
 *                            or [{piece, cell}]) on the board shown (with `before`: on the board
 *                            before the turn shown, as an alternative to it); roofs in `seat`'s
 *                            colour. The overlay is cleared at every step: redraw it on
 *                            "replay:step".
 *     clearBoardOverlay(),
 *   }
 */
import { Board } from "./lib/board.js";
import { seatWords } from "./a11y/game.js";
import { emptyBoard, parseMove, place } from "./lib/notation.js";
import { hintMark, renderResult, renderSeats, seatName } from "./lib/seats.js";
import { format, readJSON } from "./lib/util.js";

const replayPage = document.getElementById("replay-page");
if (replayPage) start(replayPage);

function start(page) {
  const strings = readJSON("game-strings");
  const state = readJSON("game-state");
  const turns = state.turns;
  const total = turns.length;
  const seatCount = state.seats.length;
  const board = new Board(document.getElementById("replay-board"), strings);
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";

  // Running scores and roofs after each ply: index 0 is the start.
  const scores = [new Array(seatCount).fill(0)];
  const roofs = [new Array(seatCount).fill(15)];
  const boards = [emptyBoard()];
  turns.forEach((turn, index) => {
    scores.push(scores[index].map((score, seat) => score + (turn.points[seat] || 0)));
    const placements = parseMove(turn.move) || [];
    const used = placements.filter((p) => p.piece === "R").length;
    roofs.push(roofs[index].map((left, seat) => (seat + 1 === turn.seat ? left - used : left)));
    boards.push(place(boards[index], placements, turn.seat));
  });

  let ply = total;
  let overlay = [];
  let overlaySeat = 1;
  let marks = [];

  function goTo(target) {
    const next = Math.max(0, Math.min(total, Number(target) || 0));
    ply = next;
    overlay = [];
    render();
    document.dispatchEvent(
      new CustomEvent("replay:step", { detail: { ply, total, turn: ply ? turns[ply - 1] : null } })
    );
  }

  const owner = (seat) => seatWords(state, seat, strings);

  function render() {
    const turn = ply ? turns[ply - 1] : null;
    board.render(boards[ply], {
      last: turn ? (parseMove(turn.move) || []).map((p) => p.cell) : [],
      overlay,
      seat: overlaySeat,
      owner, // "D4: roof of Ana (player 1)"
    });
    const next = ply < total ? turns[ply].seat : null;
    renderSeats($("seat-panels"), state.seats, {
      strings,
      scores: scores[ply],
      roofs: roofs[ply],
      deltas: turn ? turn.points : null,
      toMove: state.status === "finished" && ply === total ? null : next || state.to_move,
      winners: state.result && ply === total && state.ply > 0 ? state.result.winners : [],
      teamBox: $("team-sums"),
    });
    $("replay-position").textContent = ply
      ? format(strings.replay.position, { ply, total })
      : strings.replay.start;
    renderMove(turn);
    renderTurnList();
    renderButtons();
    drawChart();
  }

  function renderMove(turn) {
    const box = $("replay-move");
    box.replaceChildren();
    if (!turn) return;
    const seat = state.seats[turn.seat - 1];
    const chip = document.createElement("span");
    chip.className = "seat-chip seat-" + turn.seat;
    chip.textContent = format(strings.replay.played, {
      name: seatName(seat, strings),
      move: turn.move,
    });
    box.appendChild(chip);
    if (turn.hint) box.appendChild(hintMark(strings));
  }

  function renderTurnList() {
    const list = $("turn-list");
    if (!list) return;
    for (const row of list.querySelectorAll("tbody tr[data-ply]")) {
      const current = Number(row.dataset.ply) === ply;
      row.classList.toggle("is-current", current);
      if (current) {
        row.setAttribute("aria-current", "step");
        const box = list.parentElement;
        const top = row.offsetTop - box.clientHeight / 2;
        box.scrollTop = Math.max(0, top);
      } else {
        row.removeAttribute("aria-current");
      }
    }
  }

  function renderButtons() {
    for (const button of page.querySelectorAll("[data-step]")) {
      const step = button.dataset.step;
      button.disabled = step === "first" || step === "previous" ? ply === 0 : ply === total;
    }
  }

  // -- chart -------------------------------------------------------------------------------------

  const chart = { width: 640, height: 240, left: 40, right: 28, top: 14, bottom: 30 };

  function svg(name, attributes, parent) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes || {})) element.setAttribute(key, value);
    if (parent) parent.appendChild(element);
    return element;
  }

  /** Whole-number axis: a step of 1, 2, 5, 10, 20, 25, 50, … giving at most five intervals. */
  function axisScale(value) {
    const steps = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
    const step = steps.find((candidate) => value / candidate <= 5) || Math.ceil(value / 5);
    return { step, top: Math.max(step, Math.ceil(value / step) * step) };
  }

  /** Spread labels at the lines' ends so that they do not overlap (at least `gap` apart). */
  function spreadLabels(positions, gap) {
    const order = positions.map((y, index) => ({ y, index })).sort((a, b) => a.y - b.y);
    for (let i = 1; i < order.length; i += 1) {
      order[i].y = Math.max(order[i].y, order[i - 1].y + gap);
    }
    const spread = [];
    for (const item of order) spread[item.index] = item.y;
    return spread;
  }

  function drawChart() {
    const root = $("score-chart");
    if (!root) return;
    root.replaceChildren();
    // Draw at the width shown, so that the labels keep their size on a phone.
    chart.width = Math.round(Math.min(640, Math.max(300, root.clientWidth || 640)));
    root.setAttribute("viewBox", "0 0 " + chart.width + " " + chart.height);
    const { step, top } = axisScale(Math.max(1, ...scores.flat()));
    const plotWidth = chart.width - chart.left - chart.right;
    const plotHeight = chart.height - chart.top - chart.bottom;
    const x = (p) => chart.left + (total ? (p / total) * plotWidth : 0);
    const y = (value) => chart.top + plotHeight - (value / top) * plotHeight;

    const grid = svg("g", { class: "chart-grid" }, root);
    for (let value = 0; value <= top; value += step) {
      svg("line", { x1: chart.left, x2: chart.width - chart.right, y1: y(value), y2: y(value) }, grid);
      const label = svg("text", { x: chart.left - 6, y: y(value) + 4, class: "chart-label chart-label-y" }, grid);
      label.textContent = value;
    }
    const xStep = Math.max(1, Math.ceil(total / 10));
    for (let p = 0; p <= total; p += xStep) {
      const label = svg("text", { x: x(p), y: chart.height - 12, class: "chart-label chart-label-x" }, grid);
      label.textContent = p;
    }
    const axis = svg("text", { x: chart.width - chart.right, y: chart.height - 1, class: "chart-axis" }, grid);
    axis.textContent = strings.replay.turn_axis;

    const ends = spreadLabels(scores[total].map((score) => y(score) + 4), 12);
    for (let seat = 0; seat < seatCount; seat += 1) {
      const points = scores.map((row, p) => x(p).toFixed(1) + "," + y(row[seat]).toFixed(1)).join(" ");
      svg("polyline", { points, class: "chart-line seat-" + (seat + 1) }, root);
      const end = svg("text", { x: x(total) + 6, y: ends[seat], class: "chart-end seat-" + (seat + 1) }, root);
      end.textContent = seat + 1;
    }

    for (const mark of marks) {
      if (mark.ply < 1 || mark.ply > total) continue;
      const dot = svg("circle", {
        cx: x(mark.ply),
        cy: chart.top + plotHeight,
        r: 4,
        class: "chart-mark " + (mark.className || ""),
      }, root);
      const title = svg("title", {}, dot);
      title.textContent = mark.title || mark.text || "";
    }

    svg("line", {
      x1: x(ply), x2: x(ply), y1: chart.top, y2: chart.top + plotHeight, class: "chart-cursor",
    }, root);
    for (let seat = 0; seat < seatCount; seat += 1) {
      svg("circle", { cx: x(ply), cy: y(scores[ply][seat]), r: 3.5, class: "chart-dot seat-" + (seat + 1) }, root);
    }
  }

  function chartClick(event) {
    const root = $("score-chart");
    const box = root.getBoundingClientRect();
    const scale = chart.width / box.width;
    const position = (event.clientX - box.left) * scale;
    const plotWidth = chart.width - chart.left - chart.right;
    goTo(Math.round(((position - chart.left) / plotWidth) * total));
  }

  // -- hook for the analysis ---------------------------------------------------------------------

  function showMarks(list) {
    marks = Array.isArray(list) ? list : [];
    const table = $("turn-list");
    if (table) {
      for (const box of table.querySelectorAll(".turn-marks")) box.replaceChildren();
      for (const mark of marks) {
        const row = table.querySelector('tbody tr[data-ply="' + Number(mark.ply) + '"] .turn-marks');
        if (!row) continue;
        // A button, so that the reason is a tap (or Enter) away: it shows that turn, whose
        // analysis sits beside the board. The title is a hover's shortcut to the same words.
        const button = document.createElement("button");
        button.type = "button";
        button.className = "link-button turn-mark " + (mark.className || "");
        button.dataset.ply = String(mark.ply);
        const text = document.createElement("span");
        text.setAttribute("aria-hidden", "true");
        text.textContent = mark.text || "•";
        button.appendChild(text);
        if (mark.title) {
          button.title = mark.title;
          const words = document.createElement("span");
          words.className = "visually-hidden";
          words.textContent = mark.title;
          button.appendChild(words);
        }
        button.addEventListener("click", () => goTo(mark.ply));
        row.append(" ", button);
      }
    }
    drawChart();
  }

  function drawBoardOverlay(move, options = {}) {
    overlay = typeof move === "string" ? parseMove(move) || [] : [...(move || [])];
    if (options.className) overlay = overlay.map((p) => ({ ...p, className: options.className }));
    overlaySeat = options.seat || (ply < total ? turns[ply].seat : 1);
    const before = Boolean(options.before) && ply > 0 && overlay.length > 0;
    const turn = ply && !before ? turns[ply - 1] : null;
    board.render(boards[before ? ply - 1 : ply], {
      last: turn ? (parseMove(turn.move) || []).map((p) => p.cell) : [],
      overlay,
      seat: overlaySeat,
      owner, // "D4: roof of Ana (player 1)"
    });
  }

  function clearBoardOverlay() {
    drawBoardOverlay([]);
  }

  const replay = {
    state,
    total,
    get ply() {
      return ply;
    },
    goTo,
    showMarks,
    clearMarks: () => showMarks([]),
    drawBoardOverlay,
    clearBoardOverlay,
  };

  // -- events ------------------------------------------------------------------------------------

  const steps = {
    first: () => goTo(0),
    previous: () => goTo(ply - 1),
    next: () => goTo(ply + 1),
    last: () => goTo(total),
  };

  for (const button of page.querySelectorAll("[data-step]")) {
    button.addEventListener("click", () => steps[button.dataset.step]());
  }
  for (const button of page.querySelectorAll(".turn-jump")) {
    button.addEventListener("click", () => goTo(Number(button.dataset.ply)));
  }
  const chartElement = $("score-chart");
  if (chartElement) chartElement.addEventListener("click", chartClick);
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(drawChart, 150);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select")) return;
    const action = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" }[event.key];
    if (action) {
      event.preventDefault();
      steps[action]();
    }
  });

  renderResult(document.getElementById("result-banner"), state, strings);
  render();
  // Announce once every deferred script (analysis.js among them) has had a chance to listen.
  function announce() {
    document.dispatchEvent(new CustomEvent("replay:ready", { detail: { state, replay } }));
    document.dispatchEvent(
      new CustomEvent("replay:step", { detail: { ply, total, turn: ply ? turns[ply - 1] : null } })
    );
  }
  if (document.readyState === "complete") window.setTimeout(announce, 0);
  else window.addEventListener("load", announce, { once: true });
}
