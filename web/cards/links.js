// Links between the cards of one turn (the card's ``links``): the text of a card that names what another
// card will produce once confirmed ("{{ticket.key}}"), shown as marked chips the user can see, keep or
// delete, recomputed from the other card as it is edited; and "Confirm all" for a turn's open cards.
import { api } from "../api.js";
import { h } from "../dom.js";
import { refreshOutbox } from "../outbox.js";

/**
 * One link, as the card carries it (multitool.toolkit.links.Link on the wire).
 * @typedef {{field: string, waitsFor: string, label: string, value: string, placeholder: string,
 *   kind: string, preview: string, pending: string, template: string, zone?: string}} Link
 */

const WHEN = new Map();
/** "Thursday 10 December, 15:00 (America/New_York)": a time in words in ``zone``, as the server writes it. */
function whenWords(iso, zone) {
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return "?";
  const key = zone || "UTC";
  if (!WHEN.has(key)) {
    WHEN.set(key, [
      new Intl.DateTimeFormat("en-GB", { weekday: "long", day: "numeric", month: "long", timeZone: key }),
      new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: key }),
    ]);
  }
  const [day, time] = WHEN.get(key);
  const [weekday, ...rest] = day.format(moment).replace(",", "").split(" ");
  return `${weekday} ${rest.join(" ")}, ${time.format(moment)} (${key})`;
}

/**
 * What a link's value will be, from the other card's current fields: the tool's template (``{project}-?``,
 * ``{slot.start|when}``; a field missing reads the first of its plural, the first slot offered).
 * @param {string} template
 * @param {Record<string, any>} fields
 * @param {string} [zone]
 * @returns {string}
 */
export function previewOf(template, fields, zone) {
  return template.replace(/\{([A-Za-z][A-Za-z0-9_.]*)(?:\|(when))?\}/g, (_, path, format) => {
    /** @type {any} */
    let value = fields;
    for (const part of path.split(".")) {
      if (!value || typeof value !== "object") return "?";
      let found = value[part];
      const plural = value[`${part}s`];
      if ((found === undefined || found === null) && Array.isArray(plural) && plural.length) found = plural[0];
      value = found;
    }
    if (value === undefined || value === null || value === "") return "?";
    return format === "when" ? whenWords(String(value), zone) : String(value);
  });
}

/**
 * The text split into plain pieces and the placeholders of ``links`` it holds.
 * @param {string} text
 * @param {Link[]} links
 * @returns {(string | Link)[]}
 */
export function splitText(text, links) {
  const known = new Map(links.map((link) => [link.placeholder, link]));
  if (!known.size) return [text];
  const escaped = [...known.keys()].map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return text.split(new RegExp(`(${escaped.join("|")})`)).filter((piece) => piece !== "").map((piece) => known.get(piece) || piece);
}

const NOUNS = { show_jira_ticket_draft: "the ticket", show_meeting_scheduler: "the meeting", show_new_email_draft: "the email" };
const nounOf = (kind) => NOUNS[kind] || "the other card";

function cardArticle(id) {
  return /** @type {HTMLElement | null} */ (document.querySelector(`article.card[data-card-id="${CSS.escape(id)}"]`));
}

// The other card as the user sees it now: its card and its fields as they would be confirmed.
function currentFields(id) {
  const article = /** @type {any} */ (cardArticle(id));
  if (!article || !article.cardData) return null;
  const read = typeof article.readCard === "function" ? article.readCard() : { fields: {} };
  return { ...article.cardData, ...read.fields };
}

/**
 * The panel of a card whose text waits for other cards: each field's text with its placeholders as chips
 * (what each will say, and until when), which card it waits for, and a button on each chip that removes the
 * placeholder from the text. It redraws when this card's text or the other card changes.
 * @param {HTMLElement} article
 * @param {any} card
 * @param {HTMLFormElement} form
 * @returns {HTMLElement | null}
 */
export function linksPanel(article, card, form) {
  /** @type {Link[]} */
  const links = Array.isArray(card.links) ? card.links : [];
  if (!links.length) return null;
  const panel = h("section", { class: "card-links", "data-testid": "card-links", "aria-label": "Values this card waits for" });
  const control = (name) => /** @type {HTMLInputElement | HTMLTextAreaElement | null} */ (form.querySelector(`[name="${CSS.escape(name)}"]`));
  const chip = (link) => {
    const other = cardArticle(link.waitsFor);
    const state = other ? other.dataset.state : "";
    const fields = currentFields(link.waitsFor);
    const value = fields ? previewOf(link.template, fields, link.zone) : link.preview;
    const until = state === "is-done" ? "filled in when this is sent"
      : state === "is-discarded" ? `${nounOf(link.kind)} was discarded: this will be removed`
        : link.pending;
    const remove = h("button", { type: "button", class: "link-chip-remove", "aria-label": `Remove ${value} from the text`, text: "×" });
    remove.addEventListener("click", () => {
      const input = control(link.field);
      if (!input) return;
      input.value = input.value.split(link.placeholder).join("").replace(/[ \t]{2,}/g, " ");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    return h("mark", { class: `link-chip${state === "is-discarded" ? " is-dropped" : ""}`, "data-placeholder": link.placeholder, title: until },
      h("span", { class: "link-chip-value", text: value }),
      h("span", { class: "link-chip-until", text: `, ${until}` }),
      remove);
  };
  const draw = () => {
    // Once this card is settled its text is what was sent (the values filled in), or nothing will be.
    panel.hidden = ["is-done", "is-discarded", "is-superseded", "is-gone"].includes(article.dataset.state || "");
    if (panel.hidden) return;
    const fields = [...new Set(links.map((link) => link.field))];
    const lines = fields.map((name) => {
      const input = control(name);
      const text = input ? input.value : String(card[name] || "");
      const pieces = splitText(text, links.filter((link) => link.field === name));
      if (!pieces.some((piece) => typeof piece !== "string")) return null;
      return h("p", { class: "link-preview", "data-field-preview": name },
        h("span", { class: "link-preview-name", text: `${name[0].toUpperCase()}${name.slice(1)}: ` }),
        pieces.map((piece) => (typeof piece === "string" ? piece : chip(piece))));
    }).filter((line) => line !== null);
    const waits = [...new Set(links.map((link) => link.waitsFor))].filter((id) => lines.length && cardArticle(id));
    const targets = waits.map((id) => {
      const link = links.find((l) => l.waitsFor === id);
      const go = h("a", { href: "#", class: "link-target", text: `${nounOf(link ? link.kind : "")} card` });
      go.addEventListener("click", (event) => {
        event.preventDefault();
        const target = cardArticle(id);
        if (target) target.scrollIntoView({ block: "center" });
      });
      return go;
    });
    panel.replaceChildren(
      lines.length ? h("p", { class: "link-head" }, "Waits for ", ...targets.flatMap((t, i) => (i ? [" and ", t] : [t])), ": it is confirmed first, and its values are filled in.") : h("p", { class: "link-head muted", text: "Waits for nothing: the placeholders were removed." }),
      ...lines);
  };
  form.addEventListener("input", draw);
  form.addEventListener("change", draw);
  const others = new Set(links.map((link) => link.waitsFor));
  const onOther = (event) => {
    const target = /** @type {HTMLElement | null} */ (event.target instanceof Element ? event.target.closest("article.card") : null);
    if (target && others.has(target.dataset.cardId || "")) draw();
  };
  document.addEventListener("input", onOther);
  document.addEventListener("change", onOther);
  document.addEventListener("card:state", onOther);
  article.addEventListener("card:state", draw);
  queueMicrotask(draw); // once the other cards of the turn are on the page
  return panel;
}

/**
 * Confirm several cards in dependency order (POST /actions/confirm-all), each with its fields as the page
 * shows them; each card is told its outcome (``card:outcome``).
 * @param {string[]} ids
 * @returns {Promise<boolean>} whether the request was answered
 */
export async function confirmCards(ids) {
  /** @type {Record<string, Record<string, unknown>>} */
  const edits = {};
  for (const id of ids) {
    const article = /** @type {any} */ (cardArticle(id));
    if (article && typeof article.readCard === "function") edits[id] = article.readCard().fields;
  }
  const result = await api("/actions/confirm-all", { method: "POST", body: { ids, edits } });
  if (!result.ok) return false;
  for (const outcome of result.data.outcomes || []) {
    const article = cardArticle(outcome.id);
    if (article) article.dispatchEvent(new CustomEvent("card:outcome", { detail: outcome }));
  }
  refreshOutbox();
  return true;
}

const OPEN = 'article.card[data-state="is-proposed"], article.card[data-state="is-failed"]';

/**
 * "Confirm all" above a turn's cards once it has two open cards or more: it confirms them in dependency
 * order and says what happened to each.
 * @param {HTMLElement} cards the turn's ``.cards`` container
 */
export function updateConfirmAll(cards) {
  if (!cards || !cards.classList.contains("cards")) return;
  const open = [...cards.querySelectorAll(OPEN)].map((a) => /** @type {HTMLElement} */ (a).dataset.cardId || "").filter(Boolean);
  let bar = /** @type {HTMLElement | null} */ (cards.querySelector(":scope > .confirm-all"));
  if (open.length < 2) {
    if (bar && !bar.dataset.busy) bar.remove();
    return;
  }
  if (!bar) {
    const button = h("button", { type: "button", class: "btn btn-primary", "data-testid": "confirm-all" });
    const status = h("span", { class: "confirm-all-status", "aria-live": "polite" });
    bar = h("div", { class: "confirm-all" }, button, status);
    button.addEventListener("click", async () => {
      const ids = [...cards.querySelectorAll(OPEN)].map((a) => /** @type {HTMLElement} */ (a).dataset.cardId || "");
      button.disabled = true;
      /** @type {HTMLElement} */ (bar).dataset.busy = "true";
      status.textContent = "Confirming in order…";
      const answered = await confirmCards(ids);
      status.textContent = answered ? "Done: each card says what happened." : "Confirm all did not reach the server; try again.";
      delete (/** @type {HTMLElement} */ (bar).dataset.busy);
      button.disabled = false;
      updateConfirmAll(cards);
    });
    cards.prepend(bar);
  }
  const button = /** @type {HTMLButtonElement} */ (bar.querySelector("button"));
  button.textContent = `Confirm all ${open.length}`;
}

/**
 * The words of a 409 waits_for: what to confirm first, and the one click that does it.
 * @param {any} error the API's error body's ``error``
 * @param {string} id this card's id
 * @param {string} verb this card's confirm label ("send")
 * @returns {HTMLElement | null}
 */
export function confirmFirstButton(error, id, verb) {
  const waits = error && Array.isArray(error.waitsFor) ? error.waitsFor : [];
  if (!waits.length) return null;
  const nouns = waits.map((w) => {
    const other = cardArticle(w);
    return nounOf(other ? other.dataset.cardType : "");
  });
  const button = h("button", { type: "button", class: "btn btn-secondary confirm-first", text: `Confirm ${nouns.join(" and ")} first, then ${verb}` });
  button.addEventListener("click", async () => {
    button.disabled = true;
    if (!(await confirmCards([...waits, id]))) {
      button.disabled = false;
      button.replaceWith(h("span", { text: "That did not reach the server; try again." }));
    }
  });
  return button;
}
