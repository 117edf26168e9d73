// DOM helpers: build elements, label fields, show and clear errors; nothing here knows the API.

let uid = 0;
export const nextId = (prefix) => `${prefix}-${++uid}`;

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const $ = (id) => document.getElementById(id);

// A link from API data opens only as http(s): a javascript: or data: URL would run in this page.
export function safeHref(url) {
  if (typeof url !== "string" || !url) return null;
  try {
    const { protocol } = new URL(url, document.baseURI);
    return protocol === "https:" || protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

// An external link, or the plain text when the URL is not a safe one.
export function linkOrText(url, text) {
  const href = safeHref(url);
  return href ? h("a", { href, target: "_blank", rel: "noopener noreferrer", text }) : h("strong", { text });
}

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

export function setFieldError(container, message) {
  const error = container.querySelector(".field-error");
  const control = container.querySelector("input, select, textarea");
  if (!error) return;
  error.textContent = message || "";
  error.hidden = !message;
  if (control) control.setAttribute("aria-invalid", message ? "true" : "false");
}

export function clearErrors(card) {
  for (const container of card.querySelectorAll(".field, .person")) setFieldError(container, "");
  const status = card.querySelector(".card-error");
  if (status) {
    status.hidden = true;
    status.textContent = "";
  }
}

export function showAlert(message) {
  const alert = $("alert");
  alert.textContent = message;
  alert.hidden = !message;
}
