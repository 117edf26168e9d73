import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { api, errorMessage, fieldErrors } from "../../web/api.js";
import { DEFAULT_CONFIG, state } from "../../web/state.js";

const fresh = { ...state };
const realFetch = globalThis.fetch;
afterEach(() => {
  Object.assign(state, fresh);
  globalThis.fetch = realFetch;
});

test("a failed answer's message, in each shape the API answers with", () => {
  // The functions' error model: {"error": {"code", "message", "field"?}}.
  assert.equal(errorMessage({ status: 409, data: { error: { code: "conflict", message: "Already confirmed." } } }), "Already confirmed.");
  // API Gateway's own refusals: {"message"}.
  assert.equal(errorMessage({ status: 401, data: { message: "Unauthorized" } }), "Unauthorized");
  assert.equal(errorMessage({ status: 400, data: { detail: "Bad body" } }), "Bad body");
  assert.equal(errorMessage({ status: 503, data: null }), "Request failed (503).");
  assert.equal(errorMessage({ status: 422, data: { detail: [{ loc: ["body"], msg: "x" }] } }), '[{"loc":["body"],"msg":"x"}]');
});

test("field-level messages, from the error model and from a validation detail", () => {
  assert.deepEqual(fieldErrors({ error: { code: "invalid", message: "Not an address.", field: "to[1]" } }), [{ field: "to[1]", message: "Not an address." }]);
  assert.deepEqual(
    fieldErrors({ errors: [{ field: "subject", message: "Too long." }], error: { errors: [{ field: "body", msg: "Empty." }] } }),
    [{ field: "subject", message: "Too long." }, { field: "body", message: "Empty." }],
  );
  assert.deepEqual(fieldErrors({ detail: [{ loc: ["body", "title"], msg: "Field required" }, { loc: ["body"], msg: "Not JSON" }] }), [
    { field: "title", message: "Field required" },
  ]);
  assert.deepEqual(fieldErrors(null), []);
  assert.deepEqual(fieldErrors("Internal Server Error"), []);
});

test("a list item in a validation detail is named as the API names it (attendees[1]), so the card marks its row", () => {
  assert.deepEqual(fieldErrors({ detail: [{ loc: ["body", "attendees", 1], msg: "Not an address" }] }), [
    { field: "attendees[1]", message: "Not an address" },
  ]);
});

test("a request carries the local user, JSON in and out", async () => {
  state.config = { ...DEFAULT_CONFIG, apiBase: "http://127.0.0.1:9", auth: "local" };
  state.user = "mei";
  let sent;
  globalThis.fetch = async (url, init) => {
    sent = { url, ...init };
    return Response.json({ turnId: "t-1" }, { status: 202 });
  };
  const result = await api("/chat", { method: "POST", body: { message: "hi" }, headers: { Prefer: "respond-async" } });
  assert.deepEqual(result, { ok: true, status: 202, data: { turnId: "t-1" } });
  assert.equal(sent.url, "http://127.0.0.1:9/chat");
  assert.deepEqual(sent.headers, { "Content-Type": "application/json", "X-Local-User": "mei", Prefer: "respond-async" });
  assert.equal(sent.body, '{"message":"hi"}');
});

test("a pasted token goes as a bearer token; a body that is not JSON is its message", async () => {
  state.config = { ...DEFAULT_CONFIG, auth: "bearer" };
  state.token = "tok";
  let headers;
  globalThis.fetch = async (_url, init) => {
    headers = init.headers;
    return new Response("Bad gateway", { status: 502 });
  };
  assert.deepEqual(await api("/sessions/s"), { ok: false, status: 502, data: { message: "Bad gateway" } });
  assert.deepEqual(headers, { Authorization: "Bearer tok" });
});

test("a server that cannot be reached answers status 0 with why", async () => {
  globalThis.fetch = async () => {
    throw new TypeError("Failed to fetch");
  };
  assert.deepEqual(await api("/chat"), { ok: false, status: 0, data: { message: "The server could not be reached (Failed to fetch)." } });
});
