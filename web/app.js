// The chat drawer: posts to /chat, renders one editable card per client action,
// and confirms or discards each through /actions/{id}. ES modules served as they are: no build step,
// no dependencies. This one wires the page's controls at start-up; the rest live in their modules.

// Deployed: config.json next to the page (written by the stack) gives {apiBase, auth: "oidc",
// signInDomain, clientId}: sign in through managed login (auth.js); auth "bearer" takes a pasted token.
// The local server answers config.json with auth "local" (a seeded user) or "oidc" (its OIDC stand-in).
import { newChat, openLinkedDraft, restoreConversation, resumeTurn, send } from "./conversation.js";
import { refreshAccounts } from "./accounts.js";
import { finishConsent } from "./cards/connect.js";
import { $, showAlert } from "./dom.js";
import { loadLimits } from "./limits.js";
import { refreshOutbox } from "./outbox.js";
import { setUpLocalSignIn, setUpOidcSignIn, setUpTokenSignIn } from "./signin.js";
import { loadConfig, state } from "./state.js";
import { keepTodayShown } from "./today.js";

async function main() {
  // The lists and limits the cards offer are the backend's: config.json and the card schema.
  [state.config] = await Promise.all([loadConfig(), loadLimits()]);
  state.sessionId = null;
  const input = /** @type {HTMLTextAreaElement} */ ($("composer-input"));
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    send(input.value);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(input.value);
    }
  });
  for (const button of document.querySelectorAll(".example")) {
    button.addEventListener("click", () => {
      input.value = button.textContent.trim();
      input.focus();
    });
  }
  $("new-chat").addEventListener("click", newChat);
  $("outbox-refresh").addEventListener("click", refreshOutbox);
  const toggle = $("drawer-toggle");
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("drawer-closed", !open);
    if (open) input.focus();
  });
  if (state.config.auth === "local") await setUpLocalSignIn();
  else if (state.config.auth === "oidc") await setUpOidcSignIn();
  else setUpTokenSignIn();
  keepTodayShown();
  // Back from a consent at the provider: finish it for this user; the message that waited is sent again.
  const { resend, restore } = await finishConsent(showAlert);
  if (restore && !input.value) input.value = restore; // not connected: what the user typed is kept
  refreshAccounts();
  await restoreConversation();
  await openLinkedDraft();
  document.body.dataset.ready = "true";
  if (resend) send(resend, { keepAlert: true });
  else resumeTurn();
}

main();
