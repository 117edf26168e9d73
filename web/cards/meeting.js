// The meeting card: title, attendees and a choice of free times, each shown in the attendees' own zones too.
import { field, h, nextId } from "../dom.js";
import { maxLength } from "../limits.js";
import { firstWord, peopleField } from "../people.js";
import { state } from "../state.js";

const TYPE = "show_meeting_scheduler";

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

function meetingCard(card) {
  const zone = zoneOf(card);
  const title = h("input", { type: "text", value: card.title || "", maxlength: maxLength(TYPE, "title"), name: "title" });
  // Each attendee on the card now, in another zone, sees the slot at their own local time: the
  // directory's people (and the candidates of an ambiguous name) by address; an address typed in
  // has no zone of its own to show.
  const known = new Map();
  for (const a of card.attendees || []) {
    for (const p of [a.person, ...(a.candidates || [])]) if (p && p.email) known.set(p.email.toLowerCase(), p);
  }
  const elsewhere = () =>
    attendees.emails()
      .map((email) => known.get(email.toLowerCase()))
      .filter((p, i, all) => p && p.timezone && p.timezone !== zone && all.indexOf(p) === i);
  const localTimes = (slot, people) =>
    people.map((p) => `${firstWord(p.displayName)} ${new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: p.timezone }).format(new Date(slot.start))}`).join(" · ");
  const locals = [];
  const showLocalTimes = () => {
    const people = elsewhere();
    (card.slots || []).forEach((slot, index) => {
      locals[index].textContent = localTimes(slot, people);
      locals[index].hidden = !people.length;
    });
  };
  const attendees = peopleField("Attendees", card.attendees, { name: "attendees", onChange: showLocalTimes });
  const group = nextId("slots");
  const slots = (card.slots || []).map((slot, index) => {
    locals[index] = h("span", { class: "slot-local muted" });
    return h("label", { class: "slot" },
      h("input", { type: "radio", name: group, value: String(index), checked: index === 0 }),
      h("span", { class: "slot-time", text: formatSlot(slot, zone) }),
      locals[index]);
  });
  showLocalTimes();
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

export const meeting = { type: TYPE, title: "Meeting", icon: "◷", build: meetingCard, done: "Invitation sent" };
