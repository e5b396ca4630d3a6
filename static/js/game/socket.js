/*
 * The game page's WebSocket client (/ws/games/<id>/, protocol in API.md): connects, reconnects
 * with backoff, and never leaves a request hanging: when neither its answer nor (after a move)
 * the new state arrives within SYNC_AFTER_MS, it asks for the current state ("sync").
 *
 * Handlers: onOpen({reopened}), onMessage(message) (parsed frames only), onClose(event).
 * version() gives the state version the page holds (the answer to a move is a newer state).
 *
 * One socket per page and path (pageSocket): the game page's board (game.js) and its chat
 * (chat.js) listen to the same connection, so a watcher receives each state once. Each script
 * adds its handlers with listen(); frames go to every listener, each taking the types it knows
 * (the chat's requests carry the id "chat").
 */

export const SYNC_AFTER_MS = 4000;

export class GameSocket {
  constructor(path, { onOpen, onMessage, onClose, version } = {}) {
    this.path = path;
    this.listeners = [];
    if (onOpen || onMessage || onClose) this.listen({ onOpen, onMessage, onClose });
    this.version = version || (() => 0);
    this.socket = null;
    this.retries = 0;
    this.everOpened = false;
    this.reconnectTimer = null;
    this.syncTimer = null;
    this.syncBelowVersion = null; // after a move: a state past this version is the answer
    this.awaitedId = null; // the id of the request awaited, when the page gave one
    this.requestCount = 0;
  }

  /**
   * Adds handlers ({onOpen, onMessage, onClose}, each optional). A listener added once the socket
   * is open hears onOpen({reopened: false}) at once, so that it can ask for what it needs.
   */
  listen(handlers) {
    this.listeners.push(handlers);
    if (this.isOpen && handlers.onOpen) handlers.onOpen({ reopened: false });
    return this;
  }

  emit(name, value) {
    for (const listener of this.listeners) {
      if (listener[name]) listener[name](value);
    }
  }

  /** Connects once every script of the page has run and listened (or now, if they have). */
  connectOnceLoaded() {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", () => this.connect(), { once: true });
    } else {
      this.connect();
    }
  }

  url() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + window.location.host + this.path;
  }

  connect() {
    if (this.socket) return; // connecting or open already (another script of the page asked)
    window.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    try {
      this.socket = new WebSocket(this.url());
    } catch (error) {
      this.scheduleReconnect();
      return;
    }
    this.socket.addEventListener("open", () => {
      this.retries = 0;
      const reopened = this.everOpened;
      this.everOpened = true;
      if (reopened && this.path.startsWith("/ws/games/")) this.send({ type: "sync" });
      this.emit("onOpen", { reopened });
    });
    this.socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      this.emit("onMessage", message);
      if (this.syncTimer) this.answered(message);
    });
    this.socket.addEventListener("close", (event) => {
      this.socket = null;
      this.emit("onClose", event);
    });
  }

  /**
   * Asks whether the page holds the newest version (lib/fresh.js calls it on focus, back in view
   * and after a silence): {"type": "sync", "version"} on an open socket, answered by "sync" when
   * it is the newest and by the state otherwise; a socket that is down reconnects at once
   * instead of waiting out its backoff (the server sends the state on connect).
   */
  checkFresh() {
    if (this.isOpen) {
      this.send({ type: "sync", version: this.version() });
    } else {
      this.connect();
    }
  }

  scheduleReconnect() {
    if (this.reconnectTimer) return;
    const delay = Math.min(30000, 1000 * 2 ** this.retries) + Math.random() * 500;
    this.retries += 1;
    this.reconnectTimer = window.setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
  }

  get isOpen() {
    return Boolean(this.socket && this.socket.readyState === WebSocket.OPEN);
  }

  /** Sends a frame; false when the connection is down. */
  send(message) {
    if (!this.isOpen) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** A fresh request id: "move-3", "check-4"… */
  nextId(kind) {
    this.requestCount += 1;
    return kind + "-" + this.requestCount;
  }

  /**
   * Arms the sync timer for a request just sent: `stateToo` (a move) waits for a newer state
   * as well. `id` is the request's: a frame that names another request (an answer to an earlier
   * one) is not this one's answer. onTimeout runs before the "sync" is sent.
   */
  expectAnswer(stateToo, onTimeout, id = null) {
    window.clearTimeout(this.syncTimer);
    this.syncBelowVersion = stateToo ? this.version() : null;
    this.awaitedId = id;
    this.syncTimer = window.setTimeout(() => {
      this.syncTimer = null;
      onTimeout();
      this.send({ type: "sync" });
    }, SYNC_AFTER_MS);
  }

  answered(message) {
    const forAnother = message.id != null && this.awaitedId != null && message.id !== this.awaitedId;
    if (forAnother) return;
    const done =
      this.syncBelowVersion === null
        ? ["check", "hint", "error"].includes(message.type)
        : message.type === "error" || (message.type === "state" && this.version() > this.syncBelowVersion);
    if (done) {
      window.clearTimeout(this.syncTimer);
      this.syncTimer = null;
      this.syncBelowVersion = null;
      this.awaitedId = null;
    }
  }
}

const pageSockets = new Map();

/** The page's one socket to `path`, shared by every script of the page that asks for it. */
export function pageSocket(path) {
  if (!pageSockets.has(path)) pageSockets.set(path, new GameSocket(path));
  return pageSockets.get(path);
}
