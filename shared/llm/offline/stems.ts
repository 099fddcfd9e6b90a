import porter2 from "wink-eng-lite-web-model/dist/porter-stemmer.js";
import { words } from "./text";

/**
 * Word families by stem, with the Porter2 (Snowball English) stemmer wink-nlp ships: "allergies"
 * and "allergy" → "allergi", "vaccinated", "vaccines" and "vaccination" → "vaccin", "immunized" and
 * "immunizations" → "immun". A family is written as a few of its words and matched by their stems,
 * so the forms a person writes need no list of their own. The stemmer is a pure function: no
 * model is loaded for it.
 */
export const stem = (word: string): string => porter2(word.replace(/[’']s$/, ""));

/** The stems of the text's words, in order. */
export function stemsOf(text: string): string[] {
  return words(text).map(stem);
}

/** A family's stems: "allergy allergic" → {"allergi", "allerg"}. */
export const family = (...members: string[]): ReadonlySet<string> => new Set(members.map(stem));

export const inFamily = (stems: readonly string[], members: ReadonlySet<string>) => stems.some((s) => members.has(s));
