/**
 * Phrases the health assistant's instructions write and the offline assistant reads back: it sees
 * only what a hosted model sees (the instructions and the conversation), so both sides name the
 * phrase here.
 */

/** Opens the list of allergies that imported records hold. */
export const ALLERGIES_ON_FILE = "allergies and intolerances (from imported records):";
