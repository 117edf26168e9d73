// The cards that change a Jira issue that already exists: a comment, a transition, an update, a link.
// Each shows the issue (key, summary, status, assignee) as found among the user's own (reference.js),
// a choice when several fit, and the change; a confirm sends the chosen issue's id and the change.
import { field, h } from "../dom.js";
import { choices, maxLength } from "../limits.js";
import { peopleField } from "../people.js";
import { referenceField } from "../reference.js";

const COMMENT = "show_jira_comment";
const TRANSITION = "show_jira_transition";
const UPDATE = "show_jira_update";
const LINK = "show_jira_link";

/**
 * The issue's own line: its status and assignee (what the card shows beside its key and summary).
 * @param {any} item
 * @returns {string}
 */
export function issueFacts(item) {
  if (!item || !item.fields) return "";
  const f = item.fields;
  const who = f.assignee ? `assigned to ${f.assignee}` : "unassigned";
  return `${f.status || "?"} · ${who}${f.priority ? ` · ${f.priority}` : ""}`;
}

// The issue's reference and, under it, the facts of the one found or chosen.
function issueField(label, resolution, onChange) {
  const facts = h("p", { class: "hint issue-facts", text: issueFacts(resolution.item) });
  const ref = referenceField(label, resolution, {
    noun: "issue",
    onChange: (item) => {
      facts.textContent = issueFacts(item);
      if (onChange) onChange(item);
    },
  });
  return { element: h("div", { class: "issue-ref" }, ref.element, facts), read: ref.read };
}

const options = (values, selected) => values.map(([value, text]) => h("option", { value, text, selected: value === selected }));

function commentCard(card) {
  const issue = issueField("Issue", card.issue);
  const text = h("textarea", { rows: 4, name: "comment", maxlength: maxLength(COMMENT, "comment") });
  text.value = card.comment || "";
  const read = () => {
    const ref = issue.read();
    const problems = [...ref.problems];
    if (!text.value.trim()) problems.push("Write the comment.");
    return { problems, fields: { issue: ref.itemId, comment: text.value } };
  };
  return { fields: [issue.element, field("Comment", text, { name: "comment" })], read };
}

/**
 * The transitions an issue offers now, as the card read them from Jira: [id, "Name (to Status)"].
 * @param {any} item
 * @returns {string[][]}
 */
export function offeredTransitions(item) {
  const offered = (item && item.fields && item.fields.transitions) || [];
  return offered.map((t) => [String(t.id), `${t.name} → ${t.toStatus}`]);
}

function transitionCard(card) {
  const select = h("select", { name: "transition" });
  const fill = (item, selected) => {
    select.replaceChildren(h("option", { value: "", text: "Choose a transition" }), ...options(offeredTransitions(item), selected));
  };
  const issue = issueField("Issue", card.issue, (item) => fill(item, null));
  fill(card.issue.item, card.transition || "");
  const already = card.already && card.issue.item;
  const read = () => {
    const ref = issue.read();
    const problems = [...ref.problems];
    if (!select.value && !already) problems.push("Choose the transition.");
    return { problems, fields: { issue: ref.itemId, transition: select.value || null } };
  };
  const status = h("p", { class: "hint", text: `Asked for: ${card.status}` });
  return { fields: [issue.element, field("Move to", select, { name: "transition" }), status], read };
}

function updateCard(card) {
  const issue = issueField("Issue", card.issue);
  const priority = h("select", { name: "priority" }, h("option", { value: "", text: "unchanged" }),
    choices(UPDATE, "priority", card.priority).map((p) => h("option", { value: p, text: p, selected: p === card.priority })));
  const summary = h("input", { type: "text", name: "summary", value: card.summary || "", placeholder: "unchanged", maxlength: maxLength(UPDATE, "summary") });
  const add = h("input", { type: "text", name: "labelsAdd", value: (card.labelsAdd || []).join(" "), placeholder: "labels to add" });
  const remove = h("input", { type: "text", name: "labelsRemove", value: (card.labelsRemove || []).join(" "), placeholder: "labels to remove" });
  const due = h("input", { type: "date", name: "dueDate", value: card.dueDate || "" });
  const assignee = peopleField("Assignee", card.assignee ? [card.assignee] : [], { name: "assignee", allowEmpty: true });
  const words = (input) => input.value.split(/[\s,]+/).filter(Boolean);
  const read = () => {
    const ref = issue.read();
    const a = assignee.read();
    const problems = [...ref.problems, ...a.problems];
    if (a.people.length > 1) problems.push("Pick one assignee.");
    const fields = {
      issue: ref.itemId,
      priority: priority.value || null,
      assignee: a.people.length ? a.people[0].email : null,
      summary: summary.value.trim() || null,
      labelsAdd: words(add),
      labelsRemove: words(remove),
      dueDate: due.value || null,
    };
    if (!fields.priority && !fields.assignee && !fields.summary && !fields.labelsAdd.length && !fields.labelsRemove.length && !fields.dueDate) {
      problems.push("Change at least one field.");
    }
    return { problems, fields };
  };
  return {
    fields: [
      issue.element,
      h("div", { class: "field-row" }, field("Priority", priority, { name: "priority" }), field("Due date", due, { name: "dueDate" })),
      field("Summary", summary, { name: "summary" }),
      h("div", { class: "field-row" }, field("Add labels", add, { name: "labelsAdd" }), field("Remove labels", remove, { name: "labelsRemove" })),
      assignee.element,
    ],
    read,
  };
}

/**
 * The link's wording both ways, from the site's link types the card read ([value, words]).
 * @param {any} card
 * @returns {string[][]}
 */
export function linkWordings(card) {
  const item = card.issue.item || (card.issue.candidates || [])[0] || card.other.item || null;
  const kinds = (item && item.fields && item.fields.linkTypes) || (card.linkTypes || []).map((name) => ({ name, outward: name, inward: name }));
  return kinds.flatMap((k) => (k.outward === k.inward ? [[`${k.name}|out`, k.outward]] : [[`${k.name}|out`, k.outward], [`${k.name}|in`, k.inward]]));
}

function linkCard(card) {
  const first = issueField("Issue", card.issue);
  const second = issueField("Other issue", card.other);
  const chosen = card.linkType ? `${card.linkType}|${card.outward ? "out" : "in"}` : "";
  const kind = h("select", { name: "linkType" }, h("option", { value: "", text: "Choose how they relate" }), ...options(linkWordings(card), chosen));
  const read = () => {
    const a = first.read();
    const b = second.read();
    const problems = [...a.problems, ...b.problems];
    if (!kind.value) problems.push("Choose how the issues relate.");
    const [linkType, way] = kind.value.split("|");
    return { problems, fields: { issue: a.itemId, other: b.itemId, linkType: linkType || null, outward: way !== "in" } };
  };
  return { fields: [first.element, field("Relation", kind, { name: "linkType" }), second.element], read };
}

// The confirm's answer: what was done to which issue (or that it was done already).
function changed(verb) {
  return (view) => {
    const result = (view && view.result) || {};
    if (!result.issueKey) return null;
    const already = result.alreadyDone ? " (it already was)" : "";
    return h("span", { text: `${verb(result)}${already}` });
  };
}

const keep = (card) => card;

/** @type {import("./kinds.js").CardKind[]} */
export const issueCards = [
  { type: COMMENT, title: "Jira comment", icon: "✎", build: commentCard, sent: (card, edits) => ({ ...card, comment: edits.comment }), done: "Posted", confirmLabel: "Post comment", result: changed((r) => `Commented on ${r.issueKey}`) },
  { type: TRANSITION, title: "Jira transition", icon: "⇥", build: transitionCard, sent: keep, done: "Moved", result: changed((r) => `${r.issueKey} is now ${r.status}`) },
  { type: UPDATE, title: "Jira update", icon: "±", build: updateCard, sent: keep, done: "Updated", result: changed((r) => `Updated ${r.issueKey}`) },
  { type: LINK, title: "Jira link", icon: "↔", build: linkCard, sent: keep, done: "Linked", result: changed((r) => `Linked ${r.issueKey} and ${r.otherKey}`) },
];
