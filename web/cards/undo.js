// A moment to undo: a confirmed mail waits its undo window (the action's status "scheduled", with
// undoUntil). The card counts down beside an Undo button, then asks the action's state (GET
// /actions/{id}) until the send is done. Undo within the window (POST /actions/{id}/undo) makes the
// card an editable draft again, nothing sent; after it the API answers 409 too_late_to_undo with the
// action as it is, which the card then shows.
import { api, errorMessage } from "../api.js";
import { h } from "../dom.js";
import { refreshOutbox } from "../outbox.js";

const TICK_MS = 250;
const POLL_MS = 1000;
const POLL_LIMIT_MS = 120_000; // past this the card stops asking; a reload reads the action again

/**
 * What the card offers the window: its parts, and how it settles.
 * @typedef {object} ScheduledCard
 * @property {HTMLElement} article
 * @property {HTMLElement} status
 * @property {HTMLFormElement} form
 * @property {HTMLElement} actions the form's Confirm and Discard
 * @property {string} id the action's id
 * @property {(view: any) => boolean} settle draws a done, discarded or replaced action
 * @property {(result: any) => boolean} conflict draws the action a 409 carries
 * @property {(message: string) => void} fail
 */

/**
 * The milliseconds left: from the window's own length when the confirm just answered (the browser's
 * clock may differ from the server's), else until ``undoUntil``.
 * @param {any} view
 * @param {boolean} fresh
 */
function deadlineOf(view, fresh) {
  const until = Date.parse(view.undoUntil);
  if (!fresh) return until;
  return Date.now() + Math.max(0, until - Date.parse(view.updatedAt));
}

/**
 * The card as an editable draft again (undone, or its send failed): the fields as they were, a word why.
 * @param {ScheduledCard} card
 * @param {any} view
 * @param {string} label
 * @param {string} note
 */
function reopen(card, view, label, note) {
  card.article.dataset.state = view.status === "failed" ? "is-failed" : "is-proposed";
  for (const control of card.form.querySelectorAll("input, select, textarea, button")) /** @type {HTMLInputElement} */ (control).disabled = false;
  card.status.textContent = label;
  for (const sentAs of card.article.querySelectorAll(".card-sent-as")) sentAs.remove(); // nothing will be sent
  const said = h("p", { class: "card-undone", text: note });
  card.actions.before(said);
  card.form.addEventListener("submit", () => said.remove(), { once: true });
}

/**
 * @param {ScheduledCard} card
 * @param {any} view
 * @returns {boolean} whether the card was drawn settled (and the outbox read again when it was sent)
 */
function settle(card, view) {
  if (!card.settle(view)) return false;
  if (view.status === "done") refreshOutbox();
  return true;
}

/**
 * @param {ScheduledCard} card
 * @param {any} view the action, scheduled
 * @param {boolean} fresh the confirm's own answer (not an action read back)
 */
export function showScheduled(card, view, fresh) {
  const { article, status, form } = card;
  article.classList.remove("is-proposed", "is-failed");
  article.classList.add("is-scheduled");
  article.dataset.state = "is-scheduled";
  for (const control of form.querySelectorAll("input, select, textarea, button")) /** @type {HTMLInputElement} */ (control).disabled = true;
  const countdown = h("span", { class: "card-countdown", "data-testid": "undo-countdown", "aria-live": "off" });
  const undo = h("button", { type: "button", class: "btn btn-secondary btn-undo", text: "Undo" });
  const bar = h("div", { class: "card-undo", role: "group", "aria-label": "Undo sending" }, countdown, undo);
  form.after(bar);
  status.textContent = "Scheduled";
  const deadline = deadlineOf(view, fresh);
  let stopped = false;
  const stop = () => {
    stopped = true;
    bar.remove();
    article.classList.remove("is-scheduled");
  };

  const tick = () => {
    if (stopped) return;
    const left = Math.ceil((deadline - Date.now()) / 1000);
    if (left > 0) {
      countdown.textContent = `Sending in ${left} s`;
      setTimeout(tick, TICK_MS);
      return;
    }
    countdown.textContent = "Sending…";
    undo.disabled = true;
    poll(Date.now());
  };
  const poll = async (started) => {
    if (stopped || !article.isConnected) return;
    const result = await api(`/actions/${encodeURIComponent(card.id)}`);
    const now = result.ok && result.data ? result.data : null;
    if (now && now.status === "scheduled" || now && now.status === "executing" || !now) {
      if (Date.now() - started < POLL_LIMIT_MS) setTimeout(() => poll(started), POLL_MS);
      return;
    }
    stop();
    if (settle(card, now)) return;
    if (now.status === "failed") reopen(card, now, "Not sent", now.error || "Confirm to try again.");
    else reopen(card, now, "Undone", "Nothing was sent. Edit and confirm again, or discard.");
  };
  undo.addEventListener("click", async () => {
    undo.disabled = true;
    const result = await api(`/actions/${encodeURIComponent(card.id)}/undo`, { method: "POST" });
    if (result.ok && result.data && result.data.status !== "scheduled") {
      stop();
      if (!settle(card, result.data)) reopen(card, result.data, "Undone", "Nothing was sent. Edit and confirm again, or discard.");
      return;
    }
    if (result.status === 409) {
      stop();
      card.conflict(result);
      return;
    }
    undo.disabled = false;
    card.fail(errorMessage(result));
  });
  tick();
}
