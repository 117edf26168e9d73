// The page's one piece of state: its config, who is signed in, the session, and whether a turn runs.
import { $ } from "./dom.js";

/**
 * config.json: where the API is and how to sign in; the lists the cards offer (limits.js reads them).
 * @typedef {object} Config
 * @property {string} apiBase
 * @property {string} auth "local", "oidc" or "bearer"
 * @property {Record<string, {name?: string, issueTypes?: string[]}>} jiraProjects
 * @property {boolean} [connections] the deployment connects the user's own accounts
 * @property {boolean} [sandbox] the local server's sandbox (its outbox)
 * @property {string} [signInDomain]
 * @property {string} [clientId]
 * @property {string} [scope]
 */

/** @typedef {{id: string, displayName: string, timezone: string}} LocalUser a seeded user of the local server */

/**
 * @typedef {object} State
 * @property {Config} config
 * @property {LocalUser[]} users
 * @property {string | null} user the local user's id
 * @property {string | null} token a pasted bearer token
 * @property {import("./auth.js").OidcSignIn | null} signIn
 * @property {string | null} sessionId
 * @property {boolean} busy
 */

/** @type {Config} */
export const DEFAULT_CONFIG = { apiBase: "", auth: "bearer", jiraProjects: {} };

/** @type {State} */
export const state = { config: DEFAULT_CONFIG, users: [], user: null, token: null, signIn: null, sessionId: null, busy: false };

/**
 * Who the page speaks for: the local user, or the signed-in person's email (never a token).
 * @returns {string | null}
 */
export function currentUser() {
  if (state.config.auth === "local") return state.user;
  const user = state.signIn && state.signIn.user;
  return user ? user.email || user.name || "signed-in" : state.token ? "token" : null;
}

/** @param {boolean} busy */
export function setBusy(busy) {
  state.busy = busy;
  /** @type {HTMLButtonElement} */ ($("send")).disabled = busy;
}

/**
 * The page's config: one set on the window before the modules load, else config.json, else the defaults.
 * @returns {Promise<Config>}
 */
export async function loadConfig() {
  const preset = /** @type {{MULTITOOL_CONFIG?: Partial<Config>}} */ (/** @type {unknown} */ (window)).MULTITOOL_CONFIG;
  if (preset) return { ...DEFAULT_CONFIG, ...preset };
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (response.ok) return { ...DEFAULT_CONFIG, ...(await response.json()) };
  } catch {
    // No config file: local defaults.
  }
  return DEFAULT_CONFIG;
}
