// A card that only shows something (the agenda, free times): its fields, and nothing to confirm or
// discard; revised by chat, it is drawn as replaced.
import { h, nextId } from "../dom.js";

/**
 * @param {any} card
 * @param {string | null | undefined} caption
 * @param {import("./kinds.js").CardKind} kind
 * @returns {HTMLElement}
 */
export function renderReadOnly(card, caption, kind) {
  const titleId = nextId("card-title");
  const article = h("article", { class: `card card-${card.type} is-read-only`, "data-card-type": card.type, "data-card-id": card.id, "data-state": "is-read-only", "aria-labelledby": titleId });
  article.append(...[
    h("header", { class: "card-head" },
      h("span", { class: "card-icon", "aria-hidden": "true", text: kind.icon }),
      h("h3", { id: titleId, class: "card-title", text: kind.title })),
    caption ? h("p", { class: "caption", text: caption }) : null,
    card.revises ? h("p", { class: "card-revision", text: "Revised by chat: replaces the card above." }) : null,
    Array.isArray(card.notes) && card.notes.length
      ? h("ul", { class: "notes" }, card.notes.map((note) => h("li", { text: String(note) })))
      : null,
    ...kind.build(card).fields,
  ].filter((node) => node !== null));
  // Revised by chat ("tomorrow instead"): this one is replaced.
  article.addEventListener("card:replaced", () => {
    article.dataset.state = "is-superseded";
    article.classList.add("is-superseded");
    article.querySelector(".card-head")?.append(h("p", { class: "card-status", text: "Replaced" }));
  });
  return article;
}

