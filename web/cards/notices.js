// What a card says when the API refused it or no longer has it: the errors placed at their fields, and the
// card of a draft that is gone.
import { errorMessage, fieldErrors } from "../api.js";
import { h, nextId } from "../dom.js";
import { connectLink } from "./connect.js";

/**
 * The API's refusal on the card: each field's error at its field, else the message.
 * @param {HTMLElement} article
 * @param {import("../api.js").ApiResult} result
 * @param {(message: string, fromFields?: boolean) => void} fail
 */
export function showApiError(article, result, fail) {
  const errors = result.status === 422 || result.status === 400 ? fieldErrors(result.data) : [];
  let placed = false;
  for (const { field: name, message } of errors) {
    const match = /^(\w+)(?:\[(\d+)\])?/.exec(name) || [];
    const container = match[1] ? article.querySelector(`[data-field="${CSS.escape(match[1])}"]`) : null;
    if (!container) continue;
    const row = match[2] !== undefined ? container.querySelectorAll(".person")[Number(match[2])] : null;
    const error = /** @type {HTMLElement | null} */ ((row && row.querySelector(".field-error")) || container.querySelector(":scope > .field-error"));
    if (error) {
      error.textContent = message;
      error.hidden = false;
      placed = true;
    }
  }
  fail(placed ? "Please fix the highlighted fields." : errorMessage(result));
  // The user's own account is not connected: the confirm waits, the card offers the consent.
  const link = result.data && result.data.error && result.data.error.code === "account_not_connected" ? connectLink(result.data.error) : null;
  const words = article.querySelector(".card-error");
  if (link && words) words.append(" ", link);
}

// A card whose draft the API no longer has (expired, or a local server that started again without its
// data): it says so, and offers nothing to confirm.
/**
 * @param {{id: string, caption?: string}} entry
 * @param {import("../api.js").ApiResult} result
 * @returns {HTMLElement}
 */
export function goneCard(entry, result) {
  const titleId = nextId("card-title");
  const why = result.status === 404
    ? "This draft is no longer available: it expired, or the server no longer has it. Nothing was sent, booked or created; ask again to get a new one."
    : `This card could not be read again: ${errorMessage(result)}`;
  return h("article", { class: "card is-gone", "data-card-id": entry.id, "data-state": "is-gone", "aria-labelledby": titleId },
    h("header", { class: "card-head" },
      h("h3", { id: titleId, class: "card-title", text: "Draft" }),
      h("p", { class: "card-status", text: result.status === 404 ? "No longer available" : "Not shown" })),
    entry.caption ? h("p", { class: "caption", text: entry.caption }) : null,
    h("p", { class: "card-error", role: "alert", text: why }));
}
