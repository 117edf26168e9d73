import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { DEFAULT_CONFIG, currentUser, loadConfig, state } from "../../web/state.js";
import { serveWeb } from "./support.js";

const fresh = { ...state };
afterEach(() => {
  Object.assign(state, fresh);
  delete globalThis.window;
});

test("local sign-in speaks for the chosen local user", () => {
  state.config = { ...DEFAULT_CONFIG, auth: "local" };
  state.user = "mei";
  state.token = "a-token"; // a token left over is not who the page speaks for
  assert.equal(currentUser(), "mei");
  state.user = null;
  assert.equal(currentUser(), null);
});

test("managed sign-in speaks for the signed-in person's email, else their name; never a token", () => {
  state.config = { ...DEFAULT_CONFIG, auth: "oidc" };
  state.signIn = /** @type {any} */ ({ user: { sub: "1", email: "ana@example.com", name: "Ana Silva" } });
  assert.equal(currentUser(), "ana@example.com");
  state.signIn = /** @type {any} */ ({ user: { sub: "1", email: "", name: "Ana Silva" } });
  assert.equal(currentUser(), "Ana Silva");
  state.signIn = /** @type {any} */ ({ user: null });
  assert.equal(currentUser(), null);
});

test("a pasted token speaks as 'token', not as its text", () => {
  state.config = DEFAULT_CONFIG;
  state.token = "eyJhbGciOi.secret.part";
  assert.equal(currentUser(), "token");
});

test("config.json fills in over the defaults", async () => {
  globalThis.window = {};
  const restore = serveWeb({ "config.json": { apiBase: "https://api.example.com", auth: "oidc", clientId: "abc" } });
  try {
    assert.deepEqual(await loadConfig(), { ...DEFAULT_CONFIG, apiBase: "https://api.example.com", auth: "oidc", clientId: "abc" });
  } finally {
    restore();
  }
});

test("without config.json (not served, or no server) the page runs on the defaults", async () => {
  globalThis.window = {};
  const restore = serveWeb();
  try {
    assert.deepEqual(await loadConfig(), DEFAULT_CONFIG);
  } finally {
    restore();
  }
  const original = globalThis.fetch;
  globalThis.fetch = async () => {
    throw new TypeError("Failed to fetch");
  };
  try {
    assert.deepEqual(await loadConfig(), DEFAULT_CONFIG);
  } finally {
    globalThis.fetch = original;
  }
});

test("a config set on the window before the modules load wins over config.json", async () => {
  globalThis.window = { MULTITOOL_CONFIG: { auth: "local" } };
  const restore = serveWeb({ "config.json": { auth: "oidc" } });
  try {
    assert.deepEqual(await loadConfig(), { ...DEFAULT_CONFIG, auth: "local" });
  } finally {
    restore();
  }
});
