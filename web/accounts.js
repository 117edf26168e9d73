// Connected accounts: the signed-in user's own accounts (Microsoft 365, Google Workspace) as GET /connections
// lists them, each with Disconnect once connected. Shown only where the deployment connects accounts
// (config.json's ``connections``): anywhere else the page asks nothing.
import { api, errorMessage } from "./api.js";
import { $, h, showAlert } from "./dom.js";
import { currentUser, state } from "./state.js";

const STATUS_TEXT = { connected: "Connected", pending: "Waiting for your consent", disconnected: "Disconnected", not_connected: "Not connected" };

/** @returns {Promise<void>} */
export async function refreshAccounts() {
  const panel = $("accounts");
  if (!state.config.connections || !currentUser() || (window.location.search || "").includes("session_id=")) {
    panel.hidden = true;
    return;
  }
  const result = await api("/connections");
  if (!result.ok || !result.data || !Array.isArray(result.data.connections)) {
    panel.hidden = true;
    return;
  }
  $("accounts-list").replaceChildren(...result.data.connections.map(accountRow));
  panel.hidden = false;
}

function accountRow(connection) {
  const name = connection.providerName || connection.provider;
  const status = STATUS_TEXT[connection.status] || connection.status;
  const button = connection.status === "connected"
    ? h("button", { type: "button", class: "btn btn-secondary", text: "Disconnect", "aria-label": `Disconnect ${name}`, onclick: () => disconnect(connection.provider, name) })
    : null;
  return h("li", { class: "account-item", "data-testid": "connected-account", "data-provider": connection.provider, "data-status": connection.status },
    h("strong", { text: name }), h("span", { class: "muted", text: ` ${status}` }), button);
}

async function disconnect(provider, name) {
  const result = await api(`/connections/${encodeURIComponent(provider)}/disconnect`, { method: "POST", body: {} });
  showAlert(result.ok
    ? `${name} is disconnected: the next action that needs it asks for your consent again.`
    : `${name} could not be disconnected: ${errorMessage(result)}`);
  await refreshAccounts();
}
