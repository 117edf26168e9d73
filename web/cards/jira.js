// The Jira card: project, issue type and priority, summary, description and assignee. The projects, each
// project's issue types, the priorities and the limits are the backend's (limits.js).
import { field, h, linkOrText, safeHref } from "../dom.js";
import { choices, issueTypes, jiraProjects, maxLength } from "../limits.js";
import { peopleField, sentPeople } from "../people.js";

const TYPE = "show_jira_ticket_draft";

const options = (values, selected) => values.map((v) => h("option", { value: v, text: v, selected: v === selected }));

function jiraCard(card) {
  const project = h("select", { name: "project" }, options(jiraProjects(card.project), card.project));
  const issueType = h("select", { name: "issueType" }, options(issueTypes(card.project, card.issueType), card.issueType));
  // Another project offers its own issue types: the type chosen stays when that project has it too.
  project.addEventListener("change", () => {
    const types = issueTypes(project.value, null);
    const keep = types.includes(issueType.value) ? issueType.value : types[0];
    issueType.replaceChildren(...options(types.length ? types : [issueType.value], keep));
  });
  const summary = h("input", { type: "text", value: card.summary || "", maxlength: maxLength(TYPE, "summary"), name: "summary" });
  const description = h("textarea", { rows: 5, name: "description", maxlength: maxLength(TYPE, "description") });
  description.value = card.description || "";
  const current = card.priority || "Medium";
  const priority = h("select", { name: "priority" }, options(choices(TYPE, "priority", current), current));
  const assignee = peopleField("Assignee", card.assignee ? [card.assignee] : [], { name: "assignee", allowEmpty: true });
  const fields = [
    h("div", { class: "field-row" }, field("Project", project, { name: "project" }), field("Issue type", issueType, { name: "issueType" }), field("Priority", priority, { name: "priority" })),
    field("Summary", summary, { name: "summary" }),
    field("Description", description, { name: "description" }),
    assignee.element,
  ];
  const read = () => {
    const a = assignee.read();
    const problems = [...a.problems];
    if (!summary.value.trim()) problems.push("Add a summary.");
    if (a.people.length > 1) problems.push("Pick one assignee.");
    return {
      problems,
      fields: {
        project: project.value,
        issueType: issueType.value,
        summary: summary.value.trim(),
        description: description.value,
        priority: priority.value,
        assignee: a.people.length ? a.people[0].email : null,
      },
    };
  };
  return { fields, read };
}

// The confirm's answer names the issue it created.
function jiraResult(view) {
  const result = (view && view.result) || {};
  if (!result.issueKey) return null;
  const key = String(result.issueKey);
  if (safeHref(result.issueUrl)) return h("span", {}, "Created ", linkOrText(result.issueUrl, key));
  return h("span", { text: `Created ${key}` });
}

// The card as created (the confirmed fields, which another client may have edited).
function jiraSent(card, edits) {
  const assignee = edits.assignee ? sentPeople([edits.assignee], card.assignee ? [card.assignee] : [])[0] : null;
  const { project, issueType, summary, description, priority } = edits;
  return { ...card, project, issueType, summary, description, priority, assignee };
}

/** @type {import("./kinds.js").CardKind} */
export const jira = { type: TYPE, title: "Jira ticket", icon: "▣", build: jiraCard, sent: jiraSent, done: "Created", result: jiraResult };
