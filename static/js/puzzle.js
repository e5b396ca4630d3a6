/*
 * A puzzle (/puzzles/<id>/): build a turn for the seat to move and submit it. The server's engine
 * checks each placement (POST /api/analysis/turn/, points so far only) and the whole turn
 * (POST /api/puzzles/<id>/attempts/): solved when it scores the maximum. A wrong turn shows
 * nothing of the answer (try again); "Show the answer" gives up (POST /api/puzzles/<id>/give-up/),
 * a loss for a signed-in player's first result.
 */
import * as Learn from "./lib/learn.js";
import { Board } from "./lib/board.js";
import { format, plural, readJSON } from "./lib/util.js";
import { parseMove } from "./lib/notation.js";

function main() {
  const $ = (id) => document.getElementById(id);
  const puzzle = readJSON("puzzle-state");
  const strings = readJSON("learn-strings");
  const words = strings.learn;
  const board = new Board($("puzzle-board"), strings);
  const position = {
    players: puzzle.players,
    variant: puzzle.variant,
    board: puzzle.board,
    to_move: puzzle.to_move,
    supply: puzzle.supply,
    scores: puzzle.scores,
  };
  let check = null;
  let done = false;
  let solution = null;

  const say = Learn.messenger("puzzle-message");

  const builder = new Learn.TurnBuilder({
    board,
    picker: "#puzzle-picker",
    rows: () => puzzle.board,
    seat: () => puzzle.to_move,
    enabled: () => !done,
    onChange: checkTurn,
    onError: (message) => say(message, "error"),
    badNotation: strings.bad_notation,
    throttled: words.throttled,
  });

  function render() {
    const overlay = solution
      ? (parseMove(solution) || []).map((p) => ({ ...p, seat: puzzle.to_move }))
      : [];
    board.render(puzzle.board, {
      provisional: solution ? [] : builder.placements,
      overlay,
      seat: puzzle.to_move,
      siestas: puzzle.siestas,
    });
    board.grid.classList.toggle("is-playable", !done);
    // While the answer is on the board, the turn tried is not.
    $("pending-move").textContent = solution ? "" : builder.text();
    $("so-far").textContent =
      check && builder.placements.length && !solution
        ? format(words.so_far, { points: check.so_far })
        : "";
    $("submit-button").disabled = done || !(check && check.complete);
  }

  async function checkTurn(placements) {
    check = null;
    render();
    if (!placements.length) return;
    const data = await builder.check({ position }, render);
    if (!data) return;
    say(data.complete ? words.complete : "");
    check = data;
    render();
  }

  function showRating(result) {
    $("result-rating").textContent = result.rated
      ? format(words.rating, {
          before: Math.round(result.rating_before),
          after: Math.round(result.rating_after),
        })
      : "";
    if (result.rated && $("my-rating")) $("my-rating").textContent = Math.round(result.rating_after);
    $("puzzle-practice").hidden = !result.practice;
  }

  function resultLine(result) {
    // A best-turn puzzle: the answer is the expert's look-ahead, not the most points now.
    if (result.kind === "best_turn") {
      if (result.gave_up) {
        return plural(words.best_turn_gave_up, result.best_points, { best: result.best_points });
      }
      return (
        plural(words.best_turn_found, result.points, { points: result.points }) +
        " " +
        words.best_turn_solved
      );
    }
    if (result.gave_up) return plural(words.gave_up, result.best_points, { best: result.best_points });
    return (
      plural(words.found, result.points, { points: result.points, best: result.best_points }) +
      " " +
      plural(words.solved, result.best_points, { points: result.best_points })
    );
  }

  // A solve or a give-up: the answer, its source, and the way to the next puzzle.
  function finish(result) {
    done = true;
    say("");
    $("give-up-button").hidden = true;
    $("puzzle-result").hidden = false;
    $("puzzle-result").classList.toggle("is-solved", result.solved);
    $("result-line").textContent = resultLine(result);
    showRating(result);
    $("result-streak").textContent =
      result.streak !== null ? format(words.streak, { streak: result.streak }) : "";
    $("solution-text").textContent = format(words.solution, { move: result.solution });
    // The themes come only with the answer: before it they would give it away.
    const themes = $("result-themes");
    themes.hidden = !(result.themes && result.themes.length);
    themes.textContent = themes.hidden
      ? ""
      : format(words.themes, { themes: result.themes.join(", ") });
    if (result.gave_up) solution = result.solution;
    $("solution-text").hidden = !solution;
    $("solution-button").onclick = () => {
      solution = solution ? null : result.solution;
      $("solution-text").hidden = !solution;
      render();
    };
    const replay = $("source-replay");
    if (result.source.replay) {
      replay.href = result.source.replay;
      replay.hidden = false;
    }
    $("source-analysis").href = result.source.url;
    // Where it came from, in the reader's words (the stored label is for the staff).
    $("source-label").textContent = format(
      result.source.label && !result.source.game ? words.source_bots : words.source_site,
      { ply: result.source.ply + 1 },
    );
    render();
    $("next-button").focus();
  }

  async function submit() {
    const move = builder.text();
    if (!move) {
      say(words.need_turn, "error");
      return;
    }
    const answer = await Learn.post(puzzle.attempt_url, { move });
    if (!answer.ok) {
      say(answer.data.error, "error");
      Learn.markCell(board, answer.data.cell);
      return;
    }
    const result = answer.data;
    if (result.solved) {
      finish(result);
      return;
    }
    // Wrong: the points found, nothing of the answer; the turn stays to be changed.
    showRating(result);
    const parts = [plural(words.points, result.points, { points: result.points }), "—", words.wrong];
    say([...parts, $("result-rating").textContent].join(" ").trim(), "error");
  }

  async function giveUp() {
    const answer = await Learn.post(puzzle.give_up_url, {});
    if (!answer.ok) {
      say(answer.data.error, "error");
      return;
    }
    finish(answer.data);
  }

  $("submit-button").addEventListener("click", submit);
  Learn.commandLine({
    builder,
    strings,
    confirmId: "submit-button",
    getState: () => Learn.commandState({ ...position, siestas: puzzle.siestas }, [], strings),
  });
  $("give-up-button").addEventListener("click", giveUp);

  Learn.seatTable($("puzzle-seats"), position, strings);
  render();
}

main();
