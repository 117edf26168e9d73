// What a reload needs to carry on: the session this tab talks in and the turn it follows (sessionStorage).
import { currentUser, state } from "./state.js";

// The turn's id is kept in sessionStorage, so a reload (or a dropped connection) follows the same turn
// instead of losing it.
const TURN_KEY = "multitool.turn";

/**
 * A turn this tab follows: its id, its session, the message that started it and who sent it.
 * @typedef {{turnId: string, sessionId: string | null, message: string, who: string | null}} RememberedTurn
 */

/** @param {RememberedTurn | null} turn the turn to follow after a reload; null forgets it */
export function rememberTurn(turn) {
  if (turn) sessionStorage.setItem(TURN_KEY, JSON.stringify(turn));
  else sessionStorage.removeItem(TURN_KEY);
}

/** @returns {RememberedTurn | null} */
export function rememberedTurn() {
  try {
    const turn = JSON.parse(sessionStorage.getItem(TURN_KEY) || "null");
    return turn && typeof turn.turnId === "string" ? turn : null;
  } catch {
    return null;
  }
}

// The session this tab talks in, kept in sessionStorage with who it belongs to: after a reload the page
// reads its conversation back (GET /sessions/{id}) and draws every card again in its current state.
const SESSION_KEY = "multitool.session";

/** @param {string | null | undefined} sessionId the session this tab talks in; none starts a new one */
export function setSession(sessionId) {
  state.sessionId = sessionId || null;
  if (state.sessionId) sessionStorage.setItem(SESSION_KEY, JSON.stringify({ sessionId: state.sessionId, who: currentUser() }));
  else sessionStorage.removeItem(SESSION_KEY);
}

/** @returns {{sessionId: string, who: string | null} | null} */
export function rememberedSession() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    return saved && typeof saved.sessionId === "string" ? saved : null;
  } catch {
    return null;
  }
}
