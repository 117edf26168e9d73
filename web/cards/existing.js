// The cards that act on a meeting that already exists: move it, cancel it, answer its invitation. Each
// names the meeting with the reference field (reference.js): the one found, a choice, or none; its
// confirm sends the chosen meeting's id. Limits and choices are the card models' (limits.js).
import { field, h, nextId } from "../dom.js";
import { choices, maxLength } from "../limits.js";
import { chosenItem, referenceField } from "../reference.js";
import { userZone } from "../today.js";

const MOVE = "show_meeting_move";
const CANCEL = "show_meeting_cancel";
const ANSWER = "show_invitation_answer";

function formatSlot(slot, zone) {
  const start = new Date(slot.start);
  const end = new Date(slot.end);
  const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: zone }).format(start);
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone });
  return `${day}, ${time.format(start)}–${time.format(end)}`;
}

// Whose calendar or hours a new time is hard on (the backend's checks, the meeting's own time left out).
function warningsOf(checks) {
  const words = [];
  for (const check of checks || []) {
    if (check.email === null || check.email === undefined) {
      if (check.outsideHours) words.push("Outside your working hours.");
      continue;
    }
    if (check.busy) words.push(`${check.name} is busy then.`);
    if (check.outsideHours) words.push(`Outside ${check.name}'s working hours.`);
  }
  return words;
}

function messageField(type, card, label) {
  const message = h("textarea", { rows: 2, name: "message", maxlength: maxLength(type, "message") });
  message.value = card.message || "";
  return { message, element: field(label, message, { name: "message", hint: "Optional." }) };
}

// A meeting of a series: which meetings the move or cancellation is for. Preset as the user said it
// (or the one meeting when they named its day); else nothing is picked and the card asks.
function scopeField(card) {
  const item = card.meeting && card.meeting.item;
  if (!item || !item.fields || !item.fields.recurring) return null;
  const zone = card.timezone || userZone();
  const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: zone })
    .format(new Date(item.fields.start));
  const group = nextId("scope");
  const options = [["occurrence", `Only ${day}`], ["series", "Every meeting of the series"]].map(([value, text]) =>
    h("label", { class: "slot" },
      h("input", { type: "radio", name: group, value, checked: card.scope === value }),
      h("span", { text })));
  const element = h("fieldset", { class: "field scope", "data-field": "scope" },
    h("legend", { text: "This meeting or the series?" }), options, h("p", { class: "field-error", hidden: true }));
  const read = () => {
    const picked = /** @type {HTMLInputElement | null} */ (element.querySelector("input[type=radio]:checked"));
    return picked ? picked.value : null;
  };
  return { element, read };
}

function withScope(scope, read) {
  if (!scope) return read;
  return () => {
    const out = read();
    const value = scope.read();
    if (!value) out.problems.push("Choose this meeting or every meeting of the series.");
    return { problems: out.problems, fields: { ...out.fields, scope: value } };
  };
}

// The card as confirmed: the scope the confirm sent, in words.
function scoped(card, edits) {
  if (!edits.scope) return card;
  const words = edits.scope === "series" ? "Every meeting of the series" : card.scopeWords;
  return { ...card, scope: edits.scope, scopeWords: words || null };
}

function moveCard(card) {
  const zone = card.timezone || userZone();
  const reference = referenceField("Meeting", card.meeting, { noun: "meeting" });
  const now = card.before
    ? h("p", { class: "reference-when", "data-field": "before", text: `Now: ${formatSlot(card.before, zone)}` })
    : null;
  const group = nextId("slots");
  const slots = (card.slots || []).map((slot, index) => {
    const words = warningsOf((card.slotChecks || [])[index]);
    return h("label", { class: "slot" },
      h("input", { type: "radio", name: group, value: String(index), checked: index === 0 }),
      h("span", { class: "slot-time", text: formatSlot(slot, zone) }),
      h("span", { class: "slot-warning", hidden: !words.length }, words.map((w) => h("span", { text: w }))));
  });
  const slotField = h("fieldset", { class: "field slots", "data-field": "slot" },
    h("legend", { text: `${card.proposes ? "Time to propose" : "New time"} (${zone})` }),
    slots.length ? slots : h("p", { class: "muted", text: "No new time to offer." }),
    h("p", { class: "field-error", hidden: true }));
  const { message, element } = messageField(MOVE, card, card.proposes ? "Message to the organizer" : "Message to the attendees");
  const scope = scopeField(card);
  const fields = /** @type {HTMLElement[]} */ ([reference.element, now, scope && scope.element, slotField, element].filter((node) => node));
  const read = () => {
    const ref = reference.read();
    const problems = [...ref.problems];
    const picked = /** @type {HTMLInputElement | null} */ (slotField.querySelector("input[type=radio]:checked"));
    const slot = picked ? card.slots[Number(picked.value)] : null;
    if (!slot && !ref.problems.length) problems.push("Pick a new time.");
    return {
      problems,
      fields: { meeting: ref.itemId, slot: slot ? { start: slot.start, end: slot.end } : null, message: message.value.trim() },
    };
  };
  return { fields, read: withScope(scope, read) };
}

// The card as done: the meeting and the one time it moved to (the confirmed content).
function moveSent(card, edits) {
  const meeting = edits.meeting && edits.meeting.id
    ? { ...card.meeting, status: "found", item: chosenItem(card.meeting, edits.meeting.id) || card.meeting.item, candidates: [] }
    : card.meeting;
  return scoped({ ...card, meeting, slots: [{ start: edits.start, end: edits.end }], slotChecks: [], message: edits.message || "" }, edits);
}

function moveResult(view) {
  const result = (view && view.result) || {};
  if (result.proposedStart) return h("span", { text: "Proposed to the organizer" });
  if (!result.start) return null;
  return h("span", { text: `Moved to ${formatSlot({ start: result.start, end: result.end }, userZone())}` });
}

function cancelCard(card) {
  const reference = referenceField("Meeting", card.meeting, { noun: "meeting" });
  const { message, element } = messageField(CANCEL, card, card.declines ? "Message to the organizer" : "Message to the attendees");
  const scope = scopeField(card);
  const read = () => {
    const ref = reference.read();
    return { problems: [...ref.problems], fields: { meeting: ref.itemId, message: message.value.trim() } };
  };
  const fields = /** @type {HTMLElement[]} */ ([reference.element, scope && scope.element, element].filter((node) => node));
  return { fields, read: withScope(scope, read) };
}

function answerCard(card) {
  const reference = referenceField("Invitation", card.meeting, { noun: "meeting" });
  const words = { accepted: "Accept", tentative: "Tentatively accept", declined: "Decline" };
  const current = card.response || "accepted";
  const response = h("select", { name: "response" },
    choices(ANSWER, "response", current).map((v) => h("option", { value: v, text: words[v] || v, selected: v === current })));
  const { message, element } = messageField(ANSWER, card, "Message to the organizer");
  const read = () => {
    const ref = reference.read();
    return { problems: [...ref.problems], fields: { meeting: ref.itemId, response: response.value, message: message.value.trim() } };
  };
  return { fields: [reference.element, field("Answer", response, { name: "response" }), element], read };
}

function settled(card, edits) {
  if (!edits.meeting || !edits.meeting.id) return card;
  const item = chosenItem(card.meeting, edits.meeting.id) || card.meeting.item;
  return { ...card, meeting: { ...card.meeting, status: "found", item, candidates: [] } };
}

/** @type {import("./kinds.js").CardKind} */
export const meetingMove = {
  type: MOVE, title: "Move meeting", icon: "⇄", build: moveCard, sent: moveSent, done: "Moved", result: moveResult, confirmLabel: "Move",
};
/** @type {import("./kinds.js").CardKind} */
export const meetingCancel = {
  type: CANCEL, title: "Cancel meeting", icon: "⊘", build: cancelCard, confirmLabel: "Cancel meeting", done: "Cancelled",
  sent: (card, edits) => scoped({ ...settled(card, edits), message: edits.message || "" }, edits),
};
/** @type {import("./kinds.js").CardKind} */
export const invitationAnswer = {
  type: ANSWER, title: "Answer invitation", icon: "✉", build: answerCard, confirmLabel: "Send answer", done: "Answered",
  sent: (card, edits) => ({ ...settled(card, edits), response: edits.response, message: edits.message || "" }),
};
