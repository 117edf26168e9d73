// The agenda card: the user's own meetings in a day or window, read only (no Confirm, no Discard).
import { h } from "../dom.js";
import { userZone } from "../today.js";

const TYPE = "show_agenda";

const ANSWERS = {
  organizer: "You organize it",
  accepted: "You accepted",
  tentative: "You said maybe",
  declined: "You declined",
  none: "You have not answered",
};

function agendaCard(card) {
  const zone = card.timezone || userZone();
  const day = new Intl.DateTimeFormat(undefined, { weekday: "long", day: "numeric", month: "long", timeZone: zone });
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone });
  const meetings = card.meetings || [];
  const items = [];
  let shownDay = "";
  for (const m of meetings) {
    const start = new Date(m.start);
    const label = day.format(start);
    if (label !== shownDay) {
      items.push(h("li", { class: "agenda-day", text: label }));
      shownDay = label;
    }
    const who = (m.withPeople || []).length ? `With ${m.withPeople.join(", ")}` : "Just you";
    items.push(h("li", { class: "agenda-item", "data-role": m.role },
      h("span", { class: "agenda-time", text: `${time.format(start)}–${time.format(new Date(m.end))}` }),
      h("span", { class: "agenda-title", text: m.title }),
      m.recurring ? h("span", { class: "muted", text: "↻ repeats" }) : null,
      h("span", { class: "agenda-who muted", text: who }),
      h("span", { class: "agenda-answer muted", text: ANSWERS[m.response] || m.response })));
  }
  const list = meetings.length
    ? h("ul", { class: "agenda", "aria-label": "Meetings" }, items)
    : h("p", { class: "muted", text: "Nothing on your calendar then." });
  return {
    fields: [list, h("p", { class: "hint", text: `Times in ${zone}. Only your own meetings are shown.` })],
    read: () => ({ problems: [], fields: {} }),
  };
}

/** @type {import("./kinds.js").CardKind} */
export const agenda = { type: TYPE, title: "Your calendar", icon: "▤", build: agendaCard, done: "Shown", readOnly: true };
