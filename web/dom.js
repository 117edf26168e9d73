// DOM helpers: build elements, label fields, show and clear errors; nothing here knows the API.

/** @typedef {Node | string | number | null | undefined | false | Child[]} Child */

let uid = 0;
/** @type {(prefix: string) => string} */
export const nextId = (prefix) => `${prefix}-${++uid}`;

/**
 * An element: ``class`` and ``text`` set its class and text, ``on<event>`` adds a listener, a property the
 * element has takes a value that is not a string (``checked``, ``hidden``), anything else is an attribute.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key in node && typeof value !== "string") /** @type {any} */ (node)[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * An element of the page by its id (index.html has every id the modules ask for); a caller that needs an
 * input's value or a button's state casts it to that element.
 * @type {(id: string) => HTMLElement}
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * A link from API data opens only as http(s): a javascript: or data: URL would run in this page.
 * @param {unknown} url
 * @returns {string | null}
 */
export function safeHref(url) {
  if (typeof url !== "string" || !url) return null;
  try {
    const { protocol } = new URL(url, document.baseURI);
    return protocol === "https:" || protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

/**
 * An external link, or the plain text when the URL is not a safe one.
 * @param {unknown} url
 * @param {string} text
 * @returns {HTMLElement}
 */
export function linkOrText(url, text) {
  const href = safeHref(url);
  return href ? h("a", { href, target: "_blank", rel: "noopener noreferrer", text }) : h("strong", { text });
}

/**
 * A labelled control with its error line (``aria-describedby``).
 * @param {string} labelText
 * @param {HTMLElement} control
 * @param {{hint?: string, name?: string}} [options]
 * @returns {HTMLDivElement}
 */
export function field(labelText, control, { hint, name } = {}) {
  const id = control.id || nextId("f");
  control.id = id;
  const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  control.setAttribute("aria-describedby", error.id);
  return h(
    "div",
    { class: "field", "data-field": name || "" },
    h("label", { for: id, text: labelText }),
    control,
    hint ? h("p", { class: "hint", text: hint }) : null,
    error,
  );
}

/**
 * @param {Element} container
 * @param {string} message
 */
export function setFieldError(container, message) {
  const error = /** @type {HTMLElement | null} */ (container.querySelector(".field-error"));
  const control = container.querySelector("input, select, textarea");
  if (!error) return;
  error.textContent = message || "";
  error.hidden = !message;
  if (control) control.setAttribute("aria-invalid", message ? "true" : "false");
}

/** @param {Element} card */
export function clearErrors(card) {
  for (const container of card.querySelectorAll(".field, .person")) setFieldError(container, "");
  const status = /** @type {HTMLElement | null} */ (card.querySelector(".card-error"));
  if (status) {
    status.hidden = true;
    status.textContent = "";
  }
}

/** @param {string} message the alert's text; empty hides it */
export function showAlert(message) {
  const alert = $("alert");
  alert.textContent = message;
  alert.hidden = !message;
}
