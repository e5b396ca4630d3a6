/*
 * The lobby: the "new game" form shows only the seats the chosen number of players has, offers
 * each mode only with the numbers of players the server lists on its option (`data-players`,
 * from GameSettings) and Rated only when a seat is left to a person (the server checks all three
 * again); the game lists refresh themselves every few seconds while the page is visible, and at
 * once when it comes back into view or gets the focus (never stale).
 */
function main() {
  const POLL_MS = 5000;

  const form = document.getElementById("create-form");
  if (form) {
    const players = form.elements.namedItem("players");
    const mode = form.elements.namedItem("mode");
    const rated = form.querySelector('input[name="rated"][value="rated"]');
    const casual = form.querySelector('input[name="rated"][value="casual"]');

    const update = () => {
      const count = Number(players.value);
      let person = false;
      for (const field of form.querySelectorAll(".seat-field")) {
        const shown = Number(field.dataset.seat) <= count;
        const select = field.querySelector("select");
        field.hidden = !shown;
        select.disabled = !shown;
        if (shown && select.value === "person") person = true;
      }
      for (const option of mode.options) {
        if (option.dataset.players === undefined) continue;
        option.disabled = !option.dataset.players.split(" ").includes(String(count));
      }
      if (mode.selectedOptions[0]?.disabled) {
        const allowed = [...mode.options].find((option) => !option.disabled);
        if (allowed) mode.value = allowed.value;
      }
      if (rated && casual) {
        rated.disabled = !person;
        if (!person && rated.checked) casual.checked = true;
      }
    };

    // The start button names the opponents: "Start game against Bot (medium)".
    const startButton = document.getElementById("start-button");
    const startWords = JSON.parse(document.getElementById("lobby-strings")?.textContent || "null");
    const renameStart = () => {
      if (!startButton || !startWords) return;
      const counts = new Map();
      for (const field of form.querySelectorAll(".seat-field")) {
        if (field.hidden) continue;
        const level = field.querySelector("select").value || "person";
        counts.set(level, (counts.get(level) || 0) + 1);
      }
      const listed = [...counts].map(([level, times]) => {
        const name = startWords.names[level] || startWords.names.person;
        const named = times > 1 ? times + " × " + name : name;
        return named.replaceAll(" ", "\u00a0"); // a name wraps as one word
      });
      startButton.textContent = startWords.start.replace("%(opponents)s", listed.join(", "));
    };

    form.addEventListener("change", update);
    form.addEventListener("change", renameStart);
    update();
    renameStart();
    // A page brought back (Back, or the browser restoring the form's choices) names the seats
    // as they are now, not as they were served.
    window.addEventListener("pageshow", () => {
      update();
      renameStart();
    });
    // "Play a person" leaves every seat to a person, so Rated may be chosen for it.
    const personButton = document.getElementById("person-button");
    if (personButton && rated) {
      personButton.addEventListener("click", () => {
        rated.disabled = false;
      });
    }
  }

  const lists = document.getElementById("lobby-lists");
  if (!lists || !window.fetch) return;

  async function refresh() {
    if (document.hidden) return;
    try {
      const response = await fetch(lists.dataset.url, {
        headers: { "X-Requested-With": "fetch" },
        credentials: "same-origin",
      });
      if (!response.ok) return;
      const html = await response.text();
      // Each render masks the CSRF token anew: compare without it, so that an unchanged list
      // (and the focus in it) stays as it is.
      const bare = (text) => text.replace(/name="csrfmiddlewaretoken" value="[^"]*"/g, "").trim();
      // The fragment is the server's own template (escaped there), parsed as a document of its
      // own: no script in it runs, and no string of ours becomes markup.
      if (bare(html) !== lists.dataset.shown) {
        const fresh = new DOMParser().parseFromString(html, "text/html").body;
        lists.replaceChildren(...fresh.childNodes);
        lists.dataset.shown = bare(html);
      }
    } catch (error) {
      /* offline for a moment: try again at the next tick */
    }
  }

  window.setInterval(refresh, POLL_MS);
  document.addEventListener("visibilitychange", refresh);
  window.addEventListener("focus", refresh);
}

main();
