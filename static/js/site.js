// Every page: the language menu switches as soon as a language is chosen. (An event listener here,
// not an onchange attribute: the Content-Security-Policy refuses inline handlers.)
const select = document.getElementById("language-select");
if (select && select.form) {
  select.addEventListener("change", () => select.form.submit());
}

// Every page: the menu button of the one-line header on narrow screens.
const button = document.getElementById("menu-button");
const menu = document.getElementById("nav-menu");
if (button && menu) {
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    menu.classList.toggle("is-open", open);
  });
}
