/* Tournament pages: countdowns to the start, and the live part of a tournament's page.
 *
 * The tournament's WebSocket (/ws/tournaments/{id}/) pushes {"type": "tournament", "version"}
 * after every change (join, leave, start, a game's end, a new round). When the version is newer
 * than the one shown, the page fetches its live part again, rendered by the server in the
 * page's language, and swaps it in: standings, rounds and the "Play your game" button appear
 * without a reload.
 *
 * Never stale (lib/fresh.js): on focus, when the page comes back into view and while the socket
 * has been silent for 30 s, the page sends {"type": "sync", "version"} (answered by "sync" when
 * it shows the newest version, else by the current "tournament" frame); with the socket down it
 * reconnects at once and fetches the live part itself, which carries its version (data-version).
 */
import { keepFresh } from "./lib/fresh.js";
import { format } from "./lib/util.js";

function main() {
  const stringsNode = document.getElementById("tournament-strings");
  const strings = stringsNode ? JSON.parse(stringsNode.textContent) : {};

  function pad(n) {
    return String(n).padStart(2, "0");
  }

  function untilText(ms) {
    if (ms <= 0) return strings.starting;
    const total = Math.floor(ms / 1000);
    const days = Math.floor(total / 86400);
    const clock = `${pad(Math.floor((total % 86400) / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
    const time = days > 0 ? `${format(strings.days, { days })} ${clock}` : clock;
    return format(strings.starts_in, { time });
  }

  function tick() {
    const now = Date.now();
    document.querySelectorAll(".countdown[data-starts-at]").forEach((node) => {
      const text = untilText(Date.parse(node.dataset.startsAt) - now);
      if (node.textContent !== text) node.textContent = text;
    });
  }

  document.addEventListener("submit", (event) => {
    const button = event.submitter;
    if (button && button.dataset.confirm && !window.confirm(button.dataset.confirm)) {
      event.preventDefault();
    }
  });

  tick();
  window.setInterval(tick, 1000);

  const live = document.getElementById("tournament-live");
  if (!live) return;
  let shown = Number(live.dataset.version);
  let loading = null;
  let wanted = shown;
  let retry = 1000;
  let socket = null;
  let reconnectTimer = null;

  async function refresh(force = false) {
    if (force && !loading) wanted = Math.max(wanted, shown + 1); // ask; the answer says
    if (loading) return;
    loading = (async () => {
      try {
        while (wanted > shown) {
          const target = wanted;
          const response = await fetch(live.dataset.liveUrl, { credentials: "same-origin" });
          if (!response.ok) break;
          const html = await response.text();
          // The server's own template (escaped there), parsed as a document of its own: no
          // script in it runs, and no string of ours becomes markup.
          const box = new DOMParser().parseFromString(html, "text/html").body;
          const part = box.querySelector(".tournament-live");
          const version = part ? Number(part.dataset.version) : target;
          if (version >= shown) {
            live.replaceChildren(...box.childNodes);
            shown = version;
            live.dataset.version = String(version);
            tick();
          }
          if (version < target) {
            wanted = shown; // the server is behind the push (or had nothing new): wait for more
            break;
          }
        }
      } finally {
        loading = null;
      }
    })();
  }

  function connect() {
    window.clearTimeout(reconnectTimer);
    reconnectTimer = null;
    if (socket) return; // connecting or open
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}${live.dataset.wsPath}`);
    socket.addEventListener("open", () => {
      retry = 1000;
      live.classList.remove("is-offline");
    });
    socket.addEventListener("message", (event) => {
      fresh.heard();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      const newer = message.type === "tournament" || message.type === "sync";
      if (newer && message.version > shown) {
        wanted = Math.max(wanted, message.version);
        refresh();
      }
    });
    socket.addEventListener("close", (event) => {
      socket = null;
      if (event.code === 4404) {
        fresh.stop();
        return;
      }
      live.classList.add("is-offline");
      live.title = strings.connection_lost || "";
      reconnectTimer = window.setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    });
  }

  /** Whether the page shows the newest version: ask the socket, or the server's live part. */
  function checkFresh() {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "sync", version: shown }));
      return;
    }
    refresh(true);
    connect();
  }
  const fresh = keepFresh(checkFresh);

  connect();
}

main();
