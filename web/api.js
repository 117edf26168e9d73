// The API: every request carries the sign-in (a local user, or a bearer token); answers are read as JSON,
// and errors in the shapes the API can answer with become messages.
import { state } from "./state.js";

async function authHeaders() {
  if (state.config.auth === "local") return state.user ? { "X-Local-User": state.user } : {};
  const token = state.signIn ? await state.signIn.token() : state.token;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

export async function api(path, { method = "GET", body, headers = {} } = {}) {
  let response;
  try {
    response = await fetch(`${state.config.apiBase}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(await authHeaders()), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, data: { message: `The server could not be reached (${error.message}).` } };
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text };
  }
  return { ok: response.ok, status: response.status, data };
}

export function errorMessage(result) {
  const data = result.data || {};
  const error = data.error && typeof data.error === "object" ? data.error : null;
  const message = (error && error.message) || data.message || data.detail || `Request failed (${result.status}).`;
  return typeof message === "string" ? message : JSON.stringify(message);
}

// Field-level messages from a 422, in the shapes the API can answer with.
export function fieldErrors(data) {
  const out = [];
  if (!data || typeof data !== "object") return out;
  const error = data.error && typeof data.error === "object" ? data.error : null;
  if (error && error.field) out.push({ field: String(error.field), message: error.message });
  for (const item of [...(Array.isArray(data.errors) ? data.errors : []), ...(error && Array.isArray(error.errors) ? error.errors : [])]) {
    if (item && item.field) out.push({ field: String(item.field), message: item.message || item.msg });
  }
  if (Array.isArray(data.detail)) {
    for (const item of data.detail) {
      const loc = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body") : [];
      if (loc.length) out.push({ field: loc.join("."), message: item.msg });
    }
  }
  return out;
}
