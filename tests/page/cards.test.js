// What a done action's card shows: the confirmed edits (GET /actions/{id}'s ``edits``, which another
// client may have changed) read back into the card type's fields.
import assert from "node:assert/strict";
import { test } from "node:test";

import { agenda } from "../../web/cards/agenda.js";
import { email } from "../../web/cards/email.js";
import { free } from "../../web/cards/free.js";
import { typeTitle } from "../../web/cards/generic.js";
import { jira } from "../../web/cards/jira.js";
import { meeting } from "../../web/cards/meeting.js";

const ALEX = { displayName: "Alex Kim", email: "alex@example.com", timezone: "Asia/Tokyo" };
const SAM = { displayName: "Sam Park", email: "sam@example.com", timezone: "Europe/Berlin" };
const row = (person) => ({ query: person.displayName.split(" ")[0], status: "resolved", person, candidates: [] });

test("an email sent as confirmed: its recipients resolved from the card, its subject and body as edited", () => {
  const card = { type: "show_new_email_draft", id: "d1", to: [row(ALEX)], cc: [row(SAM)], subject: "Draft", body: "Hi", notes: ["n"] };
  const edits = { to: [{ email: "sam@example.com", name: "Sam Park" }], cc: [], subject: "Budget", body: "Hello Sam" };
  assert.deepEqual(email.sent(card, edits), {
    ...card,
    to: [{ query: "sam@example.com", status: "resolved", person: SAM, candidates: [] }],
    cc: [],
    subject: "Budget",
    body: "Hello Sam",
  });
});

test("a ticket created as confirmed: another assignee typed in is kept as an address", () => {
  const card = { type: "show_jira_ticket_draft", id: "d2", project: "OPS", issueType: "Task", summary: "s", description: "", priority: "Medium", assignee: row(ALEX) };
  const edits = { project: "APP", issueType: "Bug", summary: "Login fails", description: "Steps", priority: "High", assignee: { email: "pat@example.org", name: null } };
  const sent = jira.sent(card, edits);
  assert.deepEqual(
    { project: sent.project, issueType: sent.issueType, summary: sent.summary, description: sent.description, priority: sent.priority },
    { project: "APP", issueType: "Bug", summary: "Login fails", description: "Steps", priority: "High" },
  );
  assert.deepEqual(sent.assignee.person, { displayName: "pat@example.org", email: "pat@example.org", timezone: "" });
  assert.equal(jira.sent(card, { ...edits, assignee: null }).assignee, null);
  assert.deepEqual(jira.sent(card, { ...edits, assignee: { email: "ALEX@example.com", name: "Alex" } }).assignee.person, ALEX);
});

test("a meeting booked as confirmed: the one slot, with that slot's checks (matched as instants)", () => {
  const slots = [
    { start: "2026-12-08T01:00:00Z", end: "2026-12-08T01:30:00Z" },
    { start: "2026-12-08T03:00:00Z", end: "2026-12-08T03:30:00Z" },
  ];
  const checks = [[{ email: "alex@example.com", name: "Alex Kim", busy: true }], [{ email: "alex@example.com", name: "Alex Kim", busy: false }]];
  const card = { type: "show_meeting_scheduler", id: "d3", title: "Sync", attendees: [row(ALEX)], slots, slotChecks: checks };
  // The confirm's edits may write the same instant in another offset.
  const edits = { title: "Weekly sync", attendees: [{ email: "alex@example.com", name: "Alex Kim" }], start: "2026-12-08T12:00:00+09:00", end: "2026-12-08T12:30:00+09:00" };
  const sent = meeting.sent(card, edits);
  assert.equal(sent.title, "Weekly sync");
  assert.deepEqual(sent.attendees.map((r) => r.person), [ALEX]);
  assert.deepEqual(sent.slots, [{ start: edits.start, end: edits.end }]);
  assert.deepEqual(sent.slotChecks, [checks[1]]);
  // A time the card never offered (edited elsewhere) carries no checks.
  assert.deepEqual(meeting.sent(card, { ...edits, start: "2026-12-09T01:00:00Z", end: "2026-12-09T01:30:00Z" }).slotChecks, []);
});

test("a repeating meeting booked as confirmed keeps the chosen slot's series", () => {
  const slots = [
    { start: "2026-12-14T16:00:00Z", end: "2026-12-14T16:30:00Z" },
    { start: "2026-12-14T16:30:00Z", end: "2026-12-14T17:00:00Z" },
  ];
  const series = [{ words: "Every Monday, 11:00-11:30", rule: "FREQ=WEEKLY;BYDAY=MO", occurrences: [] }, { words: "Every Monday, 11:30-12:00", rule: "FREQ=WEEKLY;BYDAY=MO", occurrences: [] }];
  const card = { type: "show_meeting_scheduler", id: "d4", title: "1:1", attendees: [row(ALEX)], slots, slotChecks: [[], []], series };
  const sent = meeting.sent(card, { title: "1:1", attendees: [{ email: "alex@example.com" }], start: slots[1].start, end: slots[1].end });
  assert.deepEqual(sent.series, [series[1]]);
});

test("the agenda card is read only: nothing to confirm, and its reading carries no fields", () => {
  assert.equal(agenda.type, "show_agenda");
  assert.equal(agenda.readOnly, true);
  assert.equal(agenda.sent, undefined);
  assert.equal(free.type, "show_free_times");
  assert.equal(free.readOnly, true);
});

test("a card type without a module of its own is titled from its type", () => {
  assert.equal(typeTitle("show_reminder_draft"), "Reminder draft");
  assert.equal(typeTitle("show_"), "Action");
  assert.equal(typeTitle(null), "Action");
});

const ITEM = (id, title) => ({ kind: "meeting", id, label: `${title} · Tue 08 Dec 10:00-10:30`, version: "1", fields: { title } });

test("a meeting moved as confirmed: the candidate chosen becomes the meeting, and the one time it moved to", async () => {
  const { meetingMove } = await import("../../web/cards/existing.js");
  const card = {
    type: "show_meeting_move",
    id: "d4",
    meeting: { query: "the sync", status: "ambiguous", item: null, candidates: [ITEM("e1", "Weekly sync"), ITEM("e2", "Budget sync")] },
    slots: [{ start: "2026-12-08T10:30:00Z", end: "2026-12-08T11:00:00Z" }],
    slotChecks: [[{ email: "priya@example.com", name: "Priya", busy: true }]],
    message: "",
  };
  const edits = { meeting: { id: "e2", title: "Budget sync" }, start: "2026-12-08T11:30:00Z", end: "2026-12-08T12:00:00Z", message: "Running late" };
  const sent = meetingMove.sent(card, edits);
  assert.equal(sent.meeting.status, "found");
  assert.equal(sent.meeting.item.id, "e2");
  assert.deepEqual(sent.slots, [{ start: edits.start, end: edits.end }]);
  assert.deepEqual(sent.slotChecks, []);
  assert.equal(sent.message, "Running late");
});

test("a cancellation and an answer as confirmed: the meeting chosen, the message and the answer sent", async () => {
  const { invitationAnswer, meetingCancel } = await import("../../web/cards/existing.js");
  const meeting = { query: "Mei's offsite", status: "found", item: ITEM("e9", "Offsite planning"), candidates: [] };
  const cancelled = meetingCancel.sent({ type: "show_meeting_cancel", id: "d5", meeting, message: "" }, { meeting: { id: "e9" }, message: "I'm sick" });
  const answered = invitationAnswer.sent(
    { type: "show_invitation_answer", id: "d6", meeting, response: "accepted", message: "" },
    { meeting: { id: "e9" }, response: "declined", message: "I'm out" },
  );
  assert.equal(cancelled.message, "I'm sick");
  assert.equal(cancelled.meeting.item.id, "e9");
  assert.deepEqual([answered.response, answered.message], ["declined", "I'm out"]);
});

test("a cancellation of a series' meeting as confirmed: the scope chosen, in words", async () => {
  const { meetingCancel } = await import("../../web/cards/existing.js");
  const meeting = { query: "the 1:1", status: "found", item: ITEM("e1", "1:1 with Priya"), candidates: [] };
  const card = { type: "show_meeting_cancel", id: "d7", meeting, message: "", scope: null, scopeWords: null };
  const series = meetingCancel.sent(card, { meeting: { id: "e1" }, message: "", scope: "series" });
  assert.deepEqual([series.scope, series.scopeWords], ["series", "Every meeting of the series"]);
  assert.equal(meetingCancel.sent(card, { meeting: { id: "e1" }, message: "" }).scope, null);
});
