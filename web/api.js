// The API: every request carries the sign-in (a local user, or a bearer token); answers are read as JSON,
// and errors in the shapes the API can answer with become messages.
import { state } from "./state.js";

/**
 * An answer of the API: ``status`` 0 when the server could not be reached; ``data`` the JSON body (or
 * ``{message}`` with a body that is not JSON, null with none).
 * @typedef {{ok: boolean, status: number, data: any}} ApiResult
 */

/** @returns {Promise<Record<string, string>>} */
async function authHeaders() {
  if (state.config.auth === "local") return state.user ? { "X-Local-User": state.user } : {};
  const token = state.signIn ? await state.signIn.token() : state.token;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * @param {string} path
 * @param {{method?: string, body?: unknown, headers?: Record<string, string>}} [options]
 * @returns {Promise<ApiResult>}
 */
export async function api(path, { method = "GET", body, headers = {} } = {}) {
  let response;
  try {
    response = await fetch(`${state.config.apiBase}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(await authHeaders()), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, data: { message: `The server could not be reached (${error instanceof Error ? error.message : error}).` } };
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text };
  }
  return { ok: response.ok, status: response.status, data };
}

/**
 * The message of an answer that failed, in the shapes the API can answer with.
 * @param {{status: number, data: any}} result
 * @returns {string}
 */
export function errorMessage(result) {
  const data = result.data || {};
  const error = data.error && typeof data.error === "object" ? data.error : null;
  const message = (error && error.message) || data.message || data.detail || `Request failed (${result.status}).`;
  return typeof message === "string" ? message : JSON.stringify(message);
}

/**
 * Field-level messages from a 422, in the shapes the API can answer with.
 * @param {any} data
 * @returns {{field: string, message: string}[]}
 */
export function fieldErrors(data) {
  /** @type {{field: string, message: string}[]} */
  const out = [];
  if (!data || typeof data !== "object") return out;
  const error = data.error && typeof data.error === "object" ? data.error : null;
  if (error && error.field) out.push({ field: String(error.field), message: error.message });
  for (const item of [...(Array.isArray(data.errors) ? data.errors : []), ...(error && Array.isArray(error.errors) ? error.errors : [])]) {
    if (item && item.field) out.push({ field: String(item.field), message: item.message || item.msg });
  }
  if (Array.isArray(data.detail)) {
    for (const item of data.detail) {
      const loc = Array.isArray(item.loc) ? item.loc.filter((/** @type {unknown} */ p) => p !== "body") : [];
      // A list item as the API names it ("attendees[1]"): the card marks that row (cards/card.js).
      const name = loc.map((/** @type {unknown} */ p, /** @type {number} */ i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${p}`)).join("");
      if (loc.length) out.push({ field: name, message: item.msg });
    }
  }
  return out;
}
