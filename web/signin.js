// Signing in: a seeded local user, managed login (auth.js), or a pasted bearer token.
import { refreshAccounts } from "./accounts.js";
import { api, errorMessage } from "./api.js";
import { OidcSignIn } from "./auth.js";
import { newChat } from "./conversation.js";
import { $, h, showAlert } from "./dom.js";
import { refreshOutbox } from "./outbox.js";
import { rememberTurn, setSession } from "./session.js";
import { state } from "./state.js";
import { showToday } from "./today.js";

const USER_KEY = "multitool.localUser";
const TOKEN_KEY = "multitool.token";

/** @returns {Promise<void>} */
export async function setUpLocalSignIn() {
  const result = await api("/local/users");
  if (!result.ok) {
    showAlert(`Local sign-in is unavailable: ${errorMessage(result)}`);
    return;
  }
  state.users = result.data.users || [];
  const saved = localStorage.getItem(USER_KEY);
  state.user = state.users.some((u) => u.id === saved) ? saved : result.data.defaultUser;
  const picker = /** @type {HTMLSelectElement} */ ($("user-picker"));
  picker.replaceChildren(...state.users.map((u) => h("option", { value: u.id, text: `${u.displayName} (${u.timezone})`, selected: u.id === state.user })));
  picker.addEventListener("change", () => {
    state.user = picker.value;
    localStorage.setItem(USER_KEY, picker.value);
    showToday(); // another user, maybe another zone: maybe another day
    newChat();
    refreshOutbox(); // the outbox is per user: show the new user's mail and issues
  });
  $("signin-local").hidden = false;
  $("mode-badge").hidden = false;
  $("outbox").hidden = false;
  refreshOutbox();
}

/** @returns {void} */
export function setUpTokenSignIn() {
  state.token = sessionStorage.getItem(TOKEN_KEY);
  const form = $("signin-token");
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = /** @type {HTMLInputElement} */ ($("token-input"));
    state.token = input.value.trim() || null;
    if (state.token) sessionStorage.setItem(TOKEN_KEY, state.token);
    else sessionStorage.removeItem(TOKEN_KEY);
    input.value = "";
  });
}

// Managed sign-in (Cognito, or the local OIDC stand-in): the page shows who is signed in.
/** @returns {Promise<void>} */
export async function setUpOidcSignIn() {
  /** @param {OidcSignIn} signIn */
  const showAccount = (signIn) => {
    const user = signIn.user;
    $("signed-in-name").textContent = user ? user.name : "";
    if (user && user.email && user.email !== user.name) $("signed-in-name").title = user.email;
    $("signed-in-as").hidden = !user;
    $("sign-out").hidden = !user;
    $("sign-in").hidden = Boolean(user);
    refreshAccounts();
    // The local OIDC stand-in has a sandbox too: its outbox is the signed-in person's.
    if (state.config.sandbox) {
      $("mode-badge").hidden = false;
      $("outbox").hidden = !user;
      refreshOutbox();
    }
  };
  const signIn = new OidcSignIn(state.config, { onChange: showAccount });
  state.signIn = signIn;
  $("signin-oidc").hidden = false;
  $("sign-in").addEventListener("click", () => signIn.signIn());
  $("sign-out").addEventListener("click", () => {
    rememberTurn(null);
    setSession(null);
    signIn.signOut();
  });
  try {
    await signIn.start();
  } catch (error) {
    showAlert(error instanceof Error ? error.message : String(error));
  }
  showAccount(signIn);
}

