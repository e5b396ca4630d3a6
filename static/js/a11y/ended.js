/*
 * The page of a finished game (templates/games/replay.html): when the player comes from the live
 * page that saw the game end (it reloads), the live region says the result, every score and the
 * player's rating change (docs/accessibility.md).
 */
import { ratingWords } from "../lib/seats.js";
import { byId, readJSON } from "../lib/util.js";
import { ENDED_KEY, announcer, resultText, scoresWords } from "./game.js";

const page = byId("replay-page");
const state = readJSON("game-state");
const strings = readJSON("game-strings");
if (page && state && strings && state.status === "finished") {
  let ended = false;
  try {
    ended = window.sessionStorage.getItem(ENDED_KEY + page.dataset.gameId) === "1";
    window.sessionStorage.removeItem(ENDED_KEY + page.dataset.gameId);
  } catch (error) {
    ended = false;
  }
  if (ended) {
    const say = announcer();
    const mine = state.seats.find((seat) => seat.seat === Number(page.dataset.mySeat));
    const change = mine ? ratingWords(mine, strings) : "";
    // After a moment: a live region says only what changes once it is in the page.
    window.setTimeout(() => {
      say(resultText(state, strings));
      say(scoresWords(state, strings));
      if (change) say(change);
    }, 400);
  }
}
