// The sandbox outbox: the mail, meetings and issues the signed-in person's confirms made (local
// sandbox only). Mail goes to the SES sandbox, or with `multitool serve --calendar` to the provider's
// local stand-in, whose own record of the person's mail and meetings the answer then carries.
import { api, errorMessage } from "./api.js";
import { $, h, linkOrText, showAlert } from "./dom.js";
import { currentUser, state } from "./state.js";

// A booked meeting's time in the signed-in person's zone (the browser's without a seeded user).
function when(event) {
  const user = state.users.find((u) => u.id === state.user);
  const timeZone = (user && user.timezone) || undefined;
  const start = new Date(event.start);
  const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone }).format(start);
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone });
  return `${day}, ${time.format(start)}–${time.format(new Date(event.end))}`;
}

/** @returns {Promise<void>} */
export async function refreshOutbox() {
  const panel = $("outbox");
  if (panel.hidden || !currentUser()) return; // signed out: nobody's outbox to show
  const result = await api("/sandbox/outbox");
  if (!result.ok) {
    showAlert(`Sandbox outbox: ${errorMessage(result)}`);
    return;
  }
  const provider = (result.data && result.data.provider) || null;
  const mail = (provider ? provider.mail : result.data && result.data.emails) || [];
  const issues = (result.data && result.data.issues) || [];
  $("outbox-note").textContent = provider
    ? `Nothing here reaches a real inbox, calendar or Jira: mail and meetings go to a local ${provider.name} stand-in, issues to a local Jira. Only what you confirmed as the signed-in user is listed.`
    : "Nothing here reaches a real inbox or a real Jira: mail goes to the SES sandbox, issues to a local Jira. Only what you confirmed as the signed-in user is listed.";
  $("outbox-mail-title").textContent = provider ? `Sent from your ${provider.name} mailbox` : "Sent mail";
  $("outbox-mail").replaceChildren(
    ...(mail.length
      ? mail.map((m) => h("li", { class: "outbox-item", "data-testid": "outbox-mail" },
          m.invitation ? h("span", { class: "badge badge-invite", text: "INVITATION" }) : null,
          h("strong", { text: m.subject || "(no subject)" }),
          h("span", { class: "muted", text: ` to ${(m.to || []).join(", ")}` }),
          m.body ? h("p", { class: "outbox-body", text: m.body }) : null))
      : [h("li", { class: "muted", text: "No mail sent yet." })]),
  );
  const events = (provider && provider.events) || [];
  $("outbox-events-title").hidden = $("outbox-events").hidden = !provider;
  if (provider) $("outbox-events-title").textContent = `Booked in your ${provider.name} calendar`;
  $("outbox-events").replaceChildren(
    ...(events.length
      ? events.map((e) => h("li", { class: "outbox-item", "data-testid": "outbox-event" },
          h("strong", { text: e.title || "(no title)" }),
          h("span", { class: "muted", text: ` ${when(e)} with ${(e.attendees || []).join(", ") || "nobody else"}` })))
      : [h("li", { class: "muted", text: "No meetings booked yet." })]),
  );
  $("outbox-issues").replaceChildren(
    ...(issues.length
      ? issues.map((i) => h("li", { class: "outbox-item", "data-testid": "outbox-issue" },
          linkOrText(i.url, String(i.key || "")),
          h("span", { text: ` ${i.summary || ""}` })))
      : [h("li", { class: "muted", text: "No issues created yet." })]),
  );
}
