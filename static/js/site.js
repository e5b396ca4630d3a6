/*
 * Every page: the menu button of the one-line header on narrow screens.
 */
(function () {
  "use strict";

  const button = document.getElementById("menu-button");
  const menu = document.getElementById("nav-menu");
  if (!button || !menu) return;
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    menu.classList.toggle("is-open", open);
  });
})();
