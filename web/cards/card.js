// One card per client action: its fields (from the card type's module), Confirm and Discard, and the
// action's own state (GET /actions/{id}) deciding what the card offers.
import { api, errorMessage, fieldErrors } from "../api.js";
import { clearErrors, h, nextId } from "../dom.js";
import { refreshOutbox } from "../outbox.js";
import { connectLink, renderConnectCard } from "./connect.js";
import { agenda } from "./agenda.js";
import { email } from "./email.js";
import { free } from "./free.js";
import { genericCard, typeTitle } from "./generic.js";
import { jira } from "./jira.js";
import { meeting } from "./meeting.js";
import { renderReadOnly } from "./readonly.js";

/**
 * What a card type's fields read: what keeps it from being confirmed, and the confirm's body.
 * @typedef {{problems: string[], fields: Record<string, unknown>}} CardReading
 */
/** @typedef {{fields: HTMLElement[], read: () => CardReading}} BuiltCard a card's fields and their reader */
/**
 * A card type's module: how its fields are drawn and read, and how a done action is drawn again.
 * @typedef {object} CardKind
 * @property {string} [type] the client action's type
 * @property {string} title
 * @property {string} icon
 * @property {(card: any) => BuiltCard} build
 * @property {(card: any, edits: any) => any} [sent] the card as done, from the confirmed edits
 * @property {string} done what the card says once done
 * @property {string} [confirmLabel]
 * @property {(view: any) => HTMLElement | null} [result] what the confirm's answer names
 * @property {boolean} [readOnly] the card only shows something: no Confirm, no Discard
 */

// One module per card type (that is UI); a type without one gets the generic card.
/** @type {Record<string, CardKind>} */
const CARD_TYPES = Object.fromEntries([email, meeting, jira, agenda, free].map((kind) => [kind.type, kind]));

/**
 * @param {string} type
 * @returns {CardKind}
 */
function cardKind(type) {
  return CARD_TYPES[type] || { title: typeTitle(type), icon: "•", build: genericCard, done: "Done" };
}

// The confirm answer is the action's view: {id, action, status, result, ...}.
function resultView(kind, view) {
  return (kind.result && kind.result(view)) || h("span", { text: kind.done });
}

// ``known``: the action as GET /actions/{id} just answered (a conversation read back), else it is asked.
// ``waiting``: for a consent card, the message to send again once the account is connected.
/**
 * @param {any} card
 * @param {string | null | undefined} caption
 * @param {any} [known]
 * @param {string | null} [waiting]
 * @returns {HTMLElement}
 */
function renderCard(card, caption, known = null, waiting = null) {
  if (card.type === "show_connect_account") return renderConnectCard(card, caption, waiting); // no draft behind it
  const kind = cardKind(card.type);
  if (kind.readOnly) return renderReadOnly(card, caption, kind);
  const titleId = nextId("card-title");
  const article = h("article", { class: `card card-${card.type}`, "data-card-type": card.type, "data-card-id": card.id, "aria-labelledby": titleId });
  let built = kind.build(card);
  const status = h("p", { class: "card-status", "aria-live": "polite" });
  const cardError = h("p", { class: "card-error", role: "alert", hidden: true });
  const confirm = h("button", { type: "submit", class: "btn btn-primary", text: kind.confirmLabel || "Confirm" });
  const discard = h("button", { type: "button", class: "btn btn-secondary", text: "Discard" });
  const actions = h("div", { class: "card-actions" }, confirm, discard);
  const form = h("form", { class: "card-form", novalidate: true }, built.fields, cardError, actions);
  article.append(...[
    h("header", { class: "card-head" },
      h("span", { class: "card-icon", "aria-hidden": "true", text: kind.icon }),
      h("h3", { id: titleId, class: "card-title", text: kind.title }),
      status),
    caption ? h("p", { class: "caption", text: caption }) : null,
    card.revises ? h("p", { class: "card-revision", text: "Revised by chat: replaces the card above." }) : null,
    Array.isArray(card.notes) && card.notes.length
      ? h("ul", { class: "notes" }, card.notes.map((note) => h("li", { text: String(note) })))
      : null,
    form,
  ].filter((node) => node !== null));

  const lock = (label, cls) => {
    article.classList.add(cls);
    article.dataset.state = cls;
    for (const control of form.querySelectorAll("input, select, textarea, button")) /** @type {HTMLInputElement} */ (control).disabled = true;
    status.replaceChildren(label);
  };
  const fail = (message, fromFields = false) => {
    cardError.textContent = message;
    cardError.hidden = false;
    cardError.dataset.fromFields = String(fromFields);
  };
  // What the fields said was missing ("Choose which Alex you mean.") goes once a field changes: the
  // next confirm reads them again.
  form.addEventListener("change", () => {
    if (cardError.dataset.fromFields === "true") cardError.hidden = true;
  });
  // A done action shows what was done: the confirmed content (GET /actions/{id}'s ``edits``), which
  // another client may have edited, not the draft /chat proposed.
  const showSent = (view) => {
    if (!view.edits || !kind.sent) return;
    const drafted = JSON.stringify(built.read().fields);
    built = kind.build(kind.sent(card, view.edits));
    form.replaceChildren(...built.fields, cardError, actions);
    if (JSON.stringify(built.read().fields) !== drafted) {
      form.before(h("p", { class: "card-revision card-sent-as", text: "Confirmed with changes: this is what was done, not the draft above." }));
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(article);
    const { problems, fields } = built.read();
    if (problems.length) {
      fail(problems.join(" "), true);
      return;
    }
    confirm.disabled = discard.disabled = true;
    status.textContent = "Working…";
    const result = await api(`/actions/${encodeURIComponent(card.id)}/confirm`, { method: "POST", body: fields });
    if (result.ok) {
      lock(resultView(kind, result.data), "is-done");
      refreshOutbox();
      return;
    }
    status.textContent = "";
    if (!settleFromConflict(result) && !settleGone(result)) {
      confirm.disabled = discard.disabled = false;
      showApiError(article, result, fail);
    }
  });
  discard.addEventListener("click", async () => {
    clearErrors(article);
    confirm.disabled = discard.disabled = true;
    const result = await api(`/actions/${encodeURIComponent(card.id)}/discard`, { method: "POST" });
    if (result.ok) {
      lock("Discarded", "is-discarded");
      return;
    }
    if (!settleFromConflict(result) && !settleGone(result)) {
      confirm.disabled = discard.disabled = false;
      showApiError(article, result, fail);
    }
  });
  // The draft is no longer there (expired, or a local server that started again without its data): say so,
  // and offer nothing to confirm.
  function settleGone(result) {
    if (result.status !== 404) return false;
    lock("No longer available", "is-gone");
    fail(`${errorMessage(result)} This draft is no longer available: nothing was sent, booked or created. Ask again to get a new one.`);
    return true;
  }
  // A card revised by chat is replaced: drawn as such, pointing at its successor, never confirmable.
  function showReplaced(byId) {
    if (article.dataset.state === "is-superseded") return;
    lock("Replaced", "is-superseded");
    const successor = byId ? document.querySelector(`article.card[data-card-id="${CSS.escape(byId)}"]`) : null;
    const link = h("a", { href: "#", class: "card-successor", text: "Replaced by the revised card below." });
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const target = successor || document.querySelector(`article.card[data-card-id="${CSS.escape(byId || "")}"]`);
      if (target) target.scrollIntoView({ block: "center" });
    });
    form.before(link);
  }
  article.addEventListener("card:replaced", (event) => {
    const detail = /** @type {CustomEvent<{by?: string} | null>} */ (event).detail;
    showReplaced(detail && detail.by);
  });
  // A settled action is drawn in its state (with its result), never as a form to confirm again.
  function showSettled(view) {
    if (view.status === "done") {
      showSent(view);
      lock(resultView(kind, view), "is-done");
    }
    else if (view.status === "discarded") lock("Discarded", "is-discarded");
    else if (view.status === "superseded") showReplaced(view.supersededBy);
    else return false;
    return true;
  }
  // A 409 carries the action as it is now (done elsewhere, discarded, in progress): show that.
  function settleFromConflict(result) {
    const view = result.status === 409 && result.data ? result.data.action : null;
    if (!view || !showSettled(view)) return false;
    fail(errorMessage(result));
    return true;
  }
  // /chat's answer can be older than the action (a replayed answer, a card confirmed in another
  // tab): the action's own state, from GET /actions/{id}, decides what the card offers.
  async function showCurrentState() {
    confirm.disabled = discard.disabled = true;
    article.dataset.state = "is-checking";
    const result = known ? { ok: true, status: 200, data: known } : await api(`/actions/${encodeURIComponent(card.id)}`);
    const view = result.ok && result.data ? result.data : null;
    if (view && showSettled(view)) return;
    if (view && view.status === "executing") {
      lock("In progress", "is-executing");
      return;
    }
    if (settleGone(result)) return;
    // Proposed, failed (a confirm retries it), or the state could not be read: the confirm
    // endpoint still refuses anything it must not do.
    article.dataset.state = view && view.status === "failed" ? "is-failed" : "is-proposed";
    if (view && view.status === "failed") fail(view.error ? `Not done yet: ${view.error}` : "Not done yet: confirm to try again.");
    confirm.disabled = discard.disabled = false;
  }
  showCurrentState();
  if (card.revises) {
    const earlier = document.querySelector(`article.card[data-card-id="${CSS.escape(card.revises)}"]`);
    if (earlier) earlier.dispatchEvent(new CustomEvent("card:replaced", { detail: { by: card.id } }));
  }
  return article;
}

function showApiError(article, result, fail) {
  const errors = result.status === 422 || result.status === 400 ? fieldErrors(result.data) : [];
  let placed = false;
  for (const { field: name, message } of errors) {
    const match = /^(\w+)(?:\[(\d+)\])?/.exec(name) || [];
    const container = match[1] ? article.querySelector(`[data-field="${CSS.escape(match[1])}"]`) : null;
    if (!container) continue;
    const row = match[2] !== undefined ? container.querySelectorAll(".person")[Number(match[2])] : null;
    const error = (row && row.querySelector(".field-error")) || container.querySelector(":scope > .field-error");
    if (error) {
      error.textContent = message;
      error.hidden = false;
      placed = true;
    }
  }
  fail(placed ? "Please fix the highlighted fields." : errorMessage(result));
  // The user's own account is not connected: the confirm waits, the card offers the consent.
  const link = result.data && result.data.error && result.data.error.code === "account_not_connected" ? connectLink(result.data.error) : null;
  if (link) article.querySelector(".card-error").append(" ", link);
}

// A card whose data the page cannot draw (an unknown time zone, a malformed time) says so in its place,
// so the other cards of the turn stay usable and the chat goes on.
/**
 * @param {any} action the client action
 * @param {string | null | undefined} caption
 * @param {any} [view] the action as GET /actions/{id} answered, when known
 * @param {string | null} [waiting] for a consent card, the message to send again
 * @returns {HTMLElement}
 */
export function renderCardOrNotice(action, caption, view = null, waiting = null) {
  try {
    return renderCard(action, caption, view, waiting);
  } catch (error) {
    const kind = CARD_TYPES[action && action.type];
    const titleId = nextId("card-title");
    return h("article", { class: "card card-broken", "data-card-type": action && action.type, "data-card-id": action && action.id, "aria-labelledby": titleId },
      h("h3", { id: titleId, class: "card-title", text: kind ? kind.title : "Action" }),
      caption ? h("p", { class: "caption", text: caption }) : null,
      h("p", { class: "card-error", role: "alert", text: `This card could not be shown (${error instanceof Error ? error.message : error}). Nothing was sent: ask again to get a new one.` }));
  }
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
