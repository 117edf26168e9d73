import assert from "node:assert/strict";
import { test } from "node:test";

import { EMAIL, firstWord, personLabel, sentPeople } from "../../web/people.js";

const ALEX_KIM = { displayName: "Alex Kim", email: "alex.kim@example.com", timezone: "Asia/Tokyo" };
const ALEX_LEE = { displayName: "Alex Lee", email: "alex.lee@example.com", timezone: "Europe/Berlin" };

test("an address is whole only with a name, an @ and a dotted domain", () => {
  assert.ok(EMAIL.test("ana@example.com"));
  for (const partial of ["ana", "ana@", "ana@example", "@example.com", "ana @example.com", "ana@exa mple.com"]) {
    assert.equal(EMAIL.test(partial), false, partial);
  }
});

test("a person reads as their name and address", () => {
  assert.equal(personLabel(ALEX_KIM), "Alex Kim <alex.kim@example.com>");
});

test("the first word of a name, and nothing in place of no name", () => {
  assert.equal(firstWord("  Alex   Kim "), "Alex");
  assert.equal(firstWord("Alex"), "Alex");
  assert.equal(firstWord(""), "");
  assert.equal(firstWord(null), "");
  assert.equal(firstWord(undefined), "");
});

test("a confirmed address the card offered is the directory's person, with their zone", () => {
  // The card offered an ambiguous "Alex"; the confirm chose Alex Lee (another client may have chosen).
  const offered = [{ query: "Alex", status: "ambiguous", person: null, candidates: [ALEX_KIM, ALEX_LEE] }];
  const rows = sentPeople([{ email: "Alex.Lee@example.com", name: "Alex Lee" }], offered);
  assert.deepEqual(rows, [{ query: "Alex.Lee@example.com", status: "resolved", person: ALEX_LEE, candidates: [] }]);
});

test("an address the card did not offer is kept as sent, named by its name or else its address", () => {
  const offered = [{ query: "Alex", status: "resolved", person: ALEX_KIM, candidates: [] }];
  const rows = sentPeople([{ email: "sam@example.org", name: "Sam" }, { email: "pat@example.org", name: null }], offered);
  assert.deepEqual(rows.map((r) => r.person), [
    { displayName: "Sam", email: "sam@example.org", timezone: "" },
    { displayName: "pat@example.org", email: "pat@example.org", timezone: "" },
  ]);
});

test("no addresses and no offered rows read as no people", () => {
  assert.deepEqual(sentPeople(null, null), []);
  assert.deepEqual(sentPeople([], [null]), []);
});
