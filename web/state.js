// The page's one piece of state: its config, who is signed in, the session, and whether a turn runs.
import { $ } from "./dom.js";

export const DEFAULT_CONFIG = { apiBase: "", auth: "bearer", jiraProjects: {} };

export const state = { config: DEFAULT_CONFIG, users: [], user: null, token: null, signIn: null, sessionId: null, busy: false };

// Who the page speaks for: the local user, or the signed-in person's email (never a token).
export function currentUser() {
  if (state.config.auth === "local") return state.user;
  const user = state.signIn && state.signIn.user;
  return user ? user.email || user.name || "signed-in" : state.token ? "token" : null;
}

export function setBusy(busy) {
  state.busy = busy;
  $("send").disabled = busy;
}

export async function loadConfig() {
  if (window.MULTITOOL_CONFIG) return { ...DEFAULT_CONFIG, ...window.MULTITOOL_CONFIG };
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (response.ok) return { ...DEFAULT_CONFIG, ...(await response.json()) };
  } catch {
    // No config file: local defaults.
  }
  return DEFAULT_CONFIG;
}
