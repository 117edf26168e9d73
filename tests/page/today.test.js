import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { DEFAULT_CONFIG, state } from "../../web/state.js";
import { dayIn, userZone } from "../../web/today.js";

const fresh = { ...state };
afterEach(() => Object.assign(state, fresh));

test("the calendar day of an instant is the zone's own", () => {
  const lateInLondon = new Date("2026-12-07T23:30:00Z");
  assert.equal(dayIn(lateInLondon, "Europe/London"), "2026-12-07");
  assert.equal(dayIn(lateInLondon, "Asia/Tokyo"), "2026-12-08");
  assert.equal(dayIn(lateInLondon, "America/Los_Angeles"), "2026-12-07");
  assert.equal(dayIn(new Date("2026-12-08T02:00:00Z"), "America/Los_Angeles"), "2026-12-07");
});

test("a local user's zone is their own, whatever the browser's", () => {
  state.config = { ...DEFAULT_CONFIG, auth: "local" };
  state.users = [{ id: "mei", displayName: "Mei Tanaka", timezone: "Asia/Tokyo" }, { id: "sam", displayName: "Sam", timezone: "" }];
  state.user = "mei";
  assert.equal(userZone(), "Asia/Tokyo");
  state.user = "sam"; // no zone of their own: the browser's
  assert.equal(userZone(), Intl.DateTimeFormat().resolvedOptions().timeZone);
});

test("signed in otherwise, the zone is the browser's (sent with each message)", () => {
  state.config = { ...DEFAULT_CONFIG, auth: "oidc" };
  state.users = [{ id: "mei", displayName: "Mei Tanaka", timezone: "Asia/Tokyo" }];
  state.user = "mei";
  assert.equal(userZone(), Intl.DateTimeFormat().resolvedOptions().timeZone);
});
