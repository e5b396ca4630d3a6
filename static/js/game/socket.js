/*
 * The game page's WebSocket client (/ws/games/<id>/, protocol in API.md): connects, reconnects
 * with backoff, and never leaves a request hanging: when neither its answer nor (after a move)
 * the new state arrives within SYNC_AFTER_MS, it asks for the current state ("sync").
 *
 * Handlers: onOpen({reopened}), onMessage(message) (parsed frames only), onClose().
 * version() gives the state version the page holds (the answer to a move is a newer state).
 */

export const SYNC_AFTER_MS = 4000;

export class GameSocket {
  constructor(path, { onOpen, onMessage, onClose, version }) {
    this.path = path;
    this.handlers = { onOpen, onMessage, onClose };
    this.version = version;
    this.socket = null;
    this.retries = 0;
    this.everOpened = false;
    this.reconnectTimer = null;
    this.syncTimer = null;
    this.syncBelowVersion = null; // after a move: a state past this version is the answer
    this.awaitedId = null; // the id of the request awaited, when the page gave one
    this.requestCount = 0;
  }

  url() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + window.location.host + this.path;
  }

  connect() {
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
      if (reopened) this.send({ type: "sync" });
      this.handlers.onOpen({ reopened });
    });
    this.socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      this.handlers.onMessage(message);
      if (this.syncTimer) this.answered(message);
    });
    this.socket.addEventListener("close", () => {
      this.socket = null;
      this.handlers.onClose();
    });
  }

  scheduleReconnect() {
    if (this.reconnectTimer) return;
    const delay = Math.min(30000, 1000 * 2 ** this.retries) + Math.random() * 500;
    this.retries += 1;
    this.reconnectTimer = window.setTimeout(() => this.connect(), delay);
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
