/*
 * The seat panels and the result banner: their only renderer (the templates leave empty
 * placeholders), drawn from the game state of API.md with the page's translated strings.
 */
import { pieceElement } from "./board.js";
import { charOf } from "./notation.js";
import { badge, format, hiddenText, icon } from "./util.js";

/** The username, "Bot (medium)" or the empty-seat words. */
export function seatName(seat, strings) {
  if (seat.username) return seat.username;
  if (seat.bot) return strings.bots[seat.bot] || seat.bot;
  return strings.empty_seat;
}

/** A seat's roof, as the panels and the banner show it. */
function seatToken(seat) {
  const token = pieceElement(charOf("R", seat));
  token.classList.add("seat-token");
  return token;
}

/** The bulb that marks a turn played after a hint, with its words for screen readers. */
export function hintMark(strings) {
  const mark = document.createElement("span");
  mark.className = "hint-mark";
  mark.title = strings.replay.hint;
  mark.appendChild(document.createTextNode(" "));
  mark.appendChild(icon("hint"));
  mark.appendChild(hiddenText(strings.replay.hint));
  return mark;
}

function teamSums(box, seats, scores, strings) {
  box.replaceChildren();
  const hasTeams = seats.length === 4 && seats.every((seat) => seat.team);
  box.hidden = !hasTeams;
  if (!hasTeams) return;
  for (const team of [1, 2]) {
    const sum = seats.reduce((total, seat, i) => total + (seat.team === team ? scores[i] : 0), 0);
    box.appendChild(badge("badge-team team-" + team, format(strings.team_sum, { team, score: sum })));
    box.appendChild(document.createTextNode(" "));
  }
}

/**
 * Seat panels. options: strings, mySeat, toMove, scores / roofs (overrides), deltas (points
 * of the turn shown), winners (list). Team sums go to options.teamBox when the seats have teams.
 */
export function renderSeats(list, seats, options) {
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
    item.appendChild(seatToken(seat.seat));

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
    appendRating(name, seat, s);
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
  if (options.teamBox) teamSums(options.teamBox, seats, scores, s);
}

/**
 * The compact strip of every player's score above the board (3 and 4 player games; CSS shows it
 * only while the seat panels are below the board). options: strings, mySeat, toMove.
 */
export function renderScoreStrip(list, seats, options) {
  if (!list) return;
  const s = options.strings;
  list.replaceChildren();
  list.hidden = seats.length < 3;
  if (list.hidden) return;
  for (const seat of seats) {
    const item = document.createElement("li");
    item.className = "score-chip seat-" + seat.seat;
    if (options.toMove === seat.seat) item.classList.add("is-to-move");
    if (options.mySeat === seat.seat) item.classList.add("is-me");
    if (seat.resigned) item.classList.add("is-out");
    const token = seatToken(seat.seat);
    token.classList.add("score-chip-token");
    const name = document.createElement("span");
    name.className = "score-chip-name";
    name.textContent = seatName(seat, s);
    const score = document.createElement("strong");
    score.className = "score-chip-score";
    score.append(hiddenText(s.score_label + " "), String(seat.score));
    item.title = format(s.seat_title, { seat: seat.seat, name: seatName(seat, s) });
    item.append(token, name, score);
    list.appendChild(item);
  }
}

/** A person's rating after their name, as "(1512)", titled "Rating" for screen readers. */
function appendRating(parent, seat, strings) {
  if (seat.rating === undefined || seat.rating === null || !strings.rating) return;
  const rating = document.createElement("span");
  rating.className = "seat-rating";
  rating.title = strings.rating;
  rating.append(hiddenText(strings.rating + " "), "(" + seat.rating + ")");
  parent.append(" ", rating);
}

/** What the game did to a person's rating: "1500 → 1512 (+12)", or why it did not count. */
export function ratingWords(seat, strings) {
  if (!strings.rating_reasons || !seat.rating_reason) return "";
  if (seat.rating_change === null || seat.rating_change === undefined) {
    return strings.rating_reasons[seat.rating_reason] || "";
  }
  const change = seat.rating_change;
  return format(strings.rating_change, {
    before: seat.rating,
    after: seat.rating + change,
    change: (change > 0 ? "+" : change < 0 ? "−" : "±") + Math.abs(change),
  });
}

/** {headline, reason} of a finished game, or null. */
export function resultWords(state, strings) {
  const result = state.result;
  if (!result) return null;
  const reason = format(strings.game_over, {
    reason: strings.end_reasons[result.end_reason] || result.end_reason,
  });
  // Ended before every player had played a turn: aborted, nobody won (GameOutcome.aborted).
  if (isAborted(state) && strings.aborted) return { headline: strings.aborted, reason };
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

/**
 * The result banner of a finished game (templates/games/_result.html holds its empty parts):
 * headline, reason, each seat's score with a trophy for the winners, and the team sums.
 */
/** The engine's aborted (the state's result says it), or no turn at all in an older state. */
function isAborted(state) {
  const result = state.result;
  if (result && typeof result.aborted === "boolean") return result.aborted;
  return state.ply === 0;
}

export function renderResult(banner, state, strings) {
  const words = resultWords(state, strings);
  if (!banner || !words) return;
  banner.querySelector("#result-headline").textContent = words.headline;
  banner.querySelector(".result-reason").textContent = words.reason;
  const aborted = isAborted(state);
  const winners = new Set(aborted ? [] : state.result.winners);
  const scores = banner.querySelector(".result-scores");
  scores.replaceChildren();
  for (const seat of state.seats) {
    const row = document.createElement("div");
    row.className = "result-score seat-" + seat.seat + (winners.has(seat.seat) ? " is-winner" : "");
    const term = document.createElement("dt");
    term.append(seatToken(seat.seat), " " + seatName(seat, strings));
    if (winners.has(seat.seat)) {
      term.append(" ", icon("trophy", "icon-trophy"), hiddenText(strings.winner_mark));
    }
    const score = document.createElement("dd");
    score.textContent = seat.score;
    row.append(term, score);
    const change = ratingWords(seat, strings);
    if (change) {
      const note = document.createElement("dd");
      note.className = "result-rating" + (seat.rating_change > 0 ? " is-up" : seat.rating_change < 0 ? " is-down" : "");
      note.textContent = change;
      row.append(note);
    }
    scores.appendChild(row);
  }
  // Why a game did not count for someone, said plainly under the scores: a hint.
  const note = banner.querySelector("#result-hint-note");
  const hinted = state.seats.filter((seat) => seat.rating_reason === "hint");
  if (note) {
    note.hidden = !(hinted.length && strings.hint_not_counted);
    note.textContent = note.hidden
      ? ""
      : format(strings.hint_not_counted, {
          names: hinted.map((seat) => seatName(seat, strings)).join(", "),
        });
  }
  const sums = banner.querySelector(".team-sums");
  const teams = aborted ? null : state.result.team_scores;
  sums.replaceChildren();
  sums.hidden = !teams;
  for (const [index, score] of (teams || []).entries()) {
    const team = index + 1;
    sums.append(badge("badge-team team-" + team, format(strings.team_sum, { team, score })), " ");
  }
}
