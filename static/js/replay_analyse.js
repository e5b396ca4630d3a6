/* The replay's "Analyse from here" link follows the turn shown (replay.js sends "replay:step"). */
(function () {
  "use strict";
  const link = document.getElementById("analyse-link");
  if (!link) return;
  document.addEventListener("replay:step", (event) => {
    const url = new URL(link.href, location.href);
    url.searchParams.set("ply", event.detail.ply);
    link.href = url.pathname + url.search;
  });
})();
