import assert from "node:assert/strict";
import { test } from "node:test";

import { chosenItem, readReference } from "../../web/reference.js";

const SYNC = { kind: "meeting", id: "e1", label: "Weekly sync · Tue 8 Dec 10:00" };
const BUDGET = { kind: "meeting", id: "e2", label: "Budget review · Tue 8 Dec 14:00" };

test("a reference found reads as its item, with nothing left to do", () => {
  assert.deepEqual(readReference({ query: "the sync", status: "found", item: SYNC }, "", "meeting"), { itemId: "e1", problems: [] });
});

test("an ambiguous reference waits for a choice, then reads as the candidate chosen", () => {
  const ambiguous = { query: "Priya's meeting", status: "ambiguous", candidates: [SYNC, BUDGET] };
  assert.deepEqual(readReference(ambiguous, "", "meeting"), { itemId: null, problems: ["Choose which meeting you mean."] });
  assert.deepEqual(readReference(ambiguous, "e2", "meeting"), { itemId: "e2", problems: [] });
  assert.equal(chosenItem(ambiguous, "e2"), BUDGET);
  assert.equal(chosenItem(ambiguous, "someone-elses"), null);
});

test("a reference that matched nothing says so and cannot be confirmed", () => {
  const reading = readReference({ query: "the offsite", status: "none" }, "", "meeting");
  assert.equal(reading.itemId, null);
  assert.match(reading.problems[0], /No meeting of yours matches “the offsite”/);
});
