// The chat drawer: posts to /chat, renders one editable card per client action,
// and confirms or discards each through /actions/{id}. No build step, no dependencies.

// Deployed: config.json next to the page (written by the stack) gives {apiBase, auth: "oidc",
// signInDomain, clientId}: sign in through managed login (auth.js); auth "bearer" takes a pasted token.
// The local server answers config.json with auth "local" (a seeded user) or "oidc" (its OIDC stand-in).
import { OidcSignIn } from "./auth.js";

const DEFAULT_CONFIG = { apiBase: "", auth: "bearer", jiraProjects: [] };
const USER_KEY = "multitool.localUser";
const TOKEN_KEY = "multitool.token";
const PRIORITIES = ["Highest", "High", "Medium", "Low", "Lowest"];
const ISSUE_TYPES = ["Bug", "Task", "Story", "Incident"];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const state = { config: DEFAULT_CONFIG, users: [], user: null, token: null, signIn: null, sessionId: null, busy: false };
let uid = 0;
const nextId = (prefix) => `${prefix}-${++uid}`;

// ---------------------------------------------------------------- DOM helpers

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (id) => document.getElementById(id);

// A link from API data opens only as http(s): a javascript: or data: URL would run in this page.
function safeHref(url) {
  if (typeof url !== "string" || !url) return null;
  try {
    const { protocol } = new URL(url, document.baseURI);
    return protocol === "https:" || protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

// An external link, or the plain text when the URL is not a safe one.
function linkOrText(url, text) {
  const href = safeHref(url);
  return href ? h("a", { href, target: "_blank", rel: "noopener noreferrer", text }) : h("strong", { text });
}

function field(labelText, control, { hint, name } = {}) {
  const id = control.id || nextId("f");
  control.id = id;
  const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  control.setAttribute("aria-describedby", error.id);
  return h(
    "div",
    { class: "field", "data-field": name || "" },
    h("label", { for: id, text: labelText }),
    control,
    hint ? h("p", { class: "hint", text: hint }) : null,
    error,
  );
}

function setFieldError(container, message) {
  const error = container.querySelector(".field-error");
  const control = container.querySelector("input, select, textarea");
  if (!error) return;
  error.textContent = message || "";
  error.hidden = !message;
  if (control) control.setAttribute("aria-invalid", message ? "true" : "false");
}

function clearErrors(card) {
  for (const container of card.querySelectorAll(".field, .person")) setFieldError(container, "");
  const status = card.querySelector(".card-error");
  if (status) {
    status.hidden = true;
    status.textContent = "";
  }
}

// ---------------------------------------------------------------- API

async function authHeaders() {
  if (state.config.auth === "local") return state.user ? { "X-Local-User": state.user } : {};
  const token = state.signIn ? await state.signIn.token() : state.token;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function api(path, { method = "GET", body, headers = {} } = {}) {
  let response;
  try {
    response = await fetch(`${state.config.apiBase}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(await authHeaders()), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, data: { message: `The server could not be reached (${error.message}).` } };
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text };
  }
  return { ok: response.ok, status: response.status, data };
}

function errorMessage(result) {
  const data = result.data || {};
  const error = data.error && typeof data.error === "object" ? data.error : null;
  const message = (error && error.message) || data.message || data.detail || `Request failed (${result.status}).`;
  return typeof message === "string" ? message : JSON.stringify(message);
}

// Field-level messages from a 422, in the shapes the API can answer with.
function fieldErrors(data) {
  const out = [];
  if (!data || typeof data !== "object") return out;
  const error = data.error && typeof data.error === "object" ? data.error : null;
  if (error && error.field) out.push({ field: String(error.field), message: error.message });
  for (const item of [...(Array.isArray(data.errors) ? data.errors : []), ...(error && Array.isArray(error.errors) ? error.errors : [])]) {
    if (item && item.field) out.push({ field: String(item.field), message: item.message || item.msg });
  }
  if (Array.isArray(data.detail)) {
    for (const item of data.detail) {
      const loc = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body") : [];
      if (loc.length) out.push({ field: loc.join("."), message: item.msg });
    }
  }
  return out;
}

function showAlert(message) {
  const alert = $("alert");
  alert.textContent = message;
  alert.hidden = !message;
}

// ---------------------------------------------------------------- people (resolved / ambiguous / unknown)

function personLabel(person) {
  return `${person.displayName} <${person.email}>`;
}

function firstWord(text) {
  return String(text || "").trim().split(/\s+/)[0] || text;
}

// One row per name: a chip when resolved, a "Which Alex?" select when ambiguous,
// an email input flagged with an error when unknown. Returns the row and a reader.
function personRow(resolution, { onRemove, role }) {
  const row = h("li", { class: `person person-${resolution.status}`, "data-status": resolution.status, "data-query": resolution.query });
  let read;
  const removeButton = onRemove
    ? h("button", { type: "button", class: "btn btn-icon", "aria-label": `Remove ${resolution.query} from ${role}`, onclick: () => onRemove(row), text: "×" })
    : null;
  const removeSlot = () => removeButton;
  if (resolution.status === "resolved" && resolution.person) {
    const person = resolution.person;
    row.append(
      h("span", { class: "chip", title: person.timezone ? `Local time zone: ${person.timezone}` : "" },
        h("span", { class: "chip-name", text: person.displayName }),
        h("span", { class: "chip-email", text: person.email }),
        removeSlot()),
    );
    read = () => ({ email: person.email, name: person.displayName });
  } else if (resolution.status === "ambiguous" && resolution.candidates && resolution.candidates.length) {
    const select = h("select", { id: nextId("who"), "data-query": resolution.query },
      h("option", { value: "", text: "Choose…" }),
      resolution.candidates.map((c) => h("option", { value: c.email, text: personLabel(c) })));
    const label = `Which ${firstWord(resolution.query)}?`;
    const error = h("p", { class: "field-error", id: `${select.id}-error`, hidden: true });
    select.setAttribute("aria-describedby", error.id);
    row.append(...[h("label", { for: select.id, class: "person-question", text: label }), select, removeSlot(), error].filter(Boolean));
    read = () => {
      const chosen = resolution.candidates.find((c) => c.email === select.value);
      return chosen ? { email: chosen.email, name: chosen.displayName } : { problem: `Choose which ${firstWord(resolution.query)} you mean.` };
    };
  } else {
    const input = h("input", { id: nextId("who"), type: "email", placeholder: "name@example.com", "data-query": resolution.query, autocomplete: "off" });
    const error = h("p", { class: "field-error", id: `${input.id}-error`, text: `No one named “${resolution.query}” was found: enter an email address.` });
    input.setAttribute("aria-describedby", error.id);
    input.setAttribute("aria-invalid", "true");
    input.addEventListener("input", () => {
      const valid = EMAIL.test(input.value.trim());
      input.setAttribute("aria-invalid", valid ? "false" : "true");
      error.hidden = valid;
    });
    row.append(...[h("label", { for: input.id, class: "person-question", text: `Email for “${resolution.query}”` }), input, removeSlot(), error].filter(Boolean));
    read = () => {
      const value = input.value.trim();
      return EMAIL.test(value) ? { email: value, name: null } : { problem: `Enter an email address for “${resolution.query}”, or remove them.` };
    };
  }
  return { row, read };
}

// A list of people with remove buttons and an "add" input; read() -> {people, problems}.
function peopleField(labelText, resolutions, { name, allowEmpty = false } = {}) {
  const readers = new Map();
  const list = h("ul", { class: "people", "aria-label": labelText });
  const remove = (row) => {
    readers.delete(row);
    row.remove();
  };
  const add = (resolution) => {
    const { row, read } = personRow(resolution, { onRemove: remove, role: labelText.toLowerCase() });
    readers.set(row, read);
    list.append(row);
  };
  for (const resolution of resolutions || []) add(resolution);
  const addInput = h("input", { type: "email", id: nextId("add"), placeholder: "Add by email", autocomplete: "off" });
  const addButton = h("button", { type: "button", class: "btn btn-ghost btn-small", text: "Add" });
  const addError = h("p", { class: "field-error", id: `${addInput.id}-error`, hidden: true });
  addInput.setAttribute("aria-describedby", addError.id);
  const doAdd = () => {
    const value = addInput.value.trim();
    if (!EMAIL.test(value)) {
      addError.textContent = "Enter a full email address.";
      addError.hidden = false;
      return;
    }
    addError.hidden = true;
    add({ query: value, status: "resolved", person: { displayName: value, email: value, timezone: "" }, candidates: [] });
    addInput.value = "";
    addInput.focus();
  };
  addButton.addEventListener("click", doAdd);
  addInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      doAdd();
    }
  });
  const groupError = h("p", { class: "field-error", hidden: true });
  const addRow = h("div", { class: "add-person", hidden: true },
    h("label", { for: addInput.id, class: "visually-hidden", text: `Add to ${labelText}` }), addInput, addButton);
  const reveal = h("button", { type: "button", class: "btn btn-ghost btn-small add-toggle", "aria-label": `Add someone to ${labelText}`, text: "+ Add" });
  reveal.addEventListener("click", () => {
    addRow.hidden = false;
    reveal.hidden = true;
    addInput.focus();
  });
  const container = h("fieldset", { class: "field people-field", "data-field": name },
    h("legend", { text: labelText }),
    h("div", { class: "people-line" }, list, reveal),
    addRow,
    addError,
    groupError);
  const read = () => {
    const people = [];
    const problems = [];
    for (const [row, reader] of readers) {
      const value = reader();
      const error = row.querySelector(".field-error");
      if (value.problem) {
        problems.push(value.problem);
        if (error) {
          error.textContent = value.problem;
          error.hidden = false;
        }
      } else {
        people.push(value);
        if (error && row.dataset.status !== "unknown") error.hidden = true;
      }
    }
    if (!allowEmpty && !people.length && !problems.length) problems.push(`${labelText} needs at least one person.`);
    groupError.textContent = problems.length && !people.length && !readers.size ? problems[0] : "";
    groupError.hidden = !groupError.textContent;
    return { people, problems };
  };
  return { element: container, read };
}

// ---------------------------------------------------------------- time formatting

function zoneOf(card) {
  const user = state.users.find((u) => u.id === state.user);
  return card.timezone || (user && user.timezone) || Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function formatSlot(slot, zone) {
  const start = new Date(slot.start);
  const end = new Date(slot.end);
  const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: zone }).format(start);
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone });
  return `${day}, ${time.format(start)}–${time.format(end)}`;
}

// ---------------------------------------------------------------- cards

// One renderer per card type (that is UI); a type without one gets the generic card below.
const CARD_TYPES = {
  show_new_email_draft: { title: "Email", icon: "✉", build: emailCard, done: "Sent" },
  show_meeting_scheduler: { title: "Meeting", icon: "◷", build: meetingCard, done: "Invitation sent" },
  show_jira_ticket_draft: { title: "Jira ticket", icon: "▣", build: jiraCard, done: "Created" },
};

// "show_reminder_draft" -> "Reminder draft".
function typeTitle(type) {
  const words = String(type || "action").replace(/^show_/, "").replace(/_/g, " ").trim() || "action";
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// "dueDate" -> "Due date".
function fieldTitle(name) {
  const words = String(name).replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function readableValue(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.length ? value.map(readableValue).join(", ") : "—";
  if (typeof value === "object") {
    if (value.person && value.person.displayName) return personLabel(value.person);
    if (typeof value.query === "string") return value.query;
    if (value.start && value.end) return `${value.start} – ${value.end}`;
    return JSON.stringify(value);
  }
  return String(value);
}

// Any card type this page has no renderer for: every field, read-only, confirmed as proposed.
function genericCard(card) {
  const hidden = new Set(["type", "id", "notes"]);
  const rows = Object.entries(card)
    .filter(([name]) => !hidden.has(name))
    .map(([name, value]) => h("div", { class: "field generic-field", "data-field": name },
      h("dt", { text: fieldTitle(name) }),
      h("dd", { text: readableValue(value) })));
  const fields = [h("dl", { class: "generic-fields" }, rows)];
  return { fields, read: () => ({ problems: [], fields: {} }) };
}

function cardKind(type) {
  return CARD_TYPES[type] || { title: typeTitle(type), icon: "•", build: genericCard, done: "Done" };
}

function emailCard(card) {
  const to = peopleField("To", card.to, { name: "to" });
  const cc = peopleField("Cc", card.cc, { name: "cc", allowEmpty: true });
  const subject = h("input", { type: "text", value: card.subject || "", maxlength: 200, name: "subject" });
  const body = h("textarea", { rows: 6, name: "body", maxlength: 10000 });
  body.value = card.body || "";
  const fields = [to.element, cc.element, field("Subject", subject, { name: "subject" }), field("Message", body, { name: "body" })];
  const read = () => {
    const a = to.read();
    const b = cc.read();
    const problems = [...a.problems, ...b.problems];
    if (!subject.value.trim()) problems.push("Add a subject.");
    return {
      problems,
      fields: {
        to: a.people.map((p) => p.email),
        cc: b.people.map((p) => p.email),
        subject: subject.value.trim(),
        body: body.value,
      },
    };
  };
  return { fields, read };
}

function meetingCard(card) {
  const zone = zoneOf(card);
  const title = h("input", { type: "text", value: card.title || "", maxlength: 200, name: "title" });
  const attendees = peopleField("Attendees", card.attendees, { name: "attendees" });
  const group = nextId("slots");
  // Each attendee in another zone sees the slot at their own local time.
  const elsewhere = (card.attendees || [])
    .filter((a) => a.status === "resolved" && a.person && a.person.timezone && a.person.timezone !== zone)
    .map((a) => a.person);
  const localTimes = (slot) =>
    elsewhere.map((p) => `${firstWord(p.displayName)} ${new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: p.timezone }).format(new Date(slot.start))}`).join(" · ");
  const slots = (card.slots || []).map((slot, index) =>
    h("label", { class: "slot" },
      h("input", { type: "radio", name: group, value: String(index), checked: index === 0 }),
      h("span", { class: "slot-time", text: formatSlot(slot, zone) }),
      elsewhere.length ? h("span", { class: "slot-local muted", text: localTimes(slot) }) : null));
  const slotError = h("p", { class: "field-error", hidden: true });
  const slotField = h("fieldset", { class: "field slots", "data-field": "slot" },
    h("legend", { text: `Proposed times (${zone})` }),
    slots.length ? slots : h("p", { class: "muted", text: card.requested ? `No free time found for “${card.requested}”.` : "No free time found." }),
    slotError);
  const minutes = card.durationMinutes || 30;
  const fields = [
    field("Title", title, { name: "title" }),
    attendees.element,
    slotField,
    h("p", { class: "hint", text: `Duration: ${minutes} minutes. Times are checked against everyone's calendar.` }),
  ];
  const read = () => {
    const a = attendees.read();
    const problems = [...a.problems];
    const picked = slotField.querySelector("input[type=radio]:checked");
    const slot = picked ? card.slots[Number(picked.value)] : null;
    if (!slot) problems.push("Pick a time.");
    if (!title.value.trim()) problems.push("Add a title.");
    return {
      problems,
      fields: {
        title: title.value.trim(),
        attendees: a.people.map((p) => p.email),
        slot: slot ? { start: slot.start, end: slot.end } : null,
      },
    };
  };
  return { fields, read };
}

function jiraCard(card) {
  const projects = [...new Set([card.project, ...(state.config.jiraProjects || [])].filter(Boolean))];
  const project = h("select", { name: "project" }, projects.map((p) => h("option", { value: p, text: p, selected: p === card.project })));
  const issueType = h("select", { name: "issueType" },
    [...new Set([card.issueType || "Task", ...ISSUE_TYPES])].map((t) => h("option", { value: t, text: t, selected: t === card.issueType })));
  const summary = h("input", { type: "text", value: card.summary || "", maxlength: 255, name: "summary" });
  const description = h("textarea", { rows: 5, name: "description", maxlength: 10000 });
  description.value = card.description || "";
  const priority = h("select", { name: "priority" },
    [...new Set([...PRIORITIES, card.priority || "Medium"])].map((p) => h("option", { value: p, text: p, selected: p === (card.priority || "Medium") })));
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

// The confirm answer is the action's view: {id, action, status, result, ...}.
function resultView(kind, card, view) {
  const result = (view && view.result) || {};
  if (card.type === "show_jira_ticket_draft" && result.issueKey) {
    const key = String(result.issueKey);
    if (safeHref(result.issueUrl)) return h("span", {}, "Created ", linkOrText(result.issueUrl, key));
    return h("span", { text: `Created ${key}` });
  }
  return h("span", { text: kind.done });
}

// ``known``: the action as GET /actions/{id} just answered (a conversation read back), else it is asked.
function renderCard(card, caption, known = null) {
  const kind = cardKind(card.type);
  const titleId = nextId("card-title");
  const article = h("article", { class: `card card-${card.type}`, "data-card-type": card.type, "data-card-id": card.id, "aria-labelledby": titleId });
  const built = kind.build(card);
  const status = h("p", { class: "card-status", "aria-live": "polite" });
  const cardError = h("p", { class: "card-error", role: "alert", hidden: true });
  const confirm = h("button", { type: "submit", class: "btn btn-primary", text: card.type === "show_new_email_draft" ? "Confirm and send" : "Confirm" });
  const discard = h("button", { type: "button", class: "btn btn-secondary", text: "Discard" });
  const form = h("form", { class: "card-form", novalidate: true }, built.fields, cardError, h("div", { class: "card-actions" }, confirm, discard));
  article.append(...[
    h("header", { class: "card-head" },
      h("span", { class: "card-icon", "aria-hidden": "true", text: kind.icon }),
      h("h3", { id: titleId, class: "card-title", text: kind.title }),
      status),
    caption ? h("p", { class: "caption", text: caption }) : null,
    card.revises ? h("p", { class: "card-revision", text: "Revised by chat: replaces the card above." }) : null,
    Array.isArray(card.notes) && card.notes.length
      ? h("ul", { class: "notes" }, card.notes.map((note) => h("li", { text: String(note) })))
      : null,
    form,
  ].filter(Boolean));

  const lock = (label, cls) => {
    article.classList.add(cls);
    article.dataset.state = cls;
    for (const control of form.querySelectorAll("input, select, textarea, button")) control.disabled = true;
    status.replaceChildren(label);
  };
  const fail = (message) => {
    cardError.textContent = message;
    cardError.hidden = false;
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(article);
    const { problems, fields } = built.read();
    if (problems.length) {
      fail(problems.join(" "));
      return;
    }
    confirm.disabled = discard.disabled = true;
    status.textContent = "Working…";
    const result = await api(`/actions/${encodeURIComponent(card.id)}/confirm`, { method: "POST", body: fields });
    if (result.ok) {
      lock(resultView(kind, card, result.data), "is-done");
      refreshOutbox();
      return;
    }
    status.textContent = "";
    if (!settleFromConflict(result) && !settleGone(result)) {
      confirm.disabled = discard.disabled = false;
      showApiError(article, result, fail);
    }
  });
  discard.addEventListener("click", async () => {
    clearErrors(article);
    confirm.disabled = discard.disabled = true;
    const result = await api(`/actions/${encodeURIComponent(card.id)}/discard`, { method: "POST" });
    if (result.ok) {
      lock("Discarded", "is-discarded");
      return;
    }
    if (!settleFromConflict(result) && !settleGone(result)) {
      confirm.disabled = discard.disabled = false;
      showApiError(article, result, fail);
    }
  });
  // The draft is no longer there (expired, or a local server that started again without its data): say so,
  // and offer nothing to confirm.
  function settleGone(result) {
    if (result.status !== 404) return false;
    lock("No longer available", "is-gone");
    fail(`${errorMessage(result)} This draft is no longer available: nothing was sent, booked or created. Ask again to get a new one.`);
    return true;
  }
  // A card revised by chat is replaced: drawn as such, pointing at its successor, never confirmable.
  function showReplaced(byId) {
    if (article.dataset.state === "is-superseded") return;
    lock("Replaced", "is-superseded");
    const successor = byId ? document.querySelector(`article.card[data-card-id="${CSS.escape(byId)}"]`) : null;
    const link = h("a", { href: "#", class: "card-successor", text: "Replaced by the revised card below." });
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const target = successor || document.querySelector(`article.card[data-card-id="${CSS.escape(byId || "")}"]`);
      if (target) target.scrollIntoView({ block: "center" });
    });
    form.before(link);
  }
  article.addEventListener("card:replaced", (event) => showReplaced(event.detail && event.detail.by));
  // A settled action is drawn in its state (with its result), never as a form to confirm again.
  function showSettled(view) {
    if (view.status === "done") lock(resultView(kind, card, view), "is-done");
    else if (view.status === "discarded") lock("Discarded", "is-discarded");
    else if (view.status === "superseded") showReplaced(view.supersededBy);
    else return false;
    return true;
  }
  // A 409 carries the action as it is now (done elsewhere, discarded, in progress): show that.
  function settleFromConflict(result) {
    const view = result.status === 409 && result.data ? result.data.action : null;
    if (!view || !showSettled(view)) return false;
    fail(errorMessage(result));
    return true;
  }
  // /chat's answer can be older than the action (a replayed answer, a card confirmed in another
  // tab): the action's own state, from GET /actions/{id}, decides what the card offers.
  async function showCurrentState() {
    confirm.disabled = discard.disabled = true;
    article.dataset.state = "is-checking";
    const result = known ? { ok: true, status: 200, data: known } : await api(`/actions/${encodeURIComponent(card.id)}`);
    const view = result.ok && result.data ? result.data : null;
    if (view && showSettled(view)) return;
    if (view && view.status === "executing") {
      lock("In progress", "is-executing");
      return;
    }
    if (settleGone(result)) return;
    // Proposed, failed (a confirm retries it), or the state could not be read: the confirm
    // endpoint still refuses anything it must not do.
    article.dataset.state = view && view.status === "failed" ? "is-failed" : "is-proposed";
    if (view && view.status === "failed") fail(view.error ? `Not done yet: ${view.error}` : "Not done yet: confirm to try again.");
    confirm.disabled = discard.disabled = false;
  }
  showCurrentState();
  if (card.revises) {
    const earlier = document.querySelector(`article.card[data-card-id="${CSS.escape(card.revises)}"]`);
    if (earlier) earlier.dispatchEvent(new CustomEvent("card:replaced", { detail: { by: card.id } }));
  }
  return article;
}

function showApiError(article, result, fail) {
  const errors = result.status === 422 || result.status === 400 ? fieldErrors(result.data) : [];
  let placed = false;
  for (const { field: name, message } of errors) {
    const match = /^(\w+)(?:\[(\d+)\])?/.exec(name) || [];
    const container = match[1] ? article.querySelector(`[data-field="${CSS.escape(match[1])}"]`) : null;
    if (!container) continue;
    const row = match[2] !== undefined ? container.querySelectorAll(".person")[Number(match[2])] : null;
    const error = (row && row.querySelector(".field-error")) || container.querySelector(":scope > .field-error");
    if (error) {
      error.textContent = message;
      error.hidden = false;
      placed = true;
    }
  }
  fail(placed ? "Please fix the highlighted fields." : errorMessage(result));
}

// ---------------------------------------------------------------- conversation

function addUserMessage(text) {
  const item = h("li", { class: "msg msg-user" }, h("p", { class: "bubble", text }));
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
}

function actionsOf(data) {
  if (Array.isArray(data.clientActions) && data.clientActions.length) return data.clientActions;
  return data.clientAction ? [data.clientAction] : [];
}

// A card whose data the page cannot draw (an unknown time zone, a malformed time) says so in its place,
// so the other cards of the turn stay usable and the chat goes on.
function renderCardOrNotice(action, caption, view = null) {
  try {
    return renderCard(action, caption, view);
  } catch (error) {
    const kind = CARD_TYPES[action && action.type];
    const titleId = nextId("card-title");
    return h("article", { class: "card card-broken", "data-card-type": action && action.type, "data-card-id": action && action.id, "aria-labelledby": titleId },
      h("h3", { id: titleId, class: "card-title", text: kind ? kind.title : "Action" }),
      caption ? h("p", { class: "caption", text: caption }) : null,
      h("p", { class: "card-error", role: "alert", text: `This card could not be shown (${error && error.message ? error.message : error}). Nothing was sent: ask again to get a new one.` }));
  }
}

function addAssistantTurn(data) {
  const actions = actionsOf(data);
  const captions = Array.isArray(data.clientActionMessages) ? data.clientActionMessages : [];
  const turn = h("li", { class: "msg msg-assistant", "data-testid": "assistant-turn" },
    data.message ? h("p", { class: "bubble", text: data.message }) : null,
    actions.length ? h("div", { class: "cards" }, actions.map((action, i) => renderCardOrNotice(action, captions[i]))) : null);
  $("messages").append(turn);
  turn.scrollIntoView({ block: "start" });
}

function addAssistantError(message) {
  const item = h("li", { class: "msg msg-assistant msg-error" }, h("p", { class: "bubble", text: message }));
  $("messages").append(item);
}

function newIdempotencyKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// A turn runs past its request (Prefer: respond-async): POST /chat answers 202 with the turn's id, and the
// page follows GET /turns/{id} until it ends, showing each card as its draft is made. The turn's id is kept
// in sessionStorage, so a reload (or a dropped connection) follows the same turn instead of losing it.
const TURN_KEY = "multitool.turn";
const POLL_MS = 700;
const POLL_MAX_MS = 5000;

function rememberTurn(turn) {
  if (turn) sessionStorage.setItem(TURN_KEY, JSON.stringify(turn));
  else sessionStorage.removeItem(TURN_KEY);
}

function rememberedTurn() {
  try {
    const turn = JSON.parse(sessionStorage.getItem(TURN_KEY) || "null");
    return turn && typeof turn.turnId === "string" ? turn : null;
  } catch {
    return null;
  }
}

// Who the page speaks for: the local user, or the signed-in person's email (never a token).
function currentUser() {
  if (state.config.auth === "local") return state.user;
  const user = state.signIn && state.signIn.user;
  return user ? user.email || user.name || "signed-in" : state.token ? "token" : null;
}

function setBusy(busy) {
  state.busy = busy;
  $("send").disabled = busy;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One assistant turn while it runs: a status line, then each card as it comes; once done, the reply on top.
// It counts as an "assistant-turn" only when it has ended.
function turnView() {
  const status = h("p", { class: "bubble turn-status", role: "status", text: "Working on it…" });
  const cards = h("div", { class: "cards" });
  const item = h("li", { class: "msg msg-assistant msg-running", "data-testid": "assistant-progress", "data-status": "running", "aria-busy": "true" }, status, cards);
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
  const shown = new Set();
  let streamed = null;
  const addCard = (card, caption) => {
    if (!card || (card.id && shown.has(card.id))) return;
    if (card.id) shown.add(card.id);
    cards.append(renderCardOrNotice(card, caption));
    status.textContent = `Working on it… ${shown.size} draft${shown.size === 1 ? "" : "s"} ready to review.`;
  };
  const end = (kind) => {
    item.dataset.status = kind;
    item.dataset.testid = "assistant-turn";
    item.removeAttribute("aria-busy");
    item.classList.remove("msg-running");
  };
  return {
    item,
    apply(event) {
      if (event.type === "card") addCard(event.card, event.caption);
      else if (event.type === "text") {
        streamed = streamed || item.insertBefore(h("p", { class: "bubble streamed" }), cards);
        streamed.textContent += event.text;
      } else if (event.type === "done") {
        const data = event.response || {};
        const captions = Array.isArray(data.clientActionMessages) ? data.clientActionMessages : [];
        actionsOf(data).forEach((action, i) => addCard(action, captions[i]));
        if (streamed) streamed.remove();
        status.remove();
        if (data.message) item.insertBefore(h("p", { class: "bubble", text: data.message }), cards);
        if (!cards.childElementCount) cards.remove();
        end("done");
      } else if (event.type === "failed") {
        const message = (event.error && event.error.message) || "The turn failed.";
        status.textContent = `That did not work: ${message}`;
        item.classList.add("msg-error");
        showAlert(message);
        end("failed");
      }
    },
    lost(message) {
      status.textContent = message;
      item.classList.add("msg-error");
      end("failed");
    },
  };
}

// Follows a turn to its end; network failures and 5xx answers are retried (slower each time).
async function followTurn(turnId) {
  const view = turnView();
  let next = 0;
  let delay = POLL_MS;
  for (;;) {
    const result = await api(`/turns/${encodeURIComponent(turnId)}?after=${next}`);
    if (result.ok && result.data) {
      for (const event of result.data.events || []) view.apply(event);
      next = typeof result.data.next === "number" ? result.data.next : next;
      if (result.data.sessionId) setSession(result.data.sessionId);
      if (result.data.status !== "running") break;
      delay = POLL_MS;
    } else if (result.status === 0 || result.status >= 500) {
      delay = Math.min(delay * 2, POLL_MAX_MS);
    } else {
      view.lost(`The turn cannot be followed any more: ${errorMessage(result)}`);
      break;
    }
    await wait(delay);
  }
  rememberTurn(null);
  return view.item;
}

async function send(text) {
  if (state.busy || !text.trim()) return;
  setBusy(true);
  showAlert("");
  const input = $("composer-input");
  addUserMessage(text);
  input.value = "";
  const typing = h("li", { class: "msg msg-assistant typing", "aria-label": "Assistant is working" }, h("p", { class: "bubble", text: "…" }));
  $("messages").append(typing);
  const body = { message: text };
  if (state.sessionId) body.sessionId = state.sessionId;
  if (state.config.auth !== "local") body.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // One key per message: a retry after a dropped connection answers the first start (the same turn)
  // instead of running the model (and drafting) twice.
  const headers = { "Idempotency-Key": newIdempotencyKey(), Prefer: "respond-async" };
  try {
    let result = await api("/chat", { method: "POST", body, headers });
    if (result.status === 0) result = await api("/chat", { method: "POST", body, headers });
    typing.remove();
    if (result.status === 202 && result.data && result.data.turnId) {
      setSession(result.data.sessionId || state.sessionId);
      rememberTurn({ turnId: result.data.turnId, sessionId: state.sessionId, message: text, who: currentUser() });
      await followTurn(result.data.turnId);
    } else if (result.ok && result.data) {
      if (result.data.sessionId) setSession(result.data.sessionId);
      addAssistantTurn(result.data);
    } else {
      const message = errorMessage(result);
      showAlert(message);
      addAssistantError(`That did not work: ${message}`);
      input.value = input.value || text;
    }
  } catch (error) {
    // Whatever went wrong is shown, and the composer stays usable.
    typing.remove();
    const message = `The answer could not be shown (${error && error.message ? error.message : error}).`;
    showAlert(message);
    addAssistantError(message);
    input.value = input.value || text;
  } finally {
    setBusy(false);
    input.focus();
  }
}

// The session this tab talks in, kept in sessionStorage with who it belongs to: after a reload the page
// reads its conversation back (GET /sessions/{id}) and draws every card again in its current state.
const SESSION_KEY = "multitool.session";

function setSession(sessionId) {
  state.sessionId = sessionId || null;
  if (state.sessionId) sessionStorage.setItem(SESSION_KEY, JSON.stringify({ sessionId: state.sessionId, who: currentUser() }));
  else sessionStorage.removeItem(SESSION_KEY);
}

function rememberedSession() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    return saved && typeof saved.sessionId === "string" ? saved : null;
  } catch {
    return null;
  }
}

// A card whose draft the API no longer has (expired, or a local server that started again without its
// data): it says so, and offers nothing to confirm.
function goneCard(entry, result) {
  const titleId = nextId("card-title");
  const why = result.status === 404
    ? "This draft is no longer available: it expired, or the server no longer has it. Nothing was sent, booked or created; ask again to get a new one."
    : `This card could not be read again: ${errorMessage(result)}`;
  return h("article", { class: "card is-gone", "data-card-id": entry.id, "data-state": "is-gone", "aria-labelledby": titleId },
    h("header", { class: "card-head" },
      h("h3", { id: titleId, class: "card-title", text: "Draft" }),
      h("p", { class: "card-status", text: result.status === 404 ? "No longer available" : "Not shown" })),
    entry.caption ? h("p", { class: "caption", text: entry.caption }) : null,
    h("p", { class: "card-error", role: "alert", text: why }));
}

// One exchange read back: the message, the reply, and each card as GET /actions/{id} has it now.
async function addRestoredExchange(exchange) {
  addUserMessage(String(exchange.message || ""));
  const turn = h("li", { class: "msg msg-assistant", "data-testid": "assistant-turn", "data-restored": "true" },
    exchange.reply ? h("p", { class: "bubble", text: exchange.reply }) : null);
  $("messages").append(turn);
  const entries = Array.isArray(exchange.cards) ? exchange.cards : [];
  if (!entries.length) return;
  const views = await Promise.all(entries.map((entry) => api(`/actions/${encodeURIComponent(entry.id)}`)));
  const cards = h("div", { class: "cards" });
  turn.append(cards);
  entries.forEach((entry, i) => {
    const result = views[i];
    const view = result.ok && result.data ? result.data : null;
    cards.append(view && view.card ? renderCardOrNotice(view.card, entry.caption, view) : goneCard(entry, result));
  });
}

// After a reload (or a sign-in coming back): the conversation of this tab's session, for the same person.
async function restoreConversation() {
  const saved = rememberedSession();
  const who = currentUser();
  if (!saved || !who) return;
  if (saved.who && saved.who !== who) {
    setSession(null); // another person signed in since: not theirs to see
    return;
  }
  state.sessionId = saved.sessionId;
  const result = await api(`/sessions/${encodeURIComponent(saved.sessionId)}`);
  if (!result.ok) {
    if (result.status === 404 && rememberedTurn()) {
      // The turn this tab started may not have reached the session yet: following it will.
    } else if (result.status === 404) {
      setSession(null);
      showAlert("The earlier conversation is no longer available (it expired, or the server no longer has it): this is a new one.");
    } else {
      showAlert(`The earlier conversation could not be read again: ${errorMessage(result)}`);
    }
    return;
  }
  let exchanges = Array.isArray(result.data && result.data.exchanges) ? result.data.exchanges : [];
  // The turn this tab is still following is drawn by following it (resumeTurn), not twice.
  const running = rememberedTurn();
  const last = exchanges[exchanges.length - 1];
  if (running && last && last.message === running.message) exchanges = exchanges.slice(0, -1);
  for (const exchange of exchanges) await addRestoredExchange(exchange);
  const lastTurn = $("messages").lastElementChild;
  if (lastTurn) lastTurn.scrollIntoView({ block: "end" });
}

// After a reload: the turn this tab started is followed again, from its first event.
async function resumeTurn() {
  const turn = rememberedTurn();
  if (!turn || state.busy) return;
  const who = currentUser();
  if (!who) return; // not signed in (yet: a silent sign-in may still be on its way back)
  if (turn.who && turn.who !== who) {
    rememberTurn(null); // another person signed in since: not theirs to follow
    return;
  }
  setBusy(true);
  try {
    setSession(turn.sessionId || null);
    if (turn.message) addUserMessage(turn.message);
    await followTurn(turn.turnId);
  } finally {
    setBusy(false);
  }
}

// ---------------------------------------------------------------- sandbox outbox

async function refreshOutbox() {
  const panel = $("outbox");
  if (panel.hidden || !currentUser()) return; // signed out: nobody's outbox to show
  const result = await api("/sandbox/outbox");
  if (!result.ok) {
    showAlert(`Sandbox outbox: ${errorMessage(result)}`);
    return;
  }
  const mail = (result.data && result.data.emails) || [];
  const issues = (result.data && result.data.issues) || [];
  $("outbox-mail").replaceChildren(
    ...(mail.length
      ? mail.map((m) => h("li", { class: "outbox-item", "data-testid": "outbox-mail" },
          m.invitation ? h("span", { class: "badge badge-invite", text: "INVITATION" }) : null,
          h("strong", { text: m.subject || "(no subject)" }),
          h("span", { class: "muted", text: ` to ${(m.to || []).join(", ")}` }),
          m.body ? h("p", { class: "outbox-body", text: m.body }) : null))
      : [h("li", { class: "muted", text: "No mail sent yet." })]),
  );
  $("outbox-issues").replaceChildren(
    ...(issues.length
      ? issues.map((i) => h("li", { class: "outbox-item", "data-testid": "outbox-issue" },
          linkOrText(i.url, String(i.key || "")),
          h("span", { text: ` ${i.summary || ""}` })))
      : [h("li", { class: "muted", text: "No issues created yet." })]),
  );
}

// ---------------------------------------------------------------- sign-in and start-up

async function loadConfig() {
  if (window.MULTITOOL_CONFIG) return { ...DEFAULT_CONFIG, ...window.MULTITOOL_CONFIG };
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (response.ok) return { ...DEFAULT_CONFIG, ...(await response.json()) };
  } catch {
    // No config file: local defaults.
  }
  return DEFAULT_CONFIG;
}

async function setUpLocalSignIn() {
  const result = await api("/local/users");
  if (!result.ok) {
    showAlert(`Local sign-in is unavailable: ${errorMessage(result)}`);
    return;
  }
  state.users = result.data.users || [];
  const saved = localStorage.getItem(USER_KEY);
  state.user = state.users.some((u) => u.id === saved) ? saved : result.data.defaultUser;
  const picker = $("user-picker");
  picker.replaceChildren(...state.users.map((u) => h("option", { value: u.id, text: `${u.displayName} (${u.timezone})`, selected: u.id === state.user })));
  picker.addEventListener("change", () => {
    state.user = picker.value;
    localStorage.setItem(USER_KEY, state.user);
    newChat();
    refreshOutbox(); // the outbox is per user: show the new user's mail and issues
  });
  $("signin-local").hidden = false;
  $("mode-badge").hidden = false;
  $("outbox").hidden = false;
  refreshOutbox();
}

function setUpTokenSignIn() {
  state.token = sessionStorage.getItem(TOKEN_KEY);
  const form = $("signin-token");
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.token = $("token-input").value.trim() || null;
    if (state.token) sessionStorage.setItem(TOKEN_KEY, state.token);
    else sessionStorage.removeItem(TOKEN_KEY);
    $("token-input").value = "";
  });
}

// Managed sign-in (Cognito, or the local OIDC stand-in): the page shows who is signed in.
async function setUpOidcSignIn() {
  const showAccount = (signIn) => {
    const user = signIn.user;
    $("signed-in-name").textContent = user ? user.name : "";
    if (user && user.email && user.email !== user.name) $("signed-in-name").title = user.email;
    $("signed-in-as").hidden = !user;
    $("sign-out").hidden = !user;
    $("sign-in").hidden = Boolean(user);
    // The local OIDC stand-in has a sandbox too: its outbox is the signed-in person's.
    if (state.config.sandbox) {
      $("mode-badge").hidden = false;
      $("outbox").hidden = !user;
      refreshOutbox();
    }
  };
  state.signIn = new OidcSignIn(state.config, { onChange: showAccount });
  $("signin-oidc").hidden = false;
  $("sign-in").addEventListener("click", () => state.signIn.signIn());
  $("sign-out").addEventListener("click", () => {
    rememberTurn(null);
    setSession(null);
    state.signIn.signOut();
  });
  try {
    await state.signIn.start();
  } catch (error) {
    showAlert(error.message);
  }
  showAccount(state.signIn);
}

// A new chat omits sessionId; the first answer carries the session's id.
function newChat() {
  setSession(null);
  rememberTurn(null);
  $("messages").replaceChildren();
  showAlert("");
}

async function main() {
  state.config = await loadConfig();
  state.sessionId = null;
  const input = $("composer-input");
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    send(input.value);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(input.value);
    }
  });
  for (const button of document.querySelectorAll(".example")) {
    button.addEventListener("click", () => {
      input.value = button.textContent.trim();
      input.focus();
    });
  }
  $("new-chat").addEventListener("click", newChat);
  $("outbox-refresh").addEventListener("click", refreshOutbox);
  const toggle = $("drawer-toggle");
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("drawer-closed", !open);
    if (open) input.focus();
  });
  if (state.config.auth === "local") await setUpLocalSignIn();
  else if (state.config.auth === "oidc") await setUpOidcSignIn();
  else setUpTokenSignIn();
  await restoreConversation();
  document.body.dataset.ready = "true";
  resumeTurn();
}

main();
