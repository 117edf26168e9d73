// People on a card: one row per name (resolved, ambiguous, unknown) and a list that can be edited.
import { h, nextId } from "./dom.js";
import { lookalike } from "./lookalike.js";

/**
 * A person of the directory, as a card carries them.
 * @typedef {{displayName: string, email: string, timezone?: string}} Person
 */
/**
 * One name on a card: ``resolved`` (``person``), ``ambiguous`` (``candidates``) or ``unknown`` (neither).
 * @typedef {{query: string, status: string, person?: Person | null, candidates?: Person[]}} Resolution
 */
/** @typedef {{email: string, name: string | null}} Address an address as a confirm sends it */
/**
 * What a field of people reads: the addresses, and what keeps the card from being confirmed.
 * @typedef {{people: Address[], problems: string[]}} PeopleReading
 */

/** A whole address, as the page asks for one (the confirm checks it again). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * @param {Person} person
 * @returns {string} "Name <address>"
 */
export function personLabel(person) {
  return `${person.displayName} <${person.email}>`;
}

/**
 * @param {string | null | undefined} text
 * @returns {string} its first word ("Alex" of "Alex Kim"), or the text itself when it has none
 */
export function firstWord(text) {
  return String(text || "").trim().split(/\s+/)[0] || String(text ?? "");
}

/**
 * The people an action was done with (its confirmed ``{email, name}`` addresses), as resolved rows:
 * the directory's person when the card offered them (with their zone), else the address as sent.
 * @param {{email: string, name?: string | null}[] | null | undefined} addresses
 * @param {(Resolution | null)[] | null | undefined} offered the card's rows as drafted
 * @returns {Resolution[]}
 */
export function sentPeople(addresses, offered) {
  /** @type {Map<string, Person>} */
  const known = new Map();
  for (const r of offered || []) {
    for (const p of [r && r.person, ...((r && r.candidates) || [])]) if (p && p.email) known.set(p.email.toLowerCase(), p);
  }
  return (addresses || []).map((a) => ({
    query: a.email,
    status: "resolved",
    person: known.get(a.email.toLowerCase()) || { displayName: a.name || a.email, email: a.email, timezone: "" },
    candidates: [],
  }));
}

/**
 * An ambiguous name's row as read: the candidate chosen in its select, or what to do.
 * @param {Resolution} resolution
 * @param {string} chosen the select's value (a candidate's address, or "")
 * @returns {Address | {problem: string}}
 */
export function chosenPerson(resolution, chosen) {
  const person = (resolution.candidates || []).find((c) => c.email === chosen);
  return person ? { email: person.email, name: person.displayName } : { problem: `Choose which ${firstWord(resolution.query)} you mean.` };
}

/**
 * An unknown name's row as read: the address typed for it when it is a whole one, or what to do.
 * @param {Resolution} resolution
 * @param {string} typed the input's value
 * @returns {Address | {problem: string}}
 */
export function typedAddress(resolution, typed) {
  const value = typed.trim();
  return EMAIL.test(value) ? { email: value, name: null } : { problem: `Enter an email address for “${resolution.query}”, or remove them.` };
}

/**
 * A field of people as read from its rows: the addresses, each row's problem, and no one at all where the
 * field needs someone.
 * @param {(Address | {problem: string})[]} values the rows as read, in order
 * @param {{labelText: string, allowEmpty?: boolean}} options
 * @returns {PeopleReading}
 */
export function readPeople(values, { labelText, allowEmpty = false }) {
  /** @type {Address[]} */
  const people = [];
  /** @type {string[]} */
  const problems = [];
  for (const value of values) {
    if ("problem" in value) problems.push(value.problem);
    else people.push(value);
  }
  if (!allowEmpty && !people.length && !problems.length) problems.push(`${labelText} needs at least one person.`);
  return { people, problems };
}

// One row per name: a chip when resolved, a "Which Alex?" select when ambiguous,
// an email input flagged with an error when unknown. Returns the row and a reader.
/**
 * @param {Resolution} resolution
 * @param {{onRemove: (row: HTMLLIElement) => void, onChange?: () => void, role: string}} options
 * @returns {{row: HTMLLIElement, read: () => Address | {problem: string}}}
 */
function personRow(resolution, { onRemove, onChange, role }) {
  const row = h("li", { class: `person person-${resolution.status}`, "data-status": resolution.status, "data-query": resolution.query });
  /** @type {() => Address | {problem: string}} */
  let read;
  const removeButton = onRemove
    ? h("button", { type: "button", class: "btn btn-icon", "aria-label": `Remove ${resolution.query} from ${role}`, onclick: () => onRemove(row), text: "×" })
    : null;
  const removeSlot = () => removeButton;
  if (resolution.status === "resolved" && resolution.person) {
    const person = resolution.person;
    const warning = lookalike(person.email);
    if (warning) row.classList.add("is-lookalike");
    row.append(...[
      h("span", { class: "chip", title: person.timezone ? `Local time zone: ${person.timezone}` : "" },
        warning ? h("span", { class: "chip-warning", "aria-hidden": "true", text: "⚠" }) : null,
        h("span", { class: "chip-name", text: person.displayName }),
        h("span", { class: "chip-email", text: person.email }),
        removeSlot()),
      warning ? h("p", { class: "person-warning", role: "note", text: warning }) : null,
    ].filter((node) => node !== null));
    read = () => ({ email: person.email, name: person.displayName });
  } else if (resolution.status === "ambiguous" && resolution.candidates && resolution.candidates.length) {
    const select = h("select", { id: nextId("who"), "data-query": resolution.query },
      h("option", { value: "", text: "Choose…" }),
      resolution.candidates.map((c) => h("option", { value: c.email, text: personLabel(c) })));
    const label = `Which ${firstWord(resolution.query)}?`;
    const error = h("p", { class: "field-error", id: `${select.id}-error`, hidden: true });
    // A choice settles the question: its "Choose which ..." error goes, and the card re-checks the slots.
    select.addEventListener("change", () => {
      if (select.value) error.hidden = true;
      if (onChange) onChange();
    });
    select.setAttribute("aria-describedby", error.id);
    row.append(...[h("label", { for: select.id, class: "person-question", text: label }), select, removeSlot(), error].filter((node) => node !== null));
    read = () => chosenPerson(resolution, select.value);
  } else {
    const input = h("input", { id: nextId("who"), type: "email", placeholder: "name@example.com", "data-query": resolution.query, autocomplete: "off" });
    const error = h("p", { class: "field-error", id: `${input.id}-error`, text: `No one named “${resolution.query}” was found: enter an email address.` });
    input.setAttribute("aria-describedby", error.id);
    input.setAttribute("aria-invalid", "true");
    input.addEventListener("input", () => {
      const valid = EMAIL.test(input.value.trim());
      input.setAttribute("aria-invalid", valid ? "false" : "true");
      error.hidden = valid;
    });
    row.append(...[h("label", { for: input.id, class: "person-question", text: `Email for “${resolution.query}”` }), input, removeSlot(), error].filter((node) => node !== null));
    read = () => typedAddress(resolution, input.value);
  }
  return { row, read };
}

/**
 * A list of people with remove buttons and an "add" input; read() -> {people, problems}.
 * onChange, when given, is called after someone is added, removed or chosen (not for the first rows).
 * @param {string} labelText
 * @param {Resolution[] | null | undefined} resolutions
 * @param {{name?: string, allowEmpty?: boolean, onChange?: () => void}} [options]
 * @returns {{element: HTMLFieldSetElement, read: () => PeopleReading, emails: () => string[]}}
 */
export function peopleField(labelText, resolutions, { name, allowEmpty = false, onChange } = {}) {
  /** @type {Map<HTMLLIElement, () => Address | {problem: string}>} */
  const readers = new Map();
  const list = h("ul", { class: "people", "aria-label": labelText });
  const changed = () => onChange && onChange();
  /** @param {HTMLLIElement} row */
  const remove = (row) => {
    readers.delete(row);
    row.remove();
    changed();
  };
  /** @param {Resolution} resolution */
  const add = (resolution) => {
    const { row, read } = personRow(resolution, { onRemove: remove, onChange: changed, role: labelText.toLowerCase() });
    readers.set(row, read);
    list.append(row);
  };
  for (const resolution of resolutions || []) add(resolution);
  const addInput = h("input", { type: "email", id: nextId("add"), placeholder: "Add by email", autocomplete: "off" });
  const addButton = h("button", { type: "button", class: "btn btn-ghost btn-small", text: "Add" });
  const addError = h("p", { class: "field-error", id: `${addInput.id}-error`, hidden: true });
  addInput.setAttribute("aria-describedby", addError.id);
  const doAdd = () => {
    const value = addInput.value.trim();
    if (!EMAIL.test(value)) {
      addError.textContent = "Enter a full email address.";
      addError.hidden = false;
      return;
    }
    addError.hidden = true;
    add({ query: value, status: "resolved", person: { displayName: value, email: value, timezone: "" }, candidates: [] });
    changed();
    addInput.value = "";
    addInput.focus();
  };
  addButton.addEventListener("click", doAdd);
  addInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      doAdd();
    }
  });
  const groupError = h("p", { class: "field-error", hidden: true });
  const addRow = h("div", { class: "add-person", hidden: true },
    h("label", { for: addInput.id, class: "visually-hidden", text: `Add to ${labelText}` }), addInput, addButton);
  const reveal = h("button", { type: "button", class: "btn btn-ghost btn-small add-toggle", "aria-label": `Add someone to ${labelText}`, text: "+ Add" });
  reveal.addEventListener("click", () => {
    addRow.hidden = false;
    reveal.hidden = true;
    addInput.focus();
  });
  const container = h("fieldset", { class: "field people-field", "data-field": name },
    h("legend", { text: labelText }),
    h("div", { class: "people-line" }, list, reveal),
    addRow,
    addError,
    groupError);
  const read = () => {
    // Each row's problem shows under it; a row that reads well again loses its error.
    const values = [...readers].map(([row, reader]) => {
      const value = reader();
      const error = /** @type {HTMLElement | null} */ (row.querySelector(".field-error"));
      if (error && "problem" in value) {
        error.textContent = value.problem;
        error.hidden = false;
      } else if (error && row.dataset.status !== "unknown") error.hidden = true;
      return value;
    });
    const { people, problems } = readPeople(values, { labelText, allowEmpty });
    groupError.textContent = problems.length && !people.length && !readers.size ? problems[0] : "";
    groupError.hidden = !groupError.textContent;
    return { people, problems };
  };
  // The addresses on the field now, without flagging anything (read() shows the problems).
  const emails = () => [...readers.values()].map((reader) => reader()).flatMap((value) => ("email" in value && value.email ? [value.email] : []));
  return { element: container, read, emails };
}
