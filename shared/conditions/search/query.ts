import { type Meilisearch, searchIndex } from "../../../search-index/client";
import { indexUid } from "../../../search-index/indexes";
import { fromPaperHit, PAPER_HIT_FIELDS, type PaperHit } from "../../papers/search/document";
import { foldName } from "../../records/conditionTerm";
import type { Paper } from "../../records/paper";
import type { ConditionDocument } from "./document";

/** A candidate term: the fields a lookup needs, how it matched, and Meilisearch's ranking score (0–1). */
export interface ConditionHit {
  id: string;
  label: string;
  exactSynonyms: string[];
  /** `label` / `synonym`: the query equals the label or an exact synonym once folded; `ranked` otherwise. */
  match: "label" | "synonym" | "ranked";
  score: number;
  /** How a ranked hit matched, from Meilisearch's score details (exact hits: all words, no typos). */
  closeness: Closeness;
}

export interface Closeness {
  /** Every query word matched a word of the name. */
  allWords: boolean;
  typos: number;
  /** Some query word matched only as the beginning of a longer word (`flu` → `flushing`). */
  prefixOnly: boolean;
}

interface ScoreDetails {
  words?: { matchingWords: number; maxMatchingWords: number };
  typo?: { typoCount: number };
  exactness?: { matchType: string; matchingWords?: number; maxMatchingWords?: number };
}

type Retrieved = Pick<ConditionDocument, "id" | "label" | "exactSynonyms" | "labelKey" | "descendants"> & {
  _rankingScore?: number;
  _rankingScoreDetails?: ScoreDetails;
};
const RETRIEVE = ["id", "label", "exactSynonyms", "labelKey", "descendants"];
/** Enough exact hits to hold every term sharing one name (shared synonyms are rare in MONDO). */
const EXACT_LIMIT = 20;
const EXACT: Closeness = { allWords: true, typos: 0, prefixOnly: false };

/**
 * Candidates for a query, exact matches first: one round trip runs a filter on the folded names
 * (exact label or exact synonym, label matches before synonym matches, then the more general term)
 * and the typo-tolerant ranked search; ranked hits already listed as exact are not repeated.
 */
export async function searchConditionCandidates(
  meili: Meilisearch,
  indexPrefix: string,
  q: string,
  limit: number,
): Promise<ConditionHit[]> {
  const uid = indexUid(indexPrefix, "conditions");
  const key = foldName(q);
  const ranked: object = {
    q,
    limit,
    showRankingScore: true,
    showRankingScoreDetails: true,
    attributesToRetrieve: RETRIEVE,
  };
  // Sent at once: under load they leave in one multi-search (search-index/searchBatches.ts).
  const [rankedHits, exact] = await Promise.all(
    (key ? [ranked, exactQuery(key)] : [ranked]).map(
      async (body) => (await searchIndex<Retrieved>(meili, uid, body)).hits,
    ),
  );
  const exactHits = exactCandidates(exact ?? [], key);
  const seen = new Set(exactHits.map((hit) => hit.id));
  return [...exactHits, ...rankedCandidates(rankedHits ?? [], seen)].slice(0, limit);
}

/** Terms whose folded label or exact synonym equals the folded query. */
function exactQuery(key: string): object {
  // Folded keys hold only letters, digits and spaces, so quoting them is safe.
  return {
    q: "",
    filter: `labelKey = "${key}" OR synonymKeys = "${key}"`,
    limit: EXACT_LIMIT,
    attributesToRetrieve: RETRIEVE,
  };
}

/** Label matches before synonym matches, then the more general term. */
function exactCandidates(hits: Retrieved[], key: string): ConditionHit[] {
  return hits
    .map((hit) => ({ hit, onLabel: hit.labelKey === key }))
    .sort((a, b) => Number(b.onLabel) - Number(a.onLabel) || b.hit.descendants - a.hit.descendants)
    .map(({ hit, onLabel }) => ({ ...pick(hit), match: onLabel ? "label" : "synonym", score: 1, closeness: EXACT }));
}

function rankedCandidates(hits: Retrieved[], exact: Set<string>): ConditionHit[] {
  return hits
    .filter((hit) => !exact.has(hit.id))
    .map((hit) => ({
      ...pick(hit),
      match: "ranked",
      score: hit._rankingScore ?? 0,
      closeness: closenessOf(hit._rankingScoreDetails ?? {}),
    }));
}

/**
 * The exactness rule counts query words matched whole and without typos; a word matched neither
 * whole nor through a typo was matched as a prefix.
 */
function closenessOf(details: ScoreDetails): Closeness {
  const words = details.words ?? { matchingWords: 0, maxMatchingWords: 1 };
  const typos = details.typo?.typoCount ?? 0;
  const exactness = details.exactness ?? { matchType: "noExactMatch" };
  const wholeWords =
    exactness.matchType !== "noExactMatch" ||
    (exactness.matchingWords ?? 0) + typos >= (exactness.maxMatchingWords ?? words.maxMatchingWords);
  return { allWords: words.matchingWords >= words.maxMatchingWords, typos, prefixOnly: !wholeWords };
}

function pick(hit: Retrieved) {
  return { id: hit.id, label: hit.label, exactSynonyms: hit.exactSynonyms };
}

/**
 * Papers whose title or abstract contains one of the names as a phrase: one query per name, sent
 * together, merged here by ranking score (each paper once). Word rules are those of paper
 * search: whole words, case and diacritics folded, no typos. Not Meilisearch's federated search:
 * measured here, it costs several times more than the queries themselves.
 */
export async function searchRelatedPapers(
  meili: Meilisearch,
  indexPrefix: string,
  names: string[],
  limit: number,
): Promise<Paper[]> {
  if (limit === 0 || names.length === 0) return [];
  const uid = indexUid(indexPrefix, "papers");
  const queries = names.map((name) => ({
    q: `"${name.replaceAll('"', " ")}"`,
    attributesToSearchOn: ["title", "abstract"],
    matchingStrategy: "all",
    attributesToRetrieve: PAPER_HIT_FIELDS,
    showRankingScore: true,
    limit,
  }));
  // Sent at once: under load they leave in one multi-search (search-index/searchBatches.ts).
  const lists = await Promise.all(
    queries.map(async (query) => (await searchIndex<PaperHit & { _rankingScore?: number }>(meili, uid, query)).hits),
  );
  // A stable sort keeps the label's hits ahead of a synonym's at equal scores.
  const ranked = lists.flat().sort((a, b) => (b._rankingScore ?? 0) - (a._rankingScore ?? 0));
  const seen = new Set<string>();
  const papers: Paper[] = [];
  for (const hit of ranked) {
    const paper = fromPaperHit(hit);
    if (seen.has(paper.id)) continue;
    seen.add(paper.id);
    papers.push(paper);
    if (papers.length === limit) break;
  }
  return papers;
}
