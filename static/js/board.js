/*
 * Siesta board helpers shared by the game page (game.js) and the replay (replay.js).
 *
 * Exposes `window.Siesta` with:
 *   COLUMNS                      "ABCDEFGHIJKL"
 *   format(text, params)         fills "%(name)s" placeholders
 *   readJSON(id)                 parses a json_script element
 *   parseMove(text)              "SF5 RF6 HF7" → [{piece: "S", cell: "F5"}, ...] or null
 *   moveText(placements)         the reverse
 *   boardAfter(turns, ply)       board rows (12 strings) after the first `ply` turns
 *   Board(gridElement, strings)  draws a board: .render(rows, {last, marks, provisional, pending,
 *                                refused, hint, overlay})
 *   seatName(seat, strings)      the username, "Bot (medium)" or the empty-seat words
 *   renderSeats(box, seats, options)  the seat panels (same markup as templates/games/_seats.html)
 *   resultWords(state, strings)  {headline, reason} of a finished game
 *   icon(name)                   an inline SVG icon from the page's sprite
 *   hintMark(strings)            the bulb of a turn played after a hint
 *
 * Board text (RULES.md): "." empty, "S" sun, "#" shadow, "1".."4" roof of that seat.
 */
(function () {
  "use strict";

  const COLUMNS = "ABCDEFGHIJKL";
  const SIZE = 12;
  const PLACEMENT = /^([SRH])([A-L])(\d{1,2})$/;

  function format(text, params) {
    return String(text).replace(/%\((\w+)\)s/g, (match, name) =>
      params && name in params ? String(params[name]) : match
    );
  }

  function readJSON(id) {
    const element = document.getElementById(id);
    return element ? JSON.parse(element.textContent) : null;
  }

  function parseMove(text) {
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

  function moveText(placements) {
    return placements.map((p) => p.piece + p.cell).join(" ");
  }

  function cellIndex(cell) {
    return { row: Number(cell.slice(1)) - 1, column: COLUMNS.indexOf(cell[0]) };
  }

  function emptyBoard() {
    return Array.from({ length: SIZE }, () => ".".repeat(SIZE));
  }

  /** Put placements on board rows (a copy): roofs take `seat`'s digit. */
  function place(rows, placements, seat) {
    const grid = rows.map((line) => line.split(""));
    for (const p of placements) {
      const { row, column } = cellIndex(p.cell);
      grid[row][column] = p.piece === "S" ? "S" : p.piece === "H" ? "#" : String(seat);
    }
    return grid.map((chars) => chars.join(""));
  }

  function boardAfter(turns, ply) {
    let rows = emptyBoard();
    for (const turn of turns.slice(0, ply)) {
      rows = place(rows, parseMove(turn.move) || [], turn.seat);
    }
    return rows;
  }

  function pieceElement(char) {
    const span = document.createElement("span");
    span.setAttribute("aria-hidden", "true");
    if (char === "S") {
      span.className = "piece piece-sun";
    } else if (char === "#") {
      span.className = "piece piece-shadow";
    } else {
      span.className = "piece piece-roof seat-" + char;
      const label = document.createElement("span");
      label.className = "piece-label";
      label.textContent = char;
      span.appendChild(label);
    }
    return span;
  }

  function charOf(piece, seat) {
    return piece === "S" ? "S" : piece === "H" ? "#" : String(seat);
  }

  /** A drawn board over the server-rendered grid of `.cell[data-cell]` elements. */
  class Board {
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
     * (lists of {piece, cell}); `seat` colours their roofs; overlay items may carry `className`.
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
      for (const [name, cell] of this.cells) {
        const { row, column } = cellIndex(name);
        const char = rows[row][column];
        const added = extra.get(name);
        cell.replaceChildren();
        cell.className = "cell";
        if (last.has(name)) cell.classList.add("cell-last");
        if (marks.has(name)) cell.classList.add("cell-last", "cell-recent", "seat-" + marks.get(name));
        if (options.refused === name) cell.classList.add("cell-refused");
        let label;
        if (char === "S") label = format(words.sun, { cell: name });
        else if (char === "#") label = format(words.shadow, { cell: name });
        else if (char !== ".") label = format(words.roof, { cell: name, seat: char });
        else label = format(words.empty, { cell: name });
        if (char !== ".") cell.appendChild(pieceElement(char));
        if (added && char === ".") {
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

  function seatName(seat, strings) {
    if (seat.username) return seat.username;
    if (seat.bot) return strings.bots[seat.bot] || seat.bot;
    return strings.empty_seat;
  }

  function badge(className, text, title) {
    const span = document.createElement("span");
    span.className = "badge " + className;
    span.textContent = text;
    if (title) span.title = title;
    return span;
  }

  /** An inline SVG icon from the page's sprite (templates/_icons.html). */
  function icon(name) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "icon");
    svg.setAttribute("aria-hidden", "true");
    const use = document.createElementNS(ns, "use");
    use.setAttribute("href", "#icon-" + name);
    svg.appendChild(use);
    return svg;
  }

  /** The bulb that marks a turn played after a hint, with its words for screen readers. */
  function hintMark(strings) {
    const mark = document.createElement("span");
    mark.className = "hint-mark";
    mark.title = strings.replay.hint;
    mark.appendChild(document.createTextNode(" "));
    mark.appendChild(icon("hint"));
    mark.appendChild(hiddenText(strings.replay.hint));
    return mark;
  }

  function hiddenText(text) {
    const span = document.createElement("span");
    span.className = "visually-hidden";
    span.textContent = text;
    return span;
  }

  /**
   * Seat panels. options: strings, mySeat, toMove, scores / roofs (overrides), deltas (points
   * of the turn shown), winners (list). Team sums go to options.teamBox when the seats have teams.
   */
  function renderSeats(list, seats, options) {
    const s = options.strings;
    const scores = options.scores || seats.map((seat) => seat.score);
    const winners = new Set(options.winners || []);
    list.replaceChildren();
    seats.forEach((seat, index) => {
      const item = document.createElement("li");
      item.className = "seat-panel seat-" + seat.seat;
      item.dataset.seat = seat.seat;
      const toMove = options.toMove === seat.seat;
      if (toMove) item.classList.add("is-to-move");
      if (seat.resigned) item.classList.add("is-out");
      if (winners.has(seat.seat)) item.classList.add("is-winner");
      const token = pieceElement(String(seat.seat));
      token.classList.add("seat-token");
      item.appendChild(token);

      const info = document.createElement("div");
      info.className = "seat-info";
      const name = document.createElement("div");
      name.className = "seat-name";
      name.appendChild(hiddenText(format(s.seat_label, { seat: seat.seat })));
      name.appendChild(document.createTextNode(" "));
      if (seat.username) {
        const link = document.createElement("a");
        link.href = "/users/" + encodeURIComponent(seat.username) + "/";
        link.textContent = seat.username;
        name.appendChild(link);
      } else {
        name.appendChild(document.createTextNode(seatName(seat, s)));
      }
      if (options.mySeat === seat.seat) {
        name.appendChild(document.createTextNode(" "));
        name.appendChild(badge("badge-you", s.you));
      }
      info.appendChild(name);

      const details = document.createElement("div");
      details.className = "seat-details";
      if (seat.team) {
        details.appendChild(badge("badge-team team-" + seat.team, format(s.team, { team: seat.team })));
      }
      const roofs = document.createElement("span");
      roofs.className = "roofs-left";
      roofs.textContent = format(s.roofs_left, {
        count: options.roofs ? options.roofs[index] : seat.roofs_left,
      });
      details.appendChild(roofs);
      if (seat.hinted) {
        const hint = badge("badge-hint", "", s.hinted);
        hint.appendChild(icon("hint"));
        hint.appendChild(hiddenText(s.hinted));
        details.appendChild(hint);
      }
      if (seat.resigned) {
        const reason = (seat.out_reason && s.out[seat.out_reason]) || s.out.resigned;
        details.appendChild(badge("badge-out", reason));
      }
      if (toMove) details.appendChild(badge("badge-turn", s.to_move));
      info.appendChild(details);
      item.appendChild(info);

      const score = document.createElement("div");
      score.className = "seat-score";
      score.appendChild(hiddenText(s.score_label));
      score.appendChild(document.createTextNode(" " + scores[index]));
      if (options.deltas && options.deltas[index]) {
        const delta = document.createElement("span");
        delta.className = "score-delta";
        const points = options.deltas[index];
        delta.textContent = (points > 0 ? "+" : "") + points;
        score.appendChild(delta);
      }
      item.appendChild(score);
      list.appendChild(item);
    });

    if (options.teamBox) {
      const box = options.teamBox;
      box.replaceChildren();
      const teams = [1, 2];
      const hasTeams = seats.length === 4 && seats.every((seat) => seat.team);
      box.hidden = !hasTeams;
      if (hasTeams) {
        for (const team of teams) {
          const sum = seats.reduce((total, seat, i) => total + (seat.team === team ? scores[i] : 0), 0);
          box.appendChild(badge("badge-team team-" + team, format(s.team_sum, { team, score: sum })));
          box.appendChild(document.createTextNode(" "));
        }
      }
    }
  }

  function resultWords(state, strings) {
    const result = state.result;
    if (!result) return null;
    const reason = format(strings.game_over, {
      reason: strings.end_reasons[result.end_reason] || result.end_reason,
    });
    // Ended before anyone played a turn: aborted, nobody won.
    if (state.ply === 0 && strings.aborted) return { headline: strings.aborted, reason };
    const winners = state.seats.filter((seat) => result.winners.includes(seat.seat));
    const names = winners.map((seat) => seatName(seat, strings)).join(", ");
    let headline;
    if (state.mode === "teams" && result.team_scores) {
      const teams = [...new Set(winners.map((seat) => seat.team))];
      headline = teams.length === 1 ? format(strings.team_wins, { team: teams[0], names }) : strings.team_draw;
    } else {
      headline = format(winners.length === 1 ? strings.winner : strings.winners, { names });
    }
    return { headline, reason };
  }

  window.Siesta = {
    COLUMNS,
    format,
    readJSON,
    parseMove,
    moveText,
    emptyBoard,
    place,
    boardAfter,
    Board,
    seatName,
    renderSeats,
    resultWords,
    icon,
    hintMark,
  };
})();
