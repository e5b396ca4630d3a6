/*
 * Small helpers every page script shares: placeholders, the json_script bootstrap, icons.
 */

/** Fills "%(name)s" placeholders; unknown names stay as they are. */
export function format(text, params) {
  return String(text ?? "").replace(/%\((\w+)\)s/g, (match, name) =>
    params && name in params ? String(params[name]) : match
  );
}

/**
 * A counted text: ``forms`` is {one, other} from the view (or a plain string); the page's
 * language picks the form for ``count``, then the placeholders are filled.
 */
export function plural(forms, count, params) {
  if (typeof forms !== "object" || forms === null) return format(forms, params);
  const lang = document.documentElement.lang || "en";
  const form = new Intl.PluralRules(lang).select(Number(count)) === "one" ? forms.one : forms.other;
  return format(form, params);
}

/** The value of a json_script element, or null when the page has none. */
export function readJSON(id) {
  const element = document.getElementById(id);
  return element ? JSON.parse(element.textContent) : null;
}

export const byId = (id) => document.getElementById(id);

/** An inline SVG icon from the page's sprite (templates/_icons.html). */
export function icon(name, className) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", className ? "icon " + className : "icon");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(ns, "use");
  use.setAttribute("href", "#icon-" + name);
  svg.appendChild(use);
  return svg;
}

/** Words for screen readers only. */
export function hiddenText(text) {
  const span = document.createElement("span");
  span.className = "visually-hidden";
  span.textContent = text;
  return span;
}

export function badge(className, text, title) {
  const span = document.createElement("span");
  span.className = "badge " + className;
  span.textContent = text;
  if (title) span.title = title;
  return span;
}
