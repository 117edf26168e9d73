// Any card type this page has no renderer for is drawn from its fields.
import { h } from "../dom.js";
import { personLabel } from "../people.js";

/**
 * "show_reminder_draft" -> "Reminder draft".
 * @param {string | null | undefined} type
 * @returns {string}
 */
export function typeTitle(type) {
  const words = String(type || "action").replace(/^show_/, "").replace(/_/g, " ").trim() || "action";
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// "dueDate" -> "Due date".
function fieldTitle(name) {
  const words = String(name).replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function readableValue(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.length ? value.map(readableValue).join(", ") : "—";
  if (typeof value === "object") {
    if (value.person && value.person.displayName) return personLabel(value.person);
    if (typeof value.query === "string") return value.query;
    if (value.start && value.end) return `${value.start} – ${value.end}`;
    return JSON.stringify(value);
  }
  return String(value);
}

/**
 * Any card type this page has no renderer for: every field, read-only, confirmed as proposed.
 * @param {Record<string, unknown>} card
 * @returns {import("./kinds.js").BuiltCard}
 */
export function genericCard(card) {
  const hidden = new Set(["type", "id", "notes"]);
  const rows = Object.entries(card)
    .filter(([name]) => !hidden.has(name))
    .map(([name, value]) => h("div", { class: "field generic-field", "data-field": name },
      h("dt", { text: fieldTitle(name) }),
      h("dd", { text: readableValue(value) })));
  const fields = [h("dl", { class: "generic-fields" }, rows)];
  return { fields, read: () => ({ problems: [], fields: {} }) };
}
