import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";

import { choices, issueTypes, jiraProjects, loadLimits, maxLength } from "../../web/limits.js";
import { DEFAULT_CONFIG, state } from "../../web/state.js";
import { serveWeb } from "./support.js";

// The committed schema, read here on its own: what limits.js must find in it through the discriminator.
const SCHEMA = JSON.parse(readFileSync(new URL("../../web/client-actions.schema.json", import.meta.url), "utf8"));
const EMAIL = SCHEMA.$defs.EmailDraftCard.properties;
const JIRA = SCHEMA.$defs.JiraTicketDraftCard.properties;

let restore;
before(async () => {
  restore = serveWeb();
  await loadLimits();
});
after(() => {
  restore();
  state.config = DEFAULT_CONFIG;
});

test("a card field's maxLength is the schema's, found through the card type's mapping", () => {
  assert.ok(Number.isInteger(EMAIL.subject.maxLength));
  assert.equal(maxLength("show_new_email_draft", "subject"), EMAIL.subject.maxLength);
  assert.equal(maxLength("show_new_email_draft", "body"), EMAIL.body.maxLength);
  assert.equal(maxLength("show_jira_ticket_draft", "summary"), JIRA.summary.maxLength);
});

test("a field without a maxLength, an unknown field and an unknown card type have none", () => {
  assert.equal(maxLength("show_new_email_draft", "to"), null);
  assert.equal(maxLength("show_new_email_draft", "nope"), null);
  assert.equal(maxLength("show_reminder_draft", "subject"), null);
});

test("the priorities are the schema's enum behind its $ref, in its order; the card's own one last", () => {
  const priorities = SCHEMA.$defs[JIRA.priority.$ref.split("/").pop()].enum;
  assert.ok(priorities.length > 1);
  assert.deepEqual(choices("show_jira_ticket_draft", "priority", priorities[1]), priorities);
  assert.deepEqual(choices("show_jira_ticket_draft", "priority", "Urgent!"), [...priorities, "Urgent!"]);
  assert.deepEqual(choices("show_jira_ticket_draft", "summary", null), []);
});

test("the projects and each project's issue types are config.json's", () => {
  state.config = { ...DEFAULT_CONFIG, jiraProjects: { OPS: { name: "Operations", issueTypes: ["Task", "Incident"] }, APP: { name: "App" } } };
  assert.deepEqual(jiraProjects(null), ["APP", "OPS"]);
  assert.deepEqual(jiraProjects("LEGACY"), ["APP", "OPS", "LEGACY"]);
  assert.deepEqual(issueTypes("OPS", "Incident"), ["Task", "Incident"]);
  assert.deepEqual(issueTypes("OPS", "Bug"), ["Task", "Incident", "Bug"]);
  assert.deepEqual(issueTypes("APP", null), []);
  assert.deepEqual(issueTypes("NONE", "Task"), ["Task"]);
});

test("a config without projects (or with a list) offers only the card's own", () => {
  state.config = { ...DEFAULT_CONFIG, jiraProjects: /** @type {any} */ (["OPS"]) };
  assert.deepEqual(jiraProjects("OPS"), ["OPS"]);
  state.config = DEFAULT_CONFIG;
  assert.deepEqual(jiraProjects(undefined), []);
});

test("without the schema (not served) the inputs carry no limits", async () => {
  const original = globalThis.fetch;
  globalThis.fetch = async () => new Response("Not found", { status: 404 });
  try {
    await loadLimits();
    assert.equal(maxLength("show_new_email_draft", "subject"), null);
    assert.deepEqual(choices("show_jira_ticket_draft", "priority", "Medium"), ["Medium"]);
  } finally {
    globalThis.fetch = original;
    await loadLimits(); // the schema again, for any test after this one
  }
});
