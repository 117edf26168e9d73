// One card per client action: its fields (from the card type's module), Confirm and Discard, and the
// action's own state (GET /actions/{id}) deciding what the card offers.
import { api, errorMessage } from "../api.js";
import { clearErrors, h, nextId } from "../dom.js";
import { refreshOutbox } from "../outbox.js";
import { renderConnectCard } from "./connect.js";
import { CARD_TYPES, cardKind } from "./kinds.js";
import { confirmFirstButton, linksPanel, updateConfirmAll } from "./links.js";
import { showApiError } from "./notices.js";
import { showScheduled } from "./undo.js";
import { renderReadOnly } from "./readonly.js";

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
  // What the turn's other cards read of this one: its card and its fields as they would be confirmed.
  const live = /** @type {any} */ (article);
  live.cardData = card;
  live.readCard = () => built.read();
  const links = linksPanel(article, card, form);
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
    links,
    form,
  ].filter((node) => node !== null));
  // The turn's "Confirm all" counts this card's state, and a card waiting for this one redraws.
  const stateChanged = () => {
    article.dispatchEvent(new CustomEvent("card:state", { bubbles: true }));
    setTimeout(() => updateConfirmAll(/** @type {HTMLElement} */ (article.parentElement)), 0);
  };

  const lock = (label, cls) => {
    article.classList.add(cls);
    article.dataset.state = cls;
    for (const control of form.querySelectorAll("input, select, textarea, button")) /** @type {HTMLInputElement} */ (control).disabled = true;
    status.replaceChildren(label);
    stateChanged();
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
  const showSent = (view, note = "Confirmed with changes: this is what was done, not the draft above.") => {
    if (!view.edits || !kind.sent) return;
    const drafted = JSON.stringify(built.read().fields);
    built = kind.build(kind.sent(card, view.edits));
    form.replaceChildren(...built.fields, cardError, actions);
    if (JSON.stringify(built.read().fields) !== drafted) {
      form.before(h("p", { class: "card-revision card-sent-as", text: note }));
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
      if (result.data && result.data.status === "scheduled") showScheduled(scheduledCard, result.data, true);
      else lock(resultView(kind, result.data), "is-done");
      refreshOutbox();
      return;
    }
    status.textContent = "";
    if (!settleFromConflict(result) && !settleGone(result) && !redrawn(result.data)) {
      confirm.disabled = discard.disabled = false;
      showApiError(article, result, fail);
      const waitsFor = result.status === 409 && result.data && result.data.error;
      const first = waitsFor && waitsFor.code === "waits_for" ? confirmFirstButton(waitsFor, card.id, (kind.confirmLabel || "confirm").replace(/^Confirm( and)? ?/, "") || "confirm") : null;
      if (first) cardError.append(" ", first);
    }
  });
  // The card it waited for was discarded or failed: the server removed the placeholder (link_dropped),
  // and the card is drawn again as it now is, with the server's words.
  function redrawn(data) {
    const error = data && data.error;
    const view = data && data.action;
    if (!error || error.code !== "link_dropped" || !view || !view.card) return false;
    const fresh = renderCard(view.card, caption, view);
    article.replaceWith(fresh);
    const words = /** @type {HTMLElement} */ (fresh.querySelector(".card-error"));
    words.textContent = error.message;
    words.hidden = false;
    return true;
  }
  // What "Confirm all" (or "confirm … first") did to this card.
  article.addEventListener("card:outcome", (event) => {
    const outcome = /** @type {CustomEvent<any>} */ (event).detail;
    const view = outcome.action;
    if (view && showSettled(view)) {
      // Done now: what it said before (it waited for another card) no longer holds.
      if (view.status === "done") cardError.hidden = true;
      return;
    }
    if (outcome.code === "link_dropped" && redrawn({ error: { code: outcome.code, message: outcome.message }, action: view })) return;
    if (outcome.message) fail(outcome.message);
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
  // A confirmed mail in its undo window (cards/undo.js): Undo makes it this editable draft again.
  const scheduledCard = { article, status, form, actions, id: card.id, settle: (view) => showSettled(view), conflict: (result) => settleFromConflict(result), fail };
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
    if (view && view.status === "scheduled") {
      showSent(view, "Confirmed with changes: this is what will be sent, not the draft above.");
      showScheduled(scheduledCard, view, false);
      return;
    }
    if (settleGone(result)) return;
    // Proposed, failed (a confirm retries it), or the state could not be read: the confirm
    // endpoint still refuses anything it must not do.
    article.dataset.state = view && view.status === "failed" ? "is-failed" : "is-proposed";
    if (view && view.status === "failed") fail(view.error ? `Not done yet: ${view.error}` : "Not done yet: confirm to try again.");
    confirm.disabled = discard.disabled = false;
    stateChanged();
  }
  showCurrentState();
  if (card.revises) {
    const earlier = document.querySelector(`article.card[data-card-id="${CSS.escape(card.revises)}"]`);
    if (earlier) earlier.dispatchEvent(new CustomEvent("card:replaced", { detail: { by: card.id } }));
  }
  return article;
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
