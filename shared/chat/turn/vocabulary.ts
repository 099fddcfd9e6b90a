import { findConditionMentions } from "../../conditions/search/mentions";
import type { Deps } from "../../context/deps";
import { findAnalyte } from "../../labs/analytes";
import type { OfflineVocabulary } from "../../llm/offline/vocabulary";
import { cachedMedicationNames } from "../../references/medicationNames";

/** Cached names are read again at most this often (new lookups add names; a stale minute is harmless). */
const NAMES_TTL_MS = 60_000;
const cachedNames = new WeakMap<Deps["sql"], { at: number; names: ReturnType<typeof cachedMedicationNames> }>();

/**
 * The service's own vocabularies, for the offline model to find what a message names: MONDO
 * conditions from the conditions index, the medication names the reference cache knows, and the
 * shipped table of lab analytes (names, synonyms, LOINC codes).
 */
export function offlineVocabulary(deps: Deps): OfflineVocabulary {
  return {
    conditions: (phrases) => findConditionMentions(deps.meili, deps.env.MEILI_INDEX_PREFIX, phrases),
    cachedMedications: () => {
      const cached = cachedNames.get(deps.sql);
      if (cached && Date.now() - cached.at <= NAMES_TTL_MS) return cached.names;
      const names = cachedMedicationNames(deps);
      cachedNames.set(deps.sql, { at: Date.now(), names });
      // A failed read is not kept: the next turn asks again.
      names.catch(() => cachedNames.delete(deps.sql));
      return names;
    },
    analytes: (phrases) =>
      phrases.flatMap((phrase) => {
        const analyte = findAnalyte(phrase);
        return analyte ? [{ phrase, name: analyte.name, code: analyte.code }] : [];
      }),
  };
}
