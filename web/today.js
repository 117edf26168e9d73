// Which day "today" is for the signed-in user: "tomorrow" and "Thursday" in a message are read from
// it, in the user's zone, which need not be the browser's (a local user in Tokyo, a laptop in London).
import { $ } from "./dom.js";
import { state } from "./state.js";

// The zone the backend reads the user's messages in: the local user's own, else the browser's
// (conversation.js sends that one with each message).
/** @returns {string} an IANA zone */
export function userZone() {
  const user = state.config.auth === "local" ? state.users.find((u) => u.id === state.user) : null;
  return (user && user.timezone) || Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The calendar day of ``instant`` in ``zone``, as YYYY-MM-DD (for comparing days across zones).
 * @param {Date | number} instant
 * @param {string} zone
 * @returns {string}
 */
export function dayIn(instant, zone) {
  return new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: zone }).format(instant);
}

/** @param {Date} [now] */
export function showToday(now = new Date()) {
  const zone = userZone();
  const line = $("today");
  const day = new Intl.DateTimeFormat(undefined, { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: zone }).format(now);
  line.replaceChildren("Today is ", Object.assign(document.createElement("time"), { dateTime: dayIn(now, zone), textContent: day }), ` (${zone})`);
  line.hidden = false;
}

// Kept right past midnight: once a minute is enough for a day.
/** @returns {void} */
export function keepTodayShown() {
  showToday();
  setInterval(() => showToday(), 60_000);
}
