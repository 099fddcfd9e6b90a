import type { Settings } from "meilisearch";
import { type ConditionTerm, foldName, isExactSynonym } from "../../records/conditionTerm";

/** `MONDO:0004979` → `MONDO_0004979` (Meilisearch primary keys allow no `:`), which is also the PURL's form. */
export function conditionKey(id: string): string {
  return id.replace(":", "_");
}

/** What Meilisearch stores per term: the names to search, their folded forms for exact matching, a tie-breaker. */
export interface ConditionDocument {
  pk: string;
  id: string;
  label: string;
  exactSynonyms: string[];
  otherSynonyms: string[];
  labelKey: string;
  synonymKeys: string[];
  /** Words in the label: among equally good matches the shorter name is the closer one. */
  labelWords: number;
  descendants: number;
}

export function toConditionDocument(term: ConditionTerm): ConditionDocument {
  const exact = term.synonyms.filter(isExactSynonym).map((synonym) => synonym.text);
  return {
    pk: conditionKey(term.id),
    id: term.id,
    label: term.label,
    exactSynonyms: exact,
    otherSynonyms: term.synonyms.filter((synonym) => !isExactSynonym(synonym)).map((synonym) => synonym.text),
    labelKey: foldName(term.label),
    synonymKeys: [...new Set(exact.map(foldName))],
    labelWords: foldName(term.label).split(" ").length,
    descendants: term.descendants,
  };
}

/**
 * Typo-tolerant (Meilisearch's defaults: one typo from 5 letters, two from 9) with prefix search
 * for candidate lists. The label ranks before synonyms. Remaining ties go to the more general term
 * ("diabetes" finds diabetes mellitus before diabetes insipidus, "hiv" HIV infectious disease before
 * HIV enteropathy), then to the shorter label ("cystic fibrosiss" finds cystic fibrosis first).
 * Exact label/synonym matches are found through the folded keys, not through ranking.
 */
export const CONDITIONS_SETTINGS: Settings = {
  searchableAttributes: ["label", "exactSynonyms", "otherSynonyms"],
  filterableAttributes: ["labelKey", "synonymKeys"],
  sortableAttributes: [],
  rankingRules: ["words", "typo", "proximity", "attribute", "exactness", "descendants:desc", "labelWords:asc"],
  typoTolerance: { enabled: true },
  facetSearch: false,
  pagination: { maxTotalHits: 1000 },
};
