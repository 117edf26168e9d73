// The card types the page draws: one module per type (that is UI), and the generic card for a type
// without one. A new card type is one module here and one line in CARD_TYPES.
import { agenda } from "./agenda.js";
import { email } from "./email.js";
import { free } from "./free.js";
import { genericCard, typeTitle } from "./generic.js";
import { invitationAnswer, meetingCancel, meetingMove } from "./existing.js";
import { issueCards } from "./issues.js";
import { jira } from "./jira.js";
import { forward, reply } from "./mail.js";
import { meeting } from "./meeting.js";

/**
 * What a card type's fields read: what keeps it from being confirmed, and the confirm's body.
 * @typedef {{problems: string[], fields: Record<string, unknown>}} CardReading
 */
/** @typedef {{fields: HTMLElement[], read: () => CardReading}} BuiltCard a card's fields and their reader */
/**
 * A card type's module: how its fields are drawn and read, and how a done action is drawn again.
 * @typedef {object} CardKind
 * @property {string} [type] the client action's type
 * @property {string} title
 * @property {string} icon
 * @property {(card: any) => BuiltCard} build
 * @property {(card: any, edits: any) => any} [sent] the card as done, from the confirmed edits
 * @property {string} done what the card says once done
 * @property {string} [confirmLabel]
 * @property {(view: any) => HTMLElement | null} [result] what the confirm's answer names
 * @property {boolean} [readOnly] the card only shows something: no Confirm, no Discard
 */

// One module per card type (that is UI); a type without one gets the generic card.
/** @type {Record<string, CardKind>} */
export const CARD_TYPES = Object.fromEntries(
  [email, reply, forward, meeting, jira, meetingMove, meetingCancel, invitationAnswer, agenda, free, ...issueCards].map((kind) => [kind.type, kind]),
);

/**
 * @param {string} type
 * @returns {CardKind}
 */
export function cardKind(type) {
  return CARD_TYPES[type] || { title: typeTitle(type), icon: "•", build: genericCard, done: "Done" };
}

