// The free-times card: when the user and the people named are all free, read only (no Confirm, no Discard).
import { h } from "../dom.js";
import { userZone } from "../today.js";

const TYPE = "show_free_times";

function freeCard(card) {
  const zone = card.timezone || userZone();
  const day = new Intl.DateTimeFormat(undefined, { weekday: "long", day: "numeric", month: "long", timeZone: zone });
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone });
  const names = (card.people || []).map((r) => (r.person && r.person.displayName) || r.query);
  const items = [];
  let shownDay = "";
  for (const w of card.windows || []) {
    const start = new Date(w.start);
    const label = day.format(start);
    if (label !== shownDay) {
      items.push(h("li", { class: "agenda-day", text: label }));
      shownDay = label;
    }
    items.push(h("li", { class: "agenda-item" },
      h("span", { class: "agenda-time", text: `${time.format(start)}–${time.format(new Date(w.end))}` }),
      h("span", { class: "agenda-title", text: "Free" })));
  }
  const who = names.length ? `You and ${names.join(", ")}` : "You";
  const list = items.length
    ? h("ul", { class: "agenda", "aria-label": "Free times" }, items)
    : h("p", { class: "muted", text: "No time everyone is free then." });
  return {
    fields: [
      h("p", { class: "hint", text: `${who}: windows of at least ${card.durationMinutes || 30} minutes, in ${zone}.` }),
      list,
    ],
    read: () => ({ problems: [], fields: {} }),
  };
}

/** @type {import("./kinds.js").CardKind} */
export const free = { type: TYPE, title: "Free times", icon: "◌", build: freeCard, done: "Shown", readOnly: true };
