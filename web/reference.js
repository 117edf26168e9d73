// A thing that already exists, as a card names it (multitool.toolkit.references): the one found, a
// choice among the candidates, or a note that nothing of the user's matched. Every card that acts on an
// existing meeting, message or issue shows its reference with this field and sends the chosen item's id.
import { field, h, nextId } from "./dom.js";

/**
 * One existing item of the user's.
 * @typedef {{kind: string, id: string, label: string, version?: string, fields?: Record<string, unknown>}} Item
 */
/**
 * A reference and what it resolved to: ``found`` (``item``), ``ambiguous`` (``candidates``) or ``none``.
 * @typedef {{query: string, status: string, item?: Item | null, candidates?: Item[]}} ItemResolution
 */
/** @typedef {{itemId: string | null, problems: string[]}} ItemReading the chosen item's id, and what is left to do */

/**
 * The item a reading chose, among those the card offered.
 * @param {ItemResolution} resolution
 * @param {string | null} itemId
 * @returns {Item | null}
 */
export function chosenItem(resolution, itemId) {
  const offered = resolution.item ? [resolution.item] : resolution.candidates || [];
  return offered.find((item) => item.id === itemId) || null;
}

/**
 * What a reference's field reads: the one found, the candidate chosen, or what to do.
 * @param {ItemResolution} resolution
 * @param {string} chosen the choice's value ("" when none is chosen)
 * @param {string} noun "meeting", "message", "issue"
 * @returns {ItemReading}
 */
export function readReference(resolution, chosen, noun) {
  if (resolution.status === "found" && resolution.item) return { itemId: resolution.item.id, problems: [] };
  if (resolution.status === "ambiguous" && (resolution.candidates || []).length) {
    return chosen ? { itemId: chosen, problems: [] } : { itemId: null, problems: [`Choose which ${noun} you mean.`] };
  }
  return { itemId: null, problems: [`No ${noun} of yours matches “${resolution.query}”: ask again naming it another way.`] };
}

/**
 * The reference's field: the item as a line, a select among candidates, or the note that none matched.
 * @param {string} labelText
 * @param {ItemResolution} resolution
 * @param {{noun: string, onChange?: (item: Item | null) => void}} options
 * @returns {{element: HTMLElement, read: () => ItemReading}}
 */
export function referenceField(labelText, resolution, { noun, onChange }) {
  const name = "item";
  if (resolution.status === "found" && resolution.item) {
    const item = resolution.item;
    const line = h("p", { class: "reference reference-found", "data-item-id": item.id, text: item.label });
    return { element: field(labelText, line, { name }), read: () => readReference(resolution, "", noun) };
  }
  if (resolution.status === "ambiguous" && (resolution.candidates || []).length) {
    const select = h("select", { id: nextId("item"), name, "data-query": resolution.query },
      h("option", { value: "", text: `Which ${noun}?` }),
      (resolution.candidates || []).map((c) => h("option", { value: c.id, text: c.label })));
    select.addEventListener("change", () => { if (onChange) onChange(chosenItem(resolution, select.value)); });
    return {
      element: field(labelText, select, { name, hint: `“${resolution.query}” could be ${(resolution.candidates || []).length} ${noun}s.` }),
      read: () => readReference(resolution, select.value, noun),
    };
  }
  const none = h("p", { class: "reference reference-none", role: "note", text: `No ${noun} of yours matches “${resolution.query}”.` });
  return { element: field(labelText, none, { name }), read: () => readReference(resolution, "", noun) };
}
