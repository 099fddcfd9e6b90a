import { type Meilisearch, searchIndex } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";
import { foldName } from "../../records/conditionTerm";

/** A MONDO term named in a text: the phrase as folded, and the term. */
export interface ConditionMention {
  phrase: string;
  id: string;
  label: string;
}

type Hit = { id: string; label: string; labelKey: string; synonymKeys: string[]; descendants: number };

/** Phrases too general to name a condition on their own ("disease" is a MONDO term). */
const GENERAL = new Set(["disease", "disorder", "syndrome", "condition", "illness", "infection", "pain", "symptom"]);

/**
 * MONDO terms whose label or exact synonym equals one of the phrases once folded: one filter query
 * over the conditions index, so a message's words and word groups are looked up in one round trip.
 * The more general term wins when two share a phrase.
 */
export async function findConditionMentions(
  meili: Meilisearch,
  indexPrefix: string,
  phrases: readonly string[],
): Promise<ConditionMention[]> {
  // The first phrases of a long text (a message comes before its attachments) are enough.
  const keys = [...new Set(phrases.map(foldName))].filter((key) => key.length >= 3 && !GENERAL.has(key)).slice(0, 600);
  if (keys.length === 0) return [];
  // Folded keys hold only letters, digits and spaces, so JSON quoting is safe in a filter.
  const list = keys.map((key) => JSON.stringify(key)).join(", ");
  const { hits } = await searchIndex<Hit>(meili, indexUid(indexPrefix, "conditions"), {
    q: "",
    filter: `labelKey IN [${list}] OR synonymKeys IN [${list}]`,
    limit: 100,
    attributesToRetrieve: ["id", "label", "labelKey", "synonymKeys", "descendants"],
  });
  const wanted = new Set(keys);
  const byPhrase = new Map<string, Hit>();
  for (const hit of hits) {
    for (const phrase of [hit.labelKey, ...hit.synonymKeys].filter((key) => wanted.has(key))) {
      const seen = byPhrase.get(phrase);
      if (!seen || hit.descendants > seen.descendants) byPhrase.set(phrase, hit);
    }
  }
  return [...byPhrase].map(([phrase, hit]) => ({ phrase, id: hit.id, label: hit.label }));
}
