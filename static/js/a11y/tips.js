/*
 * Every page: nothing only by hover. A `title` on a plain element of the page (a hint's bulb, a
 * rating, a column's meaning) also shows as a tip when the element has the keyboard's focus or
 * is tapped; Escape or a tap elsewhere hides it (docs/accessibility.md).
 */
const PLAIN = "[title]:not(a, button, input, select, textarea, iframe, svg, option, [tabindex], .board *)";

let tip = null;

function hide() {
  if (tip) tip.remove();
  tip = null;
}

function show(element) {
  hide();
  tip = document.createElement("span");
  tip.className = "tip";
  tip.setAttribute("role", "tooltip");
  tip.textContent = element.title;
  document.body.appendChild(tip);
  const box = element.getBoundingClientRect();
  const width = tip.offsetWidth;
  const left = Math.max(4, Math.min(window.innerWidth - width - 4, box.left + box.width / 2 - width / 2));
  tip.style.left = left + window.scrollX + "px";
  tip.style.top = box.bottom + window.scrollY + 6 + "px";
}

/** The plain elements with a title get the focus in the Tab order (drawn ones on their next focus). */
function reach(root) {
  for (const element of root.querySelectorAll("main " + PLAIN)) {
    if (!element.closest('[aria-hidden="true"]')) element.tabIndex = 0; // hidden ones have their words in the text
  }
}

const tipped = (target) => target.closest && target.closest("main [title]");
document.addEventListener("focusin", (event) => {
  const element = tipped(event.target);
  if (element && element === event.target && element.title) show(element);
});
document.addEventListener("focusout", hide);
document.addEventListener("click", (event) => {
  const element = tipped(event.target);
  if (element && element.title && !element.closest("a, button")) show(element);
  else hide();
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") hide();
});
reach(document);
