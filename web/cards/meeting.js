// The meeting card: title, attendees and a choice of free times, each shown in the attendees' own zones too.
import { field, h, nextId } from "../dom.js";
import { maxLength } from "../limits.js";
import { firstWord, peopleField, sentPeople } from "../people.js";
import { dayIn, userZone } from "../today.js";

const TYPE = "show_meeting_scheduler";

function zoneOf(card) {
  return card.timezone || userZone();
}

// "06:00", or "Wed 06:00" when it is another day there than in the organizer's zone.
function localStart(slot, zone, home) {
  const start = new Date(slot.start);
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone }).format(start);
  if (dayIn(start, zone) === dayIn(start, home)) return time;
  return `${new Intl.DateTimeFormat(undefined, { weekday: "short", timeZone: zone }).format(start)} ${time}`;
}

// What a slot means for the organizer and the people on the card now (a chosen candidate
// included): the backend's checks of their working hours and calendars.
function slotWarnings(checks, emails) {
  const on = new Set(emails.map((e) => e.toLowerCase()));
  const words = [];
  for (const check of checks || []) {
    if (check.email === null || check.email === undefined) {
      if (check.outsideHours) words.push("Outside your working hours.");
      continue;
    }
    if (!on.has(check.email.toLowerCase())) continue;
    const name = firstWord(check.name);
    if (check.busy) words.push(`${name} is busy then.`);
    if (check.outsideHours) words.push(`Outside ${name}'s working hours.`); // their local time is beside it
  }
  return words;
}

function formatSlot(slot, zone) {
  const start = new Date(slot.start);
  const end = new Date(slot.end);
  const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: zone }).format(start);
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone });
  return `${day}, ${time.format(start)}–${time.format(end)}`;
}

// A repeating meeting from a slot: its rule in words, and each of its first meetings someone is booked at.
function seriesLine(series, zone) {
  if (!series) return null;
  const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: zone });
  const clashes = (series.occurrences || []).slice(1).filter((o) => o.busy && o.busy.length)
    .map((o) => `${day.format(new Date(o.start))}: ${o.busy.map(firstWord).join(", ")} busy`);
  const checked = (series.occurrences || []).length;
  const said = clashes.length ? ` · ${clashes.join(" · ")}` : checked ? ` · first ${checked} checked, all free` : "";
  return h("span", { class: "slot-series", text: `Repeats: ${series.words}${said}` });
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
    people.map((p) => `${firstWord(p.displayName)} ${localStart(slot, p.timezone, zone)}`).join(" · ");
  const locals = [];
  const warnings = [];
  const showLocalTimes = () => {
    const people = elsewhere();
    const emails = attendees.emails();
    (card.slots || []).forEach((slot, index) => {
      locals[index].textContent = localTimes(slot, people);
      locals[index].hidden = !people.length;
      const words = slotWarnings((card.slotChecks || [])[index], emails);
      warnings[index].replaceChildren(...words.map((w) => h("span", { text: w })));
      warnings[index].hidden = !words.length;
    });
  };
  const attendees = peopleField("Attendees", card.attendees, { name: "attendees", onChange: showLocalTimes });
  const group = nextId("slots");
  const slots = (card.slots || []).map((slot, index) => {
    locals[index] = h("span", { class: "slot-local muted" });
    warnings[index] = h("span", { class: "slot-warning", hidden: true });
    return h("label", { class: "slot" },
      h("input", { type: "radio", name: group, value: String(index), checked: index === 0 }),
      h("span", { class: "slot-time", text: formatSlot(slot, zone) }),
      locals[index],
      warnings[index],
      seriesLine((card.series || [])[index], zone));
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
    const picked = /** @type {HTMLInputElement | null} */ (slotField.querySelector("input[type=radio]:checked"));
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

// The card as booked: the confirmed title, attendees and the one slot (another client may have edited them).
function meetingSent(card, edits) {
  const index = (card.slots || []).findIndex((s) => Date.parse(s.start) === Date.parse(edits.start) && Date.parse(s.end) === Date.parse(edits.end));
  return {
    ...card,
    title: edits.title,
    attendees: sentPeople(edits.attendees, card.attendees),
    slots: [{ start: edits.start, end: edits.end }],
    slotChecks: index >= 0 ? [(card.slotChecks || [])[index]] : [],
    series: index >= 0 && card.series ? [card.series[index]] : [],
  };
}

/** @type {import("./kinds.js").CardKind} */
export const meeting = { type: TYPE, title: "Meeting", icon: "◷", build: meetingCard, sent: meetingSent, done: "Invitation sent" };
