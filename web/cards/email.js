// The email card: recipients, subject and message.
import { field, h } from "../dom.js";
import { maxLength } from "../limits.js";
import { peopleField, sentPeople } from "../people.js";

const TYPE = "show_new_email_draft";

function emailCard(card) {
  const to = peopleField("To", card.to, { name: "to" });
  const cc = peopleField("Cc", card.cc, { name: "cc", allowEmpty: true });
  const subject = h("input", { type: "text", value: card.subject || "", maxlength: maxLength(TYPE, "subject"), name: "subject" });
  const body = h("textarea", { rows: 6, name: "body", maxlength: maxLength(TYPE, "body") });
  body.value = card.body || "";
  const fields = [to.element, cc.element, field("Subject", subject, { name: "subject" }), field("Message", body, { name: "body" })];
  const read = () => {
    const a = to.read();
    const b = cc.read();
    const problems = [...a.problems, ...b.problems];
    if (!subject.value.trim()) problems.push("Add a subject.");
    return {
      problems,
      fields: {
        to: a.people.map((p) => p.email),
        cc: b.people.map((p) => p.email),
        subject: subject.value.trim(),
        body: body.value,
      },
    };
  };
  return { fields, read };
}

// The card as sent (the confirmed content, which another client may have edited).
function emailSent(card, edits) {
  const offered = [...(card.to || []), ...(card.cc || [])];
  return { ...card, to: sentPeople(edits.to, offered), cc: sentPeople(edits.cc, offered), subject: edits.subject, body: edits.body };
}

/** @type {import("./kinds.js").CardKind} */
export const email = { type: TYPE, title: "Email", icon: "✉", build: emailCard, sent: emailSent, done: "Sent", confirmLabel: "Confirm and send" };
