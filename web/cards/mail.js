// The reply and forward cards: the message answered (found, a choice, or none: web/reference.js), what
// it says (sender, subject, date, first lines), whom the answer goes to, and the text; a forward lists
// the original's attachments (name and size), each removable.
import { field, h, nextId } from "../dom.js";
import { maxLength } from "../limits.js";
import { peopleField, sentPeople } from "../people.js";
import { chosenItem, referenceField } from "../reference.js";

const REPLY = "show_email_reply";
const FORWARD = "show_email_forward";

/**
 * A size in words: "412 KB", "2.4 MB".
 * @param {number} bytes
 * @returns {string}
 */
export function sizeWords(bytes) {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1000) return `${Math.round(bytes / 1000)} KB`;
  return `${bytes} bytes`;
}

/**
 * What the card shows of a message: who sent it and when, its subject and first lines.
 * @param {any} item
 * @returns {HTMLElement}
 */
function messageView(item) {
  const f = (item && item.fields) || {};
  const when = f.received ? new Date(String(f.received)).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "";
  const from = f.senderName ? `${f.senderName} <${f.sender}>` : String(f.sender || "");
  return h("blockquote", { class: "message-quoted", "data-message-id": item ? item.id : "" },
    h("p", { class: "message-head" },
      h("strong", { text: from }),
      h("span", { class: "message-when", text: when ? ` · ${when}` : "" })),
    h("p", { class: "message-subject", text: String(f.subject || "(no subject)") }),
    h("p", { class: "message-preview", text: String(f.preview || "") }));
}

/**
 * The reference, and under it the message it points at (re-drawn when a candidate is chosen).
 * @param {any} card
 * @param {(item: any) => void} [onItem]
 */
function messageField(card, onItem) {
  const shown = h("div", { class: "message-shown" });
  const show = (item) => {
    shown.replaceChildren(...(item ? [messageView(item)] : []));
    if (onItem) onItem(item);
  };
  const reference = referenceField("Message", card.message, { noun: "message", onChange: show });
  show(card.message && card.message.item ? card.message.item : null);
  return { elements: [reference.element, shown], read: reference.read };
}

function text(name, value, labelText, type) {
  const area = h("textarea", { rows: 5, name, maxlength: maxLength(type, name) });
  area.value = value || "";
  return { area, element: field(labelText, area, { name }) };
}

function replyCard(card) {
  const message = messageField(card);
  const to = peopleField("To", card.to, { name: "to", allowEmpty: !(card.to || []).length });
  const cc = peopleField("Cc", card.cc, { name: "cc", allowEmpty: true });
  const body = text("body", card.body, "Reply", REPLY);
  const found = card.message && card.message.item ? card.message.item.id : null;
  const read = () => {
    const ref = message.read();
    const a = to.read();
    const b = cc.read();
    const problems = [...ref.problems, ...a.problems, ...b.problems];
    if (!body.area.value.trim()) problems.push("Write the reply.");
    /** @type {Record<string, unknown>} */
    const fields = { body: body.area.value };
    if (ref.itemId) fields.message = ref.itemId;
    // A candidate chosen on the card: its own sender (and everyone on it, for reply all) unless typed here.
    if (ref.itemId === found || a.people.length) {
      fields.to = a.people.map((p) => p.email);
      fields.cc = b.people.map((p) => p.email);
    }
    return { problems, fields };
  };
  return { fields: [...message.elements, to.element, cc.element, body.element], read };
}

function forwardCard(card) {
  const files = h("ul", { class: "attachments", "aria-label": "Attachments" });
  /** @type {Map<string, HTMLInputElement>} */
  const boxes = new Map();
  const list = (item) => {
    boxes.clear();
    const attachments = item && item.fields && Array.isArray(item.fields.attachments) ? item.fields.attachments : [];
    files.replaceChildren(...attachments.map((a) => {
      const box = h("input", { type: "checkbox", id: nextId("att"), checked: true, "data-attachment-id": a.id });
      boxes.set(a.id, /** @type {HTMLInputElement} */ (box));
      return h("li", { class: "attachment" }, box,
        h("label", { for: box.id, text: `${a.name} (${sizeWords(Number(a.size) || 0)})` }));
    }));
    if (!attachments.length) files.append(h("li", { class: "hint", text: "No attachments." }));
  };
  const message = messageField(card, list);
  const to = peopleField("To", card.to, { name: "to" });
  const cc = peopleField("Cc", card.cc, { name: "cc", allowEmpty: true });
  const note = text("note", card.note, "Note", FORWARD);
  const read = () => {
    const ref = message.read();
    const a = to.read();
    const b = cc.read();
    return {
      problems: [...ref.problems, ...a.problems, ...b.problems],
      fields: {
        ...(ref.itemId ? { message: ref.itemId } : {}),
        to: a.people.map((p) => p.email),
        cc: b.people.map((p) => p.email),
        note: note.area.value,
        attachments: [...boxes].filter(([, box]) => box.checked).map(([id]) => id),
      },
    };
  };
  const attachmentsField = h("fieldset", { class: "field", "data-field": "attachments" },
    h("legend", { text: "Attachments (untick to leave one out)" }), files);
  return { fields: [...message.elements, to.element, cc.element, note.element, attachmentsField], read };
}

// The card as sent (the confirmed content: the message chosen, the recipients, the text).
function answerSent(card, edits) {
  const offered = [...(card.to || []), ...(card.cc || [])];
  const item = chosenItem(card.message, edits.message) || card.message.item;
  const message = item ? { ...card.message, status: "found", item, candidates: [] } : card.message;
  const attachments = item && item.fields && Array.isArray(item.fields.attachments)
    ? { fields: { ...item.fields, attachments: item.fields.attachments.filter((a) => (edits.attachments || []).includes(a.id)) } }
    : {};
  return {
    ...card,
    message: card.type === FORWARD && item ? { ...message, item: { ...item, ...attachments } } : message,
    to: sentPeople(edits.to, offered),
    cc: sentPeople(edits.cc, offered),
    ...(card.type === FORWARD ? { note: edits.note } : { body: edits.body }),
  };
}

/** @type {import("./kinds.js").CardKind} */
export const reply = { type: REPLY, title: "Reply", icon: "↩", build: replyCard, sent: answerSent, done: "Sent", confirmLabel: "Confirm and send" };
/** @type {import("./kinds.js").CardKind} */
export const forward = { type: FORWARD, title: "Forward", icon: "↪", build: forwardCard, sent: answerSent, done: "Sent", confirmLabel: "Confirm and send" };
