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

export const meeting = { type: TYPE, title: "Meeting", icon: "◷", build: meetingCard, done: "Invitation sent" };
