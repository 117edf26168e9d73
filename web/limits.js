// Lists and limits the backend owns, never repeated here: the Jira projects and their issue types come
// from config.json (written by the stack, or served by the local sandbox), each card field's maxLength
// from the generated client-actions JSON Schema next to the page.
import { state } from "./state.js";

/** @type {any} the generated client-actions JSON Schema, once read */
let schema = null;

// Read once at start-up; without it the inputs carry no maxlength (the confirm checks every limit anyway).
/** @returns {Promise<void>} */
export async function loadLimits() {
  try {
    const response = await fetch("client-actions.schema.json", { cache: "no-store" });
    schema = response.ok ? await response.json() : null;
  } catch {
    schema = null;
  }
}

// "#/$defs/Name" -> that definition of the schema.
function definition(ref) {
  return typeof ref === "string" && schema && schema.$defs ? schema.$defs[ref.split("/").pop() || ""] || null : null;
}

// A card type's field as the schema has it (a $ref followed), or null.
function property(cardType, name) {
  const mapping = schema && schema.discriminator ? schema.discriminator.mapping || {} : {};
  const model = definition(mapping[cardType]);
  const found = model && model.properties ? model.properties[name] : null;
  return found && found.$ref ? { ...definition(found.$ref), ...found } : found || null;
}

/**
 * The JSON Schema's maxLength of a card type's field, or null when it has none.
 * @param {string} cardType
 * @param {string} name
 * @returns {number | null}
 */
export function maxLength(cardType, name) {
  const found = property(cardType, name);
  return found && Number.isInteger(found.maxLength) ? found.maxLength : null;
}

/**
 * The values a card type's field takes (its enum in the schema), the card's own value last when it is not one of them.
 * @param {string} cardType
 * @param {string} name
 * @param {string | null | undefined} current
 * @returns {string[]}
 */
export function choices(cardType, name, current) {
  const found = property(cardType, name);
  return withCurrent(found && Array.isArray(found.enum) ? found.enum : [], current);
}

// The backend's values in its order; the card's own value last when it is not one of them.
/** @type {(values: string[], current: string | null | undefined) => string[]} */
const withCurrent = (values, current) => [...new Set([...values, current].filter(/** @returns {value is string} */ (value) => typeof value === "string" && value !== ""))];

// config.json's jiraProjects: {KEY: {name, issueTypes: [...]}}.
function projects() {
  const configured = state.config.jiraProjects;
  return configured && typeof configured === "object" && !Array.isArray(configured) ? configured : {};
}

/**
 * The project keys to offer.
 * @param {string | null | undefined} current the card's project
 * @returns {string[]}
 */
export function jiraProjects(current) {
  return withCurrent(Object.keys(projects()).sort(), current);
}

/**
 * The issue types of a project as the backend has them.
 * @param {string} project
 * @param {string | null | undefined} current the card's issue type
 * @returns {string[]}
 */
export function issueTypes(project, current) {
  const known = projects()[project];
  return withCurrent(known && Array.isArray(known.issueTypes) ? known.issueTypes : [], current);
}
