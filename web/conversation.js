// The conversation: sending a message, following its turn to the end, and reading a session back.
import { api, errorMessage } from "./api.js";
import { renderCardOrNotice } from "./cards/card.js";
import { goneCard } from "./cards/notices.js";
import { connectTurnCard } from "./cards/connect.js";
import { $, h, showAlert } from "./dom.js";
import { rememberTurn, rememberedSession, rememberedTurn, setSession } from "./session.js";
import { currentUser, setBusy, state } from "./state.js";

function addUserMessage(text) {
  const item = h("li", { class: "msg msg-user" }, h("p", { class: "bubble", text }));
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
}

function actionsOf(data) {
  if (Array.isArray(data.clientActions) && data.clientActions.length) return data.clientActions;
  return data.clientAction ? [data.clientAction] : [];
}

// ``text``: the message this turn answered. A turn that could only ask for consent (every card a consent
// card) made nothing: its message waits for the consent and is sent again after it; a turn that made other
// drafts keeps them, and sending it again would draft them twice.
/**
 * @param {any} data the answer of POST /chat
 * @param {string | null} [text]
 */
function addAssistantTurn(data, text = null) {
  const actions = actionsOf(data);
  const captions = Array.isArray(data.clientActionMessages) ? data.clientActionMessages : [];
  const onlyConsent = actions.length > 0 && actions.every((action) => action && action.type === "show_connect_account");
  const waiting = onlyConsent ? text : null;
  const turn = h("li", { class: "msg msg-assistant", "data-testid": "assistant-turn" },
    data.message ? h("p", { class: "bubble", text: data.message }) : null,
    actions.length ? h("div", { class: "cards" }, actions.map((action, i) => renderCardOrNotice(action, captions[i], null, waiting))) : null);
  $("messages").append(turn);
  turn.scrollIntoView({ block: "start" });
}

function addAssistantError(message) {
  const item = h("li", { class: "msg msg-assistant msg-error" }, h("p", { class: "bubble", text: message }));
  $("messages").append(item);
}

function newIdempotencyKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One assistant turn while it runs: a status line, then each card as it comes; once done, the reply on top.
// It counts as an "assistant-turn" only when it has ended.
function turnView() {
  const status = h("p", { class: "bubble turn-status", role: "status", text: "Working on it…" });
  const cards = h("div", { class: "cards" });
  const item = h("li", { class: "msg msg-assistant msg-running", "data-testid": "assistant-progress", "data-status": "running", "aria-busy": "true" }, status, cards);
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
  const shown = new Set();
  /** @type {HTMLParagraphElement | null} */
  let streamed = null;
  const addCard = (card, caption) => {
    if (!card || (card.id && shown.has(card.id))) return;
    if (card.id) shown.add(card.id);
    cards.append(renderCardOrNotice(card, caption));
    status.textContent = `Working on it… ${shown.size} draft${shown.size === 1 ? "" : "s"} ready to review.`;
  };
  const end = (kind) => {
    item.dataset.status = kind;
    item.dataset.testid = "assistant-turn";
    item.removeAttribute("aria-busy");
    item.classList.remove("msg-running");
  };
  return {
    item,
    apply(event) {
      if (event.type === "card") addCard(event.card, event.caption);
      else if (event.type === "text") {
        const line = streamed || item.insertBefore(h("p", { class: "bubble streamed" }), cards);
        line.textContent += event.text;
        streamed = line;
      } else if (event.type === "done") {
        const data = event.response || {};
        const captions = Array.isArray(data.clientActionMessages) ? data.clientActionMessages : [];
        actionsOf(data).forEach((action, i) => addCard(action, captions[i]));
        if (streamed) streamed.remove();
        status.remove();
        if (data.message) item.insertBefore(h("p", { class: "bubble", text: data.message }), cards);
        if (!cards.childElementCount) cards.remove();
        end("done");
      } else if (event.type === "failed") {
        const message = (event.error && event.error.message) || "The turn failed.";
        status.textContent = `That did not work: ${message}`;
        item.classList.add("msg-error");
        showAlert(message);
        end("failed");
      }
    },
    lost(message) {
      status.textContent = message;
      item.classList.add("msg-error");
      end("failed");
    },
  };
}

// A turn runs past its request (Prefer: respond-async): POST /chat answers 202 with the turn's id, and the
// page follows GET /turns/{id} until it ends, showing each card as its draft is made.
const POLL_MS = 700;
const POLL_MAX_MS = 5000;

// Follows a turn to its end; network failures and 5xx answers are retried (slower each time).
async function followTurn(turnId) {
  const view = turnView();
  let next = 0;
  let delay = POLL_MS;
  for (;;) {
    const result = await api(`/turns/${encodeURIComponent(turnId)}?after=${next}`);
    if (result.ok && result.data) {
      for (const event of result.data.events || []) view.apply(event);
      next = typeof result.data.next === "number" ? result.data.next : next;
      if (result.data.sessionId) setSession(result.data.sessionId);
      if (result.data.status !== "running") break;
      delay = POLL_MS;
    } else if (result.status === 0 || result.status >= 500) {
      delay = Math.min(delay * 2, POLL_MAX_MS);
    } else {
      view.lost(`The turn cannot be followed any more: ${errorMessage(result)}`);
      break;
    }
    await wait(delay);
  }
  rememberTurn(null);
  return view.item;
}

// ``keepAlert``: the page sends a message again by itself (after a consent): what it said stays shown.
/**
 * @param {string} text the message
 * @param {{keepAlert?: boolean}} [options]
 * @returns {Promise<void>}
 */
export async function send(text, { keepAlert = false } = {}) {
  if (state.busy || !text.trim()) return;
  setBusy(true);
  if (!keepAlert) showAlert("");
  const input = /** @type {HTMLTextAreaElement} */ ($("composer-input"));
  addUserMessage(text);
  input.value = "";
  const typing = h("li", { class: "msg msg-assistant typing", "aria-label": "Assistant is working" }, h("p", { class: "bubble", text: "…" }));
  $("messages").append(typing);
  /** @type {{message: string, sessionId?: string, timezone?: string}} */
  const body = { message: text };
  if (state.sessionId) body.sessionId = state.sessionId;
  if (state.config.auth !== "local") body.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // One key per message: a retry after a dropped connection answers the first start (the same turn)
  // instead of running the model (and drafting) twice.
  const headers = { "Idempotency-Key": newIdempotencyKey(), Prefer: "respond-async" };
  try {
    let result = await api("/chat", { method: "POST", body, headers });
    if (result.status === 0) result = await api("/chat", { method: "POST", body, headers });
    typing.remove();
    if (result.status === 202 && result.data && result.data.turnId) {
      setSession(result.data.sessionId || state.sessionId);
      rememberTurn({ turnId: result.data.turnId, sessionId: state.sessionId, message: text, who: currentUser() });
      await followTurn(result.data.turnId);
    } else if (result.ok && result.data) {
      if (result.data.sessionId) setSession(result.data.sessionId);
      addAssistantTurn(result.data, text);
    } else if (result.data && result.data.error && result.data.error.code === "account_not_connected" && result.data.error.authorizationUrl) {
      // The turn needs the user's own account first: the consent card; the message comes back after it.
      $("messages").append(h("li", { class: "msg msg-assistant", "data-testid": "assistant-turn" }, h("div", { class: "cards" }, connectTurnCard(result.data.error, text))));
      input.value = input.value || text;
    } else {
      const message = errorMessage(result);
      showAlert(message);
      addAssistantError(`That did not work: ${message}`);
      input.value = input.value || text;
    }
  } catch (error) {
    // Whatever went wrong is shown, and the composer stays usable.
    typing.remove();
    const message = `The answer could not be shown (${error instanceof Error ? error.message : error}).`;
    showAlert(message);
    addAssistantError(message);
    input.value = input.value || text;
  } finally {
    setBusy(false);
    input.focus();
  }
}

// One exchange read back: the message, the reply, and each card as GET /actions/{id} has it now.
async function addRestoredExchange(exchange) {
  addUserMessage(String(exchange.message || ""));
  const turn = h("li", { class: "msg msg-assistant", "data-testid": "assistant-turn", "data-restored": "true" },
    exchange.reply ? h("p", { class: "bubble", text: exchange.reply }) : null);
  $("messages").append(turn);
  const entries = Array.isArray(exchange.cards) ? exchange.cards : [];
  if (!entries.length) return;
  const views = await Promise.all(entries.map((entry) => api(`/actions/${encodeURIComponent(entry.id)}`)));
  const cards = h("div", { class: "cards" });
  turn.append(cards);
  entries.forEach((entry, i) => {
    const result = views[i];
    const view = result.ok && result.data ? result.data : null;
    cards.append(view && view.card ? renderCardOrNotice(view.card, entry.caption, view) : goneCard(entry, result));
  });
}

// A draft made outside this page (an MCP client signed in as this person), opened by its link
// `?draft=<id>`: its card in its current state, to confirm or discard here. Another person's draft is
// not found for this one (404), as the API answers.
/** @returns {Promise<void>} */
export async function openLinkedDraft() {
  const id = new URLSearchParams(window.location.search).get("draft");
  if (!id || !currentUser()) return;
  const result = await api(`/actions/${encodeURIComponent(id)}`);
  const view = result.ok && result.data ? result.data : null;
  const turn = h("li", { class: "msg msg-assistant", "data-testid": "linked-draft" },
    h("p", { class: "bubble", text: "A draft made for you from an MCP client. Nothing is sent until you confirm it." }),
    h("div", { class: "cards" }, view && view.card ? renderCardOrNotice(view.card, "", view) : goneCard({ id }, result)));
  $("messages").append(turn);
  turn.scrollIntoView({ block: "start" });
}

// After a reload (or a sign-in coming back): the conversation of this tab's session, for the same person.
/** @returns {Promise<void>} */
export async function restoreConversation() {
  const saved = rememberedSession();
  const who = currentUser();
  if (!saved || !who) return;
  if (saved.who && saved.who !== who) {
    setSession(null); // another person signed in since: not theirs to see
    return;
  }
  state.sessionId = saved.sessionId;
  const result = await api(`/sessions/${encodeURIComponent(saved.sessionId)}`);
  if (!result.ok) {
    if (result.status === 404 && rememberedTurn()) {
      // The turn this tab started may not have reached the session yet: following it will.
    } else if (result.status === 404) {
      setSession(null);
      showAlert("The earlier conversation is no longer available (it expired, or the server no longer has it): this is a new one.");
    } else {
      showAlert(`The earlier conversation could not be read again: ${errorMessage(result)}`);
    }
    return;
  }
  let exchanges = Array.isArray(result.data && result.data.exchanges) ? result.data.exchanges : [];
  // The turn this tab is still following is drawn by following it (resumeTurn), not twice.
  const running = rememberedTurn();
  const last = exchanges[exchanges.length - 1];
  if (running && last && last.message === running.message) exchanges = exchanges.slice(0, -1);
  for (const exchange of exchanges) await addRestoredExchange(exchange);
  const lastTurn = $("messages").lastElementChild;
  if (lastTurn) lastTurn.scrollIntoView({ block: "end" });
}

// After a reload: the turn this tab started is followed again, from its first event.
/** @returns {Promise<void>} */
export async function resumeTurn() {
  const turn = rememberedTurn();
  if (!turn || state.busy) return;
  const who = currentUser();
  if (!who) return; // not signed in (yet: a silent sign-in may still be on its way back)
  if (turn.who && turn.who !== who) {
    rememberTurn(null); // another person signed in since: not theirs to follow
    return;
  }
  setBusy(true);
  try {
    setSession(turn.sessionId || null);
    if (turn.message) addUserMessage(turn.message);
    await followTurn(turn.turnId);
  } finally {
    setBusy(false);
  }
}

// A new chat omits sessionId; the first answer carries the session's id.
/** @returns {void} */
export function newChat() {
  setSession(null);
  rememberTurn(null);
  $("messages").replaceChildren();
  showAlert("");
}
