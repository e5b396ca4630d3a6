/*
 * Tournaments lead their players: when a round is paired, the lobby socket pushes
 * {"type": "tournament_game", tournament, name, game, round, arena, opponents, starts_in}; every page
 * also gets the player's current tournament game on load (json_script "next-game-data"), so a reload
 * does not lose it. The banner names the round (not in an arena, whose rounds are pairing waves)
 * and the opponents, counts the first turn's clock
 * down and opens the game after AUTO_SECONDS unless the player cancels. A game the player went
 * to or cancelled once (per tab) is not opened by itself again, and a player seated in a game in
 * play on the page is never taken away from it; the banner's button still works.
 */
import { format, icon } from "./lib/util.js";

const AUTO_SECONDS = 5;
const KEY = "siesta-next-game-";

function gamePath(game) {
  return "/games/" + game + "/";
}

function remembered(game) {
  try {
    return window.sessionStorage.getItem(KEY + game);
  } catch (error) {
    return null;
  }
}

function remember(game, what) {
  try {
    window.sessionStorage.setItem(KEY + game, what);
  } catch (error) {
    /* private mode: the banner simply asks again */
  }
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

/** Seated in a game in play on this page: the banner never takes the player away from it. Once
 * the player is out of it (the game over, a timeout, a resignation), game.js says so
 * (data-playing="0") and the banner leads on. */
function playingHere() {
  const page = document.getElementById("game-page");
  return Boolean(page && page.dataset.mySeat && page.dataset.playing !== "0");
}

let current = null;

/** Shows (or replaces) the banner for ``next``; ``pushed`` when it just arrived live. */
export function showNextGame(next, strings, pushed) {
  if (!next || typeof next.game !== "number") return;
  if (window.location.pathname === gamePath(next.game)) {
    remember(next.game, "went"); // already there
    return;
  }
  if (current && current.game === next.game && !pushed) return; // shown already
  if (current) current.stop();
  const auto = (pushed || !remembered(next.game)) && !playingHere();
  const startsAt = Date.now() + (next.starts_in || 0) * 1000;
  const autoAt = Date.now() + AUTO_SECONDS * 1000;

  const banner = document.createElement("section");
  banner.className = "next-game";
  banner.id = "next-game";
  banner.setAttribute("role", "status");
  banner.appendChild(icon("trophy", "next-game-icon"));
  const words = document.createElement("div");
  words.className = "next-game-words";
  const title = document.createElement("p");
  title.className = "next-game-title";
  title.textContent = format(next.arena ? strings.next_arena_game : strings.next_game, {
    round: next.round,
    names: (next.opponents || []).join(", "),
  });
  const detail = document.createElement("p");
  detail.className = "next-game-detail";
  words.append(title, detail);
  const actions = document.createElement("div");
  actions.className = "next-game-actions";
  const go = document.createElement("a");
  go.className = "button";
  go.id = "next-game-go";
  go.href = gamePath(next.game);
  go.textContent = strings.go_to_game;
  go.addEventListener("click", () => remember(next.game, "went"));
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "button-secondary";
  cancel.id = "next-game-cancel";
  cancel.textContent = strings.stay;
  actions.append(go, cancel);
  banner.append(words, actions);

  let timer = null;
  let automatic = auto;
  function tick() {
    const parts = [next.name];
    if (next.starts_in) {
      parts.push(format(strings.next_game_clock, { time: clock((startsAt - Date.now()) / 1000) }));
    }
    if (automatic) {
      const left = Math.ceil((autoAt - Date.now()) / 1000);
      if (left <= 0) {
        remember(next.game, "went");
        window.clearInterval(timer);
        window.location.assign(gamePath(next.game));
        return;
      }
      parts.push(format(strings.next_game_opening, { seconds: left }));
    }
    detail.textContent = parts.join(" · ");
  }
  cancel.addEventListener("click", () => {
    remember(next.game, "stayed");
    if (automatic) {
      automatic = false; // first click: stay on this page, keep the banner
      cancel.hidden = true;
      tick();
    }
  });
  current = {
    game: next.game,
    stop() {
      window.clearInterval(timer);
      banner.remove();
    },
  };
  if (!automatic) cancel.hidden = true;
  const main = document.querySelector("main") || document.body;
  main.prepend(banner);
  tick();
  timer = window.setInterval(tick, 250);
}
