/*
 * Post-game analysis on the replay page (templates/games/_analysis.html).
 *
 * Fetches GET /api/games/<id>/analysis/ (the section's data-url) and polls while it answers
 * "pending". Once done it shows, through the replay's hook (static/js/replay.js, top comment):
 *   - marks in the turn list (and dots on the score chart) for turns that missed 3+ points:
 *     "?!" from 3, "??" from 6;
 *   - beside the board, for the turn on the board (the one just played), what it scored against
 *     the best (exact), and a button that draws the best turn on the board before it; then the
 *     expert's view (a look-ahead search: how far ahead or behind the turn leaves its player once
 *     the others have replied, the turn the expert would play, and why); turns the expert counts
 *     as mistakes get a "✗" mark. The marks are buttons: a tap shows that turn and its reason;
 *   - a table per player (scored, available, missed, accuracy, biggest misses);
 *   - an SVG chart per player: for each of their turns, the points available (outlined bar) and
 *     the points scored (filled bar).
 * Words come translated from the template (#analysis-strings).
 */
import { seatName as nameOfSeat } from "./lib/seats.js";
import { format, plural, readJSON } from "./lib/util.js";

const analysisSection = document.getElementById("analysis");
if (analysisSection) start(analysisSection);

function start(section) {
  const BIG_MISS = 3;
  const HUGE_MISS = 6;
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);

  const words = {};
  for (const item of section.querySelectorAll("#analysis-strings [data-key]")) {
    words[item.dataset.key] = item.textContent.trim();
  }
  const pageStrings = readJSON("game-strings") || {};
  const language = document.documentElement.lang || undefined;
  const percent = new Intl.NumberFormat(language, {
    style: "percent",
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  });
  const number = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });

  let replay = null; // the replay's hook (replay.js), once the replay is ready
  let analysis = null; // the API's answer once done
  let showBest = false;
  let pollDelay = 1500;
  let pollStarted = 0;
  const POLL_MAX_DELAY = 10000;
  const POLL_GIVE_UP = 10 * 60 * 1000;

  function setStatus(text) {
    $("analysis-status").textContent = text || "";
    $("analysis-status").hidden = !text;
  }

  function seatName(seatNumber) {
    const seat = replay && replay.state.seats[seatNumber - 1];
    return seat ? nameOfSeat(seat, pageStrings) : String(seatNumber);
  }

  // -- fetching ----------------------------------------------------------------------------------

  async function poll() {
    let body;
    try {
      const response = await fetch(section.dataset.url, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!response.ok) throw new Error(String(response.status));
      body = await response.json();
    } catch (error) {
      setStatus(words.failed);
      return;
    }
    if (body.status === "done") {
      analysis = body;
      show();
      return;
    }
    if (Date.now() - pollStarted > POLL_GIVE_UP) {
      setStatus(words.failed);
      return;
    }
    setStatus(words.pending);
    window.setTimeout(poll, pollDelay);
    pollDelay = Math.min(POLL_MAX_DELAY, Math.round(pollDelay * 1.5));
  }

  // -- showing -----------------------------------------------------------------------------------

  function turnAt(ply) {
    return analysis ? analysis.turns.find((turn) => turn.ply === ply) || null : null;
  }

  function show() {
    setStatus(words.done + " " + words.mistakes_done);
    $("analysis-body").hidden = false;
    replay.showMarks(marks());
    renderTable();
    renderChart();
    renderTurn();
  }

  function marks() {
    const result = [];
    for (const turn of analysis.turns) {
      const expert = turn.expert;
      const mistake = expert && expert.mistake ? reasonOf(expert) || words.mistake : null;
      if (turn.missed >= BIG_MISS) {
        const title = format(words.mark_title, {
          missed: turn.missed,
          move: turn.best_move,
          best: turn.best_points,
        });
        result.push({
          ply: turn.ply,
          text: (turn.missed >= HUGE_MISS ? "??" : "?!") + (mistake ? " ✗" : ""),
          title: mistake ? title + " " + words.mistake + " " + mistake : title,
          className: turn.missed >= HUGE_MISS ? "mark-blunder" : "mark-miss",
        });
      } else if (mistake) {
        result.push({
          ply: turn.ply,
          text: "✗",
          title: words.mistake + " " + mistake,
          className: "mark-mistake",
        });
      }
    }
    return result;
  }

  function reasonOf(expert) {
    if (!expert || expert.reason === "as_good") return "";
    const template = words["reason_" + expert.reason];
    return template ? format(template, { points: expert.reason_points }) : "";
  }

  /* A lead as words: "ahead by 3", "behind by 12" (never "a lead of −12"), or level. */
  function standing(lead) {
    const value = Number(lead) || 0;
    if (value > 0) return format(words.lead_ahead, { points: number.format(value) });
    if (value < 0) return format(words.lead_behind, { points: number.format(-value) });
    return words.lead_level;
  }

  /* The expert's view of a turn: where it leaves its player, the expert's turn, and why. */
  function expertText(turn) {
    const expert = turn.expert;
    if (!expert) return "";
    const same = expert.best_move === turn.move || expert.reason === "as_good";
    const line = format(same ? words.expert_same : words.expert_line, {
      lead: standing(expert.lead),
      move: expert.best_move,
      best: standing(expert.best_lead),
    });
    const mistake = expert.mistake ? words.mistake : "";
    return [words.expert_label, line, mistake, same ? "" : reasonOf(expert)]
      .filter(Boolean)
      .join(" ");
  }

  /* The turn on the board (the one just played): what it scored against the best, the best
     turn (drawn on the board before it on request), and the expert's view. */
  function renderTurn() {
    if (!analysis || !replay) return;
    const box = $("analysis-turn");
    if (!box) return;
    box.hidden = false;
    const turn = turnAt(replay.ply);
    const text = $("analysis-turn-text");
    const button = $("analysis-best-button");
    if (!turn) {
      text.textContent = words.no_turn;
      text.classList.remove("is-miss");
      button.hidden = true;
      return;
    }
    const parts = [
      words.exact_label,
      format(words.turn, {
        ply: turn.ply,
        name: seatName(turn.seat),
        played: turn.played_points,
        best: turn.best_points,
      }),
    ];
    if (turn.best_move) parts.push(format(words.next_best, { move: turn.best_move }));
    if (turn.hint) parts.push(words.next_hint);
    const view = expertText(turn);
    if (view) parts.push(view);
    text.textContent = parts.join(" ");
    text.classList.toggle("is-miss", turn.missed >= BIG_MISS || Boolean(turn.expert?.mistake));
    button.hidden = !turn.best_move;
    button.textContent = showBest ? words.hide_best : words.show_best;
    button.setAttribute("aria-pressed", String(showBest));
    if (showBest && turn.best_move) {
      replay.drawBoardOverlay(turn.best_move, {
        seat: turn.seat,
        className: "analysis-best",
        before: true,
      });
    }
  }

  function renderTable() {
    const body = $("analysis-table").querySelector("tbody");
    body.replaceChildren();
    // Each cell keeps its column's heading: on phones the rows become cards (analysis.css).
    const labels = [...$("analysis-table").querySelectorAll("thead th")].map((th) => th.textContent);
    for (const player of analysis.players) {
      const row = document.createElement("tr");
      const name = document.createElement("th");
      name.scope = "row";
      const chip = document.createElement("span");
      chip.className = "seat-chip seat-" + player.seat;
      chip.textContent = seatName(player.seat);
      name.appendChild(chip);
      row.appendChild(name);
      const accuracy = percent.format(player.accuracy / 100);
      const values = [player.points, player.available, player.missed_total, accuracy, player.hints];
      values.forEach((value, index) => {
        const cell = document.createElement("td");
        cell.className = "number";
        cell.dataset.label = labels[index + 1] || "";
        cell.textContent = value === undefined ? "" : value;
        row.appendChild(cell);
      });
      const misses = document.createElement("td");
      misses.dataset.label = labels[labels.length - 1] || "";
      const list = player.biggest_misses || [];
      // One box for the list, so that on phones (a flex line per figure) the commas stay
      // between the turns instead of floating on their own.
      const missList = document.createElement("span");
      missList.className = "miss-list";
      if (!list.length) missList.textContent = words.no_miss;
      list.forEach((miss, index) => {
        if (index) missList.appendChild(document.createTextNode(", "));
        const link = document.createElement("button");
        link.type = "button";
        link.className = "link-button";
        link.textContent = plural(pageStrings.replay?.miss, miss.missed, {
          ply: miss.ply,
          missed: miss.missed,
        });
        link.title = format(words.miss_title, { ply: miss.ply });
        link.addEventListener("click", () => replay.goTo(miss.ply));
        missList.appendChild(link);
      });
      misses.appendChild(missList);
      row.appendChild(misses);
      body.appendChild(row);
    }
  }

  function svg(name, attributes, parent) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes || {})) element.setAttribute(key, value);
    if (parent) parent.appendChild(element);
    return element;
  }

  /* One band per player; x is the turn (ply), so the bands line up with each other. */
  function renderChart() {
    const root = $("analysis-chart");
    root.replaceChildren();
    const players = analysis.players.length;
    const total = analysis.turns.length;
    const layout = { width: 900, band: 70, gap: 14, left: 120, right: 10, top: 6, axis: 18 };
    const height = layout.top + players * (layout.band + layout.gap) + layout.axis;
    root.setAttribute("viewBox", "0 0 " + layout.width + " " + height);
    const plotWidth = layout.width - layout.left - layout.right;
    const step = total ? plotWidth / total : plotWidth;
    const barWidth = Math.max(2, Math.min(14, step * 0.7));
    const top = Math.max(1, ...analysis.turns.map((turn) => turn.best_points));
    const x = (ply) => layout.left + (ply - 0.5) * step;
    const current = replay ? replay.ply : 0;

    analysis.players.forEach((player, index) => {
      const y0 = layout.top + index * (layout.band + layout.gap);
      const base = y0 + layout.band;
      const scale = (value) => (value / top) * (layout.band - 4);
      const band = svg("g", { class: "analysis-band seat-" + player.seat }, root);
      svg("line", { x1: layout.left, x2: layout.width - layout.right, y1: base, y2: base, class: "band-base" }, band);
      const label = svg("text", { x: layout.left - 8, y: y0 + layout.band / 2, class: "band-label" }, band);
      label.textContent = seatName(player.seat);
      const accuracy = svg("text", { x: layout.left - 8, y: y0 + layout.band / 2 + 15, class: "band-accuracy" }, band);
      accuracy.textContent = percent.format(player.accuracy / 100);

      for (const turn of analysis.turns) {
        if (turn.seat !== player.seat) continue;
        const group = svg("g", { class: "turn-bar" + (turn.ply === current ? " is-current" : ""), tabindex: "-1" }, band);
        const available = scale(turn.best_points);
        const played = scale(turn.played_points);
        svg("rect", {
          x: x(turn.ply) - barWidth / 2,
          y: base - available,
          width: barWidth,
          height: Math.max(available, 0.5),
          class: "bar-available",
        }, group);
        svg("rect", {
          x: x(turn.ply) - barWidth / 2,
          y: base - played,
          width: barWidth,
          height: played,
          class: "bar-played" + (turn.missed >= BIG_MISS ? " is-miss" : ""),
        }, group);
        const title = svg("title", {}, group);
        title.textContent = format(words.bar_title, {
          ply: turn.ply,
          played: turn.played_points,
          best: turn.best_points,
        });
        group.addEventListener("click", () => replay.goTo(turn.ply));
      }
    });

    const axisY = height - 4;
    const every = Math.max(1, Math.ceil(total / 10));
    for (let ply = every; ply <= total; ply += every) {
      const tick = svg("text", { x: x(ply), y: axisY, class: "axis-label" }, root);
      tick.textContent = ply;
    }
  }

  // -- wiring ------------------------------------------------------------------------------------

  $("analysis-best-button").addEventListener("click", () => {
    showBest = !showBest;
    if (!showBest) replay.clearBoardOverlay();
    renderTurn();
  });

  // A tap on a turn's mark (replay.js shows that turn): bring its explanation into view, which
  // on a phone sits above the turn list.
  document.addEventListener("click", (event) => {
    if (!event.target.closest || !event.target.closest(".turn-mark")) return;
    const box = $("analysis-turn");
    if (box && !box.hidden) box.scrollIntoView({ block: "nearest" });
  });

  document.addEventListener("replay:ready", (event) => {
    replay = event.detail.replay;
    if (!replay) return;
    if (replay.state.status !== "finished") {
      setStatus(words.not_over);
      return;
    }
    pollStarted = Date.now();
    poll();
  });

  document.addEventListener("replay:step", () => {
    if (!analysis || !replay) return;
    renderTurn();
    renderChart();
  });
}
