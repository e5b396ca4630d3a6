/*
 * Playing together, on every page: the lobby socket (/ws/lobby/) that jumps a seeker into the
 * game the moment it exists, shows challenges and notices live, keeps the unread count in the
 * header and sends the presence heartbeat; green dots on the names of people online; the
 * quick-pairing buttons of the lobby. Text from the server is only ever set as textContent.
 *
 * Never stale (lib/fresh.js): the welcome carries the player's current tournament game (a page
 * opened after its round was paired missed the push); on focus, back in view and after 30 s of
 * silence the page sends {"type": "sync"}, answered by a "tournament_game" frame when there is
 * one, or reconnects at once when the socket is down.
 */
import { keepFresh } from "./lib/fresh.js";
import { api as request } from "./lib/http.js";
import { format, readJSON } from "./lib/util.js";
import { showNextGame } from "./next_game.js";

function main() {
  const stringsNode = document.getElementById("together-strings");
  const S = stringsNode ? JSON.parse(stringsNode.textContent) : {};
  const HEARTBEAT_MS = 25000;
  let socket = null;
  let retry = 1000;
  let heartbeat = null;
  let seek = null;
  let seekTimer = null;

  const fill = format;
  const api = (method, url, body) => request(method, url, body, S.error);

  // -- toasts ---------------------------------------------------------------------------------

  function toast(text, actions) {
    const box = document.getElementById("toasts");
    if (!box) return null;
    const item = document.createElement("div");
    item.className = "toast";
    const words = document.createElement("p");
    words.textContent = text;
    item.appendChild(words);
    const row = document.createElement("div");
    row.className = "toast-actions";
    for (const action of actions || []) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button-small" + (action.secondary ? " button-secondary" : "");
      button.textContent = action.label;
      button.addEventListener("click", () => {
        item.remove();
        action.run();
      });
      row.appendChild(button);
    }
    if (!actions || !actions.length) {
      window.setTimeout(() => item.remove(), 6000);
    } else {
      item.appendChild(row);
    }
    box.appendChild(item);
    return item;
  }

  // -- header count and online figures --------------------------------------------------------

  function setUnread(count) {
    // The header's badge, and its twin beside the phones' menu button.
    document.querySelectorAll("#notice-count, [data-notice-count]").forEach((badge) => {
      badge.textContent = String(count);
      badge.hidden = !count;
    });
  }

  function setOnline(count) {
    const node = document.getElementById("online-count");
    if (node && typeof count === "number") node.textContent = fill(S.online_count, { count: count });
  }

  // -- presence dots ---------------------------------------------------------------------------

  function nameOf(element) {
    if (element.dataset.presence) return element.dataset.presence;
    const match = (element.getAttribute("href") || "").match(/^\/users\/([^/]+)\/$/);
    return match ? decodeURIComponent(match[1]) : null;
  }

  async function refreshPresence() {
    const elements = Array.from(document.querySelectorAll('a[href^="/users/"], [data-presence]'));
    const names = Array.from(new Set(elements.map(nameOf).filter(Boolean))).slice(0, 100);
    if (!names.length) return;
    try {
      const data = await api("GET", "/api/presence/?users=" + encodeURIComponent(names.join(",")));
      for (const element of elements) {
        const online = Boolean(data.users[nameOf(element)]);
        element.classList.toggle("is-online", online);
        if (online) element.title = S.online;
      }
      setOnline(data.online);
    } catch (error) {
      /* presence is a nicety */
    }
  }

  let presenceTimer = null;
  function schedulePresence() {
    window.clearTimeout(presenceTimer);
    presenceTimer = window.setTimeout(refreshPresence, 400);
  }

  // -- seeks (the lobby's quick pairing) -------------------------------------------------------

  function showSeek(current) {
    seek = current;
    const box = document.getElementById("seek-status");
    const text = document.getElementById("seek-text");
    window.clearInterval(seekTimer);
    document.querySelectorAll(".quick-button").forEach((b) => {
      b.disabled = Boolean(current && current.status === "waiting");
    });
    if (!current) {
      if (box) box.hidden = true;
      return;
    }
    if (current.status === "matched" && current.game) {
      if (text) text.textContent = fill(S.matched, { game: current.game });
      window.location.assign("/games/" + current.game + "/");
      return;
    }
    if (current.status !== "waiting") {
      if (box) box.hidden = true;
      toast(current.status === "expired" ? S.expired : S.cancelled);
      seek = null;
      document.querySelectorAll(".quick-button").forEach((b) => (b.disabled = false));
      return;
    }
    if (!box || !text) return;
    box.hidden = false;
    const since = Date.parse(current.created_at) || Date.now();
    const tick = () => {
      const seconds = Math.max(0, Math.round((Date.now() - since) / 1000));
      text.textContent = fill(S.waiting, { seconds: seconds });
    };
    tick();
    seekTimer = window.setInterval(() => {
      tick();
      // A fallback to the socket: ask now and then.
      if (Math.round((Date.now() - since) / 1000) % 5 === 0) pollSeek();
    }, 1000);
  }

  async function pollSeek() {
    if (!seek) return;
    try {
      const current = await api("GET", "/api/seeks/" + seek.id + "/");
      if (current.status !== "waiting") showSeek(current);
    } catch (error) {
      /* the socket will tell */
    }
  }

  function setUpQuickPairing() {
    const section = document.getElementById("quick-pair");
    if (!section) return;
    section.querySelectorAll(".quick-button").forEach((button) => {
      button.addEventListener("click", async () => {
        const range = document.getElementById("quick-range").value;
        try {
          const created = await api("POST", "/api/seeks/", {
            players: Number(button.dataset.players),
            mode: button.dataset.mode,
            turn_seconds: Number(button.dataset.turn),
            rated: document.getElementById("quick-rated").checked,
            bot_fill: document.getElementById("quick-bots").checked,
            bot_level: document.getElementById("quick-bot-level").value,
            rating_range: range ? Number(range) : null,
          });
          showSeek(created);
          pollSeek(); // the sweep its creation triggered may have matched it already
        } catch (error) {
          toast(error.message);
        }
      });
    });
    const cancel = document.getElementById("seek-cancel");
    cancel.addEventListener("click", async () => {
      if (!seek) return;
      try {
        showSeek(await api("DELETE", "/api/seeks/" + seek.id + "/"));
      } catch (error) {
        if (error.data && error.data.error) toast(error.data.error);
        pollSeek();
      }
    });
  }

  // -- challenges ------------------------------------------------------------------------------

  const shownChallenges = new Set();

  function variantName(key) {
    return (S.variants && S.variants[key]) || key;
  }

  // A turn time in the page's words: the form's label, else days, minutes or seconds.
  function turnTime(seconds) {
    const label = S.turn_times && S.turn_times[String(seconds)];
    if (label) return label;
    if (seconds % 86400 === 0) return fill(S.days, { count: seconds / 86400 });
    if (seconds % 60 === 0) return fill(S.minutes, { count: seconds / 60 });
    return fill(S.seconds, { count: seconds });
  }

  function challengeSettings(c) {
    return [variantName(c.variant), turnTime(c.turn_seconds), c.rated ? S.rated : S.casual].join(
      " · ",
    );
  }

  function showChallenge(c, me) {
    if (c.status === "pending" && c.to === me && !shownChallenges.has(c.id)) {
      shownChallenges.add(c.id);
      toast(fill(S.challenge_from, { name: c.from, settings: challengeSettings(c) }), [
        {
          label: S.accept,
          run: async () => {
            try {
              const answered = await api("POST", "/api/challenges/" + c.id + "/accept/");
              window.location.assign("/games/" + answered.game + "/");
            } catch (error) {
              toast(error.message);
            }
          },
        },
        {
          label: S.decline,
          secondary: true,
          run: () => api("POST", "/api/challenges/" + c.id + "/decline/").catch(() => {}),
        },
      ]);
    } else if (c.status === "accepted" && c.from === me && c.game) {
      window.location.assign("/games/" + c.game + "/");
    } else if (c.status === "declined" && c.from === me) {
      toast(fill(S.challenge_declined, { name: c.to }));
    }
  }

  function setUpChallengeForm() {
    const form = document.getElementById("challenge-form");
    if (!form) return;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      try {
        await api("POST", "/api/challenges/", {
          username: form.dataset.username,
          variant: data.get("variant"),
          turn_seconds: Number(data.get("turn_seconds")),
          rated: data.get("rated") === "1",
        });
        toast(fill(S.challenge_sent, { name: form.dataset.username }));
        form.closest("details").open = false;
      } catch (error) {
        toast(error.message);
      }
    });
  }

  // -- the socket ------------------------------------------------------------------------------

  let me = null;

  function onMessage(message) {
    switch (message.type) {
      case "welcome":
        me = message.username;
        setOnline(message.online);
        if (typeof message.unread === "number") setUnread(message.unread);
        if (message.seek) showSeek(message.seek);
        for (const c of message.challenges || []) showChallenge(c, me);
        if (message.tournament_game) showNextGame(message.tournament_game, S, false);
        refreshPresence(); // this page counts now
        break;
      case "pong":
        setOnline(message.online);
        break;
      case "seek":
        if (!seek || seek.id === message.seek.id) showSeek(message.seek);
        break;
      case "challenge":
        showChallenge(message.challenge, me);
        break;
      case "tournament_game":
        showNextGame(message, S, true);
        break;
      case "notification":
        setUnread(message.unread);
        if (message.notification.kind !== "challenge") {
          toast(message.notification.text);
          if (document.hidden && "Notification" in window && Notification.permission === "granted") {
            new Notification(message.notification.text);
          }
        }
        break;
      default:
        break;
    }
  }

  let reconnectTimer = null;

  function connect() {
    window.clearTimeout(reconnectTimer);
    reconnectTimer = null;
    if (socket && socket.readyState <= WebSocket.OPEN) return; // connecting or open
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    try {
      socket = new WebSocket(scheme + window.location.host + "/ws/lobby/");
    } catch (error) {
      return;
    }
    socket.addEventListener("open", () => {
      retry = 1000;
      window.clearInterval(heartbeat);
      heartbeat = window.setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
      }, HEARTBEAT_MS);
    });
    socket.addEventListener("message", (event) => {
      fresh.heard();
      try {
        onMessage(JSON.parse(event.data));
      } catch (error) {
        /* ignore a frame we do not understand */
      }
    });
    socket.addEventListener("close", () => {
      window.clearInterval(heartbeat);
      reconnectTimer = window.setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    });
  }

  /** Whether this page missed a push: its tournament game, asked for again. */
  function checkFresh() {
    if (socket && socket.readyState === WebSocket.OPEN) {
      if (me) socket.send(JSON.stringify({ type: "sync" }));
    } else {
      connect();
    }
  }
  const fresh = keepFresh(checkFresh);

  setUpQuickPairing();
  setUpChallengeForm();
  showNextGame(readJSON("next-game-data"), S, false);
  connect();
  refreshPresence();
  window.setInterval(refreshPresence, HEARTBEAT_MS);
  // Names drawn later (the seats of a live game) get their dots too.
  new MutationObserver((mutations) => {
    const linked = mutations.some((m) =>
      Array.from(m.addedNodes).some(
        (node) =>
          node.nodeType === 1 &&
          (node.matches('a[href^="/users/"]') || node.querySelector('a[href^="/users/"]'))
      )
    );
    if (linked) schedulePresence();
  }).observe(document.body, { childList: true, subtree: true });

}

main();
