// The sandbox outbox: the mail and issues the signed-in person's confirms made (local sandbox only).
import { api, errorMessage } from "./api.js";
import { $, h, linkOrText, showAlert } from "./dom.js";
import { currentUser } from "./state.js";

export async function refreshOutbox() {
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
