/*
 * Pages that never go stale: a live page asks the server whether it still shows the newest
 * version (docs/sockets.md, "Staying up to date") when it comes back into view or gets the focus,
 * and whenever its socket has been silent for SILENT_MS. The page's `check` does the asking: a
 * `sync` with its version on an open socket, a reconnect (or a REST re-fetch) on a closed one.
 *
 *   const fresh = keepFresh(check);   // starts listening
 *   fresh.heard();                    // on every frame: the socket is alive, the silence restarts
 *
 * Checks closer together than MIN_GAP_MS are one (focus and visibilitychange come in pairs), and
 * a hidden page does not check: it will when it is shown again.
 */

export const SILENT_MS = 30000;
export const MIN_GAP_MS = 1000;

export function keepFresh(check, { silentMs = SILENT_MS, minGapMs = MIN_GAP_MS } = {}) {
  const doc = globalThis.document;
  let timer = null;
  let last = -Infinity;

  const hidden = () => Boolean(doc && doc.visibilityState === "hidden");

  function arm() {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      timer = null;
      run("silence");
      arm();
    }, silentMs);
  }

  function run(reason) {
    if (hidden()) return false;
    const now = Date.now();
    if (now - last < minGapMs) return false;
    last = now;
    check(reason);
    return true;
  }

  const onVisible = () => {
    if (!hidden()) run("visible");
  };
  const onFocus = () => run("focus");
  if (doc && doc.addEventListener) doc.addEventListener("visibilitychange", onVisible);
  if (window.addEventListener) window.addEventListener("focus", onFocus);
  arm();

  return {
    /** A frame came: the socket is alive, so the silence starts over. */
    heard() {
      arm();
    },
    /** Checks now (unless one just ran, or the page is hidden); whether it did. */
    now(reason = "asked") {
      return run(reason);
    },
    stop() {
      window.clearTimeout(timer);
      timer = null;
      if (doc && doc.removeEventListener) doc.removeEventListener("visibilitychange", onVisible);
      if (window.removeEventListener) window.removeEventListener("focus", onFocus);
    },
  };
}
