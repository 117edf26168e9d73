import assert from "node:assert/strict";
import { test } from "node:test";

import { issueFacts, linkWordings, offeredTransitions } from "../../web/cards/issues.js";

const WEB_12 = {
  kind: "issue",
  id: "WEB-12",
  label: "WEB-12: Login crash on Safari (In Progress)",
  fields: {
    key: "WEB-12",
    summary: "Login crash on Safari",
    status: "In Progress",
    assignee: "Priya Patel",
    priority: "Medium",
    transitions: [
      { id: "31", name: "Send to review", toStatus: "In Review" },
      { id: "41", name: "Close issue", toStatus: "Done" },
    ],
    linkTypes: [
      { name: "Blocks", outward: "blocks", inward: "is blocked by" },
      { name: "Relates", outward: "relates to", inward: "relates to" },
    ],
  },
};

test("an issue's facts: its status, assignee and priority", () => {
  assert.equal(issueFacts(WEB_12), "In Progress · assigned to Priya Patel · Medium");
  assert.equal(issueFacts({ ...WEB_12, fields: { status: "To Do", assignee: null } }), "To Do · unassigned");
  assert.equal(issueFacts(null), "");
});

test("the transitions offered are the issue's own, as Jira answered them", () => {
  assert.deepEqual(offeredTransitions(WEB_12), [["31", "Send to review → In Review"], ["41", "Close issue → Done"]]);
  assert.deepEqual(offeredTransitions({ ...WEB_12, fields: {} }), []);
});

test("a link reads both ways from the site's link types, once when both ways read the same", () => {
  const card = { issue: { query: "WEB-12", status: "found", item: WEB_12 }, other: { query: "OPS-3", status: "found", item: null }, linkTypes: ["Blocks", "Relates"] };
  assert.deepEqual(linkWordings(card), [["Blocks|out", "blocks"], ["Blocks|in", "is blocked by"], ["Relates|out", "relates to"]]);
});
