import assert from "node:assert/strict";
import { test } from "node:test";

import { EMAIL, chosenPerson, firstWord, personLabel, readPeople, sentPeople, typedAddress } from "../../web/people.js";

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

// A card's people field, as read when the card is confirmed: each row, then the field.
const ALEX = { query: "Alex", status: "ambiguous", person: null, candidates: [ALEX_KIM, ALEX_LEE] };
const NOBODY = { query: "Jordan", status: "unknown", person: null, candidates: [] };

test("an ambiguous name reads as the candidate chosen, else asks which one", () => {
  assert.deepEqual(chosenPerson(ALEX, "alex.lee@example.com"), { email: "alex.lee@example.com", name: "Alex Lee" });
  assert.deepEqual(chosenPerson(ALEX, ""), { problem: "Choose which Alex you mean." });
  // An address that is not one of the candidates (the select was tampered with) is no choice.
  assert.deepEqual(chosenPerson(ALEX, "eve@example.com"), { problem: "Choose which Alex you mean." });
});

test("an unknown name reads as the whole address typed for it, else asks for one", () => {
  assert.deepEqual(typedAddress(NOBODY, "  jordan@example.org "), { email: "jordan@example.org", name: null });
  assert.deepEqual(typedAddress(NOBODY, "jordan@"), { problem: "Enter an email address for “Jordan”, or remove them." });
  assert.deepEqual(typedAddress(NOBODY, ""), { problem: "Enter an email address for “Jordan”, or remove them." });
});

test("a field reads its rows' addresses in order, and every row's problem", () => {
  const rows = [{ email: "alex.kim@example.com", name: "Alex Kim" }, { problem: "Choose which Sam you mean." }, { email: "pat@example.org", name: null }];
  assert.deepEqual(readPeople(rows, { labelText: "To" }), {
    people: [{ email: "alex.kim@example.com", name: "Alex Kim" }, { email: "pat@example.org", name: null }],
    problems: ["Choose which Sam you mean."],
  });
});

test("a field that needs someone and has no one says so; one that may be empty does not", () => {
  assert.deepEqual(readPeople([], { labelText: "Attendees" }), { people: [], problems: ["Attendees needs at least one person."] });
  assert.deepEqual(readPeople([], { labelText: "Cc", allowEmpty: true }), { people: [], problems: [] });
  // A row's own problem is the field's: no second one about it being empty.
  assert.deepEqual(readPeople([{ problem: "Enter an email address for “Jordan”, or remove them." }], { labelText: "To" }).problems, [
    "Enter an email address for “Jordan”, or remove them.",
  ]);
});
