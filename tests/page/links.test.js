// What a linked card says until the other card is confirmed: the tool's template over that card's fields
// as the user edits them, and the text cut into plain pieces and placeholders.
import assert from "node:assert/strict";
import { test } from "node:test";

import { previewOf, splitText } from "../../web/cards/links.js";

test("a ticket's key reads its project as the user picks it", () => {
  assert.equal(previewOf("{project}-?", { project: "WEB" }), "WEB-?");
  assert.equal(previewOf("{project}-?", { project: "OPS" }), "OPS-?");
  assert.equal(previewOf("(link to {project}-?)", {}), "(link to ?-?)");
});

test("a meeting's time is the chosen slot in words in the turn's zone, else the first slot offered", () => {
  const slots = [{ start: "2026-12-10T14:00:00Z", end: "2026-12-10T14:30:00Z" }, { start: "2026-12-10T15:00:00Z", end: "2026-12-10T15:30:00Z" }];
  assert.equal(previewOf("{slot.start|when}", { slots }, "America/New_York"), "Thursday 10 December, 09:00 (America/New_York)");
  assert.equal(previewOf("{slot.start|when}", { slots, slot: slots[1] }, "Europe/London"), "Thursday 10 December, 15:00 (Europe/London)");
  assert.equal(previewOf("{slot.start|when}", { slots: [] }, "UTC"), "?");
});

test("the text splits into plain pieces and the links it holds, each where it stands", () => {
  const key = { placeholder: "{{ticket.key}}", field: "body" };
  const url = { placeholder: "{{ticket.url}}", field: "body" };
  const pieces = splitText("Filed {{ticket.key}}: {{ticket.url}}. Thanks", /** @type {any} */ ([key, url]));
  assert.deepEqual(pieces, ["Filed ", key, ": ", url, ". Thanks"]);
  assert.deepEqual(splitText("No placeholder left", /** @type {any} */ ([key])), ["No placeholder left"]);
});
