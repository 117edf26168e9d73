// The consent card (show_connect_account): the user's own account (Microsoft 365, Google Workspace) is not
// connected yet. Its link opens the provider's consent in this tab; the provider comes back through AgentCore
// Identity to this page with ?session_id=..., and finishConsent() hands it to the review API, signed in, which
// checks the user finishing it is the user who asked (POST /connections/complete).
import { api, errorMessage } from "../api.js";
import { h, nextId, safeHref } from "../dom.js";
import { currentUser } from "../state.js";

const PENDING = "multitool.consent"; // which provider the consent in flight is for, kept across the redirect

// ``waiting``: the message the consent interrupted, offered again in the composer once connected.
/**
 * @param {string} provider
 * @param {string | null} [waiting]
 */
function startConsent(provider, waiting = null) {
  try {
    sessionStorage.setItem(PENDING, JSON.stringify({ provider, waiting }));
  } catch {
    // Storage refused (a private window): the callback then names the only provider the deployment has.
  }
}

/**
 * @param {any} card the show_connect_account client action
 * @param {string | null | undefined} caption
 * @param {string | null} [waiting] the message to send again once connected
 * @returns {HTMLElement}
 */
export function renderConnectCard(card, caption, waiting = null) {
  const titleId = nextId("card-title");
  const href = safeHref(card.authorizationUrl);
  const name = card.providerName || card.provider;
  const link = href
    ? h("a", { class: "btn btn-primary", href, text: `Connect ${name}`, onclick: () => startConsent(card.provider, waiting) })
    : h("p", { class: "card-error", role: "alert", text: "The consent link could not be shown: ask again." });
  return h("article", { class: "card card-show_connect_account", "data-card-type": card.type, "data-card-id": card.id, "aria-labelledby": titleId },
    h("header", { class: "card-head" },
      h("span", { class: "card-icon", "aria-hidden": "true", text: "⇄" }),
      h("h3", { id: titleId, class: "card-title", text: `Connect your ${name} account` })),
    caption ? h("p", { class: "caption", text: caption }) : null,
    h("p", { text: `Your meetings and mail go through your own ${name} account, with your consent. Nothing was sent.` }),
    // A tool that needs a permission not granted before (reading mail to reply to it) asks again.
    h("p", { class: "hint", text: "Already connected? Something new you asked for (replying to or forwarding your mail, say) needs a permission you have not given yet: consent once more." }),
    h("div", { class: "card-actions" }, link));
}

// A confirm answered account_not_connected with its link: the card's error offers it.
/**
 * @param {any} error the API's account_not_connected error
 * @returns {HTMLAnchorElement | null}
 */
export function connectLink(error) {
  const href = error && safeHref(error.authorizationUrl);
  if (!href) return null;
  return h("a", { class: "connect-link", href, text: "Connect your account", onclick: () => startConsent(error.provider) });
}

// /chat answered that the turn needs an account first: the card, with the message to send again after.
/**
 * The consent card of a turn the API answered account_not_connected.
 * @param {any} error the API's error
 * @param {string} waiting the message to send again once connected
 * @returns {HTMLElement}
 */
export function connectTurnCard(error, waiting) {
  const card = { type: "show_connect_account", id: `connect-${error.provider}`, provider: error.provider, providerName: error.providerName, authorizationUrl: error.authorizationUrl };
  return renderConnectCard(card, error.message, waiting);
}

function takePending() {
  try {
    const pending = JSON.parse(sessionStorage.getItem(PENDING) || "{}") || {};
    sessionStorage.removeItem(PENDING);
    return pending;
  } catch {
    return {};
  }
}

function cleanAddress(params, names) {
  for (const name of names) params.delete(name);
  const rest = params.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}${window.location.hash}`);
}

// At start-up: back from a consent? Finish it for the signed-in user, then clean the address bar.
// Answers ``{ resend, restore }``: the message that waited for the consent, to send again once the
// account is connected (``resend``), or to put back in the composer when it was not (``restore``:
// the user pressed Deny at the provider, which comes back with OAuth's error, or the completion was
// refused), so nothing the user typed is lost.
/**
 * @param {(message: string) => void} notify
 * @returns {Promise<{resend: string | null, restore: string | null}>}
 */
export async function finishConsent(notify) {
  const none = { resend: null, restore: null };
  const params = new URLSearchParams(window.location.search);
  const sessionUri = params.get("session_id");
  const refused = params.get("error");
  // Signed out (a silent sign-in is on its way, and keeps the address): finish once signed in.
  if ((sessionUri || refused) && !currentUser()) return none;
  if (!sessionUri && refused) {
    const pending = takePending();
    cleanAddress(params, ["error", "error_description", "state"]);
    notify(refused === "access_denied"
      ? "Your account was not connected: the consent was declined. Nothing was sent; ask again when you want to connect it."
      : `Your account was not connected (${refused}). Nothing was sent; ask again to get a new link.`);
    return { resend: null, restore: typeof pending.waiting === "string" ? pending.waiting : null };
  }
  if (!sessionUri) return none;
  const pending = takePending();
  const provider = typeof pending.provider === "string" ? pending.provider : null;
  cleanAddress(params, ["session_id"]);
  const result = await api("/connections/complete", { method: "POST", body: { sessionUri, ...(provider ? { provider } : {}) } });
  const waiting = typeof pending.waiting === "string" ? pending.waiting : null;
  notify(result.ok
    ? `${result.data.providerName} is connected. ${waiting ? "Your message is sent again." : "Confirm the card that waited, or send your message again."}`
    : `Your account was not connected: ${errorMessage(result)}`);
  return result.ok ? { resend: waiting, restore: null } : { resend: null, restore: waiting };
}
