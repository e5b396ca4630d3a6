/*
 * The lobby's "new game" form: show only the seats the chosen number of players has, and offer
 * teams only with 4 players (the server checks both again).
 */
(function () {
  "use strict";

  const form = document.getElementById("create-form");
  if (!form) return;
  const players = form.elements.namedItem("players");
  const mode = form.elements.namedItem("mode");

  function update() {
    const count = Number(players.value);
    for (const field of form.querySelectorAll(".seat-field")) {
      const shown = Number(field.dataset.seat) <= count;
      field.hidden = !shown;
      field.querySelector("select").disabled = !shown;
    }
    const teams = mode.querySelector('option[value="teams"]');
    if (teams) {
      teams.disabled = count !== 4;
      if (count !== 4 && mode.value === "teams") mode.value = "ffa";
    }
  }

  players.addEventListener("change", update);
  update();
})();
