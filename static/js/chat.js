/*
 * The chat of a game page (live or replay) or a tournament, and the rematch buttons of a finished
 * game. Listens to the page's one socket (game/socket.js pageSocket; on the live game page the
 * board's, game.js): it reads the chat frames (chat_history, chat, chat_removed, chat_mute) and
 * the rematch ones (rematch_offer, rematch), and leaves the state frames to the board. Its
 * requests carry the id "chat". Chat text is only ever set as textContent.
 */
import { pageSocket } from "./game/socket.js";
import { api as request } from "./lib/http.js";
import { format } from "./lib/util.js";

function main() {
  const panel = document.getElementById("chat");
  if (!panel) return;
  const S = JSON.parse(document.getElementById("chat-strings").textContent);
  const lines = document.getElementById("chat-lines");
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-input");
  const errorBox = document.getElementById("chat-error");
  const muteButton = document.getElementById("chat-mute");
  const title = document.getElementById("chat-heading");
  const rematchBox = document.getElementById("rematch-box");
  const socket = pageSocket(panel.dataset.wsPath);
  let muted = false;

  const fill = format;

  function timeOf(at) {
    const date = new Date(at);
    return Number.isNaN(date.getTime())
      ? ""
      : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }

  function lineElement(message) {
    const item = document.createElement("li");
    item.className = "chat-line chat-room-" + message.room;
    item.dataset.id = String(message.id);
    const time = document.createElement("time");
    time.className = "chat-time";
    time.dateTime = message.at || "";
    time.textContent = timeOf(message.at);
    const who = document.createElement("a");
    who.className = "chat-name";
    who.href = "/users/" + encodeURIComponent(message.username) + "/";
    who.textContent = message.username;
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = message.text; // never HTML
    if (message.preset) item.classList.add("chat-preset-line");
    item.append(time, " ", who, ": ", text);
    return item;
  }

  function showEmpty() {
    if (lines.children.length) return;
    const item = document.createElement("li");
    item.className = "chat-empty";
    item.textContent = muted ? S.muted : S.empty;
    lines.appendChild(item);
  }

  function add(message) {
    const empty = lines.querySelector(".chat-empty");
    if (empty) empty.remove();
    lines.appendChild(lineElement(message));
    lines.scrollTop = lines.scrollHeight;
  }

  function setMuted(value) {
    muted = value;
    if (!muteButton) return;
    muteButton.setAttribute("aria-pressed", value ? "true" : "false");
    muteButton.textContent = value ? S.unmute : S.mute;
    if (value) {
      lines.replaceChildren();
      showEmpty();
    }
  }

  function setRoom(room) {
    if (title) title.textContent = S[room] || S.after;
  }

  // -- rematch ---------------------------------------------------------------------------------

  function rematchStatus(text, gameId) {
    const status = document.getElementById("rematch-status");
    if (!status) return;
    status.replaceChildren();
    if (gameId) {
      const link = document.createElement("a");
      link.href = "/games/" + gameId + "/";
      link.textContent = text;
      status.appendChild(link);
    } else {
      status.textContent = text;
    }
  }

  function setUpRematch() {
    if (!rematchBox) return;
    const api = (method, url, body) => request(method, url, body, S.error);
    const ask = document.getElementById("rematch-button");
    ask.addEventListener("click", async () => {
      ask.disabled = true;
      try {
        const answer = await api("POST", "/api/games/" + rematchBox.dataset.gameId + "/rematch/");
        if (answer.game) {
          window.location.assign("/games/" + answer.game + "/");
        } else {
          rematchStatus(fill(S.rematch_waiting, { names: answer.waiting_for.join(", ") }));
        }
      } catch (error) {
        ask.disabled = false;
        rematchStatus(error.message);
      }
    });
    document.getElementById("new-game-button").addEventListener("click", async () => {
      try {
        await api("POST", "/api/seeks/", {
          players: Number(panel.dataset.players),
          mode: panel.dataset.mode,
          variant: panel.dataset.variant,
          rated: panel.dataset.rated === "1",
          turn_seconds: Number(panel.dataset.turn),
          bot_fill: panel.dataset.bots === "1",
        });
      } catch (error) {
        if (error.status !== 409) {
          rematchStatus(error.message);
          return;
        }
      }
      rematchStatus(S.new_game_waiting);
      window.location.assign("/play/");
    });
  }

  // -- socket ----------------------------------------------------------------------------------

  function onMessage(message) {
    switch (message.type) {
      case "chat_history":
        setRoom(message.room);
        setMuted(Boolean(message.muted));
        lines.replaceChildren();
        for (const line of message.messages) add(line);
        showEmpty();
        break;
      case "chat":
        if (!muted) add(message);
        break;
      case "chat_removed": {
        const line = lines.querySelector('[data-id="' + Number(message.id) + '"]');
        if (line) line.remove();
        break;
      }
      case "chat_mute":
        setMuted(message.muted);
        break;
      case "rematch_offer":
        if (message.asked.includes(panel.dataset.username)) {
          rematchStatus(fill(S.rematch_waiting, { names: message.waiting_for.join(", ") }));
        } else if (message.asked.length) {
          rematchStatus(fill(S.rematch_offer, { names: message.asked.join(", ") }));
        }
        break;
      case "rematch":
        rematchStatus(fill(S.rematch_ready, { game: message.game }), message.game);
        if (rematchBox) window.location.assign("/games/" + message.game + "/");
        break;
      case "error":
        if (message.id === "chat") errorBox.textContent = message.error;
        break;
      default:
        break;
    }
  }

  function send(frame) {
    errorBox.textContent = "";
    if (!socket.send({ ...frame, id: "chat" })) errorBox.textContent = S.error;
  }

  socket.listen({
    onOpen() {
      socket.send({ type: "chat_history" });
    },
    onMessage(message) {
      try {
        onMessage(message);
      } catch (error) {
        /* ignore */
      }
    },
    onClose(event) {
      if (event && event.code === 4404) return;
      socket.scheduleReconnect();
    },
  });

  if (form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      send({ type: "chat", text: text });
      input.value = "";
    });
    panel.querySelectorAll(".chat-preset").forEach((button) => {
      button.addEventListener("click", () => send({ type: "chat", preset: button.dataset.preset }));
    });
  }
  if (muteButton) {
    muteButton.addEventListener("click", () => send({ type: "chat_mute", muted: !muted }));
  }
  setUpRematch();
  showEmpty();
  socket.connectOnceLoaded(); // after the board's script has listened too (game.js)
}

main();
