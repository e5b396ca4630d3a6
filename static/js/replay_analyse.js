/* The replay's "Analyse from here" link follows the turn shown (replay.js sends "replay:step"). */
const link = document.getElementById("analyse-link");
if (link) {
  document.addEventListener("replay:step", (event) => {
    const url = new URL(link.href, location.href);
    url.searchParams.set("ply", event.detail.ply);
    link.href = url.pathname + url.search;
  });
}
