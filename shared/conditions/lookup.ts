import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { unavailable } from "../core/unavailable";
import { foldName, isExactSynonym, normalizeMondoId } from "../records/conditionTerm";
import type { LookupCache } from "./lookupCache";
import { findConditionWithNeighbours, type TermRef } from "./repository";
import type { ConditionDetail, ConditionInfo, ConditionLookup, ConditionSearch } from "./schemas";
import { type ConditionHit, searchConditionCandidates, searchRelatedPapers } from "./search/query";
import { conditionName, type NameInput, SEARCH_DEFAULT } from "./searchInput";
import { mondoLinks, resolveXref } from "./xrefs";

/**
 * Condition verbs of the REST routes (api/routes/health/conditions.ts) and the MCP tools alike.
 * Searches read the index prefix from the environment.
 */

/**
 * A ranked (non-exact) match resolves a lookup only when every query word matched a whole word of
 * the term's label or synonyms with at most this many typos in all. Ranking scores alone cannot
 * say this: a one-typo match ("diabetis") scores far below a prefix match ("flu" → "flushing of
 * ears…") and below a match that dropped a word ("asthma attack").
 */
export const MAX_TYPOS = 1;
/** Ranked candidates a lookup considers; the first acceptable one wins. */
const LOOKUP_CANDIDATES = 10;
export const PAPERS_DEFAULT = 5;
const PAPER_FIELDS = ["title", "abstract"];
/** The label and up to this many exact synonyms are searched in papers (one phrase query each). */
const PAPER_NAMES_MAX = 5;

const SOURCE = {
  name: "Mondo Disease Ontology",
  license: "CC BY 4.0",
  url: "https://mondo.monarchinitiative.org/",
} as const;

export function isAcceptable(hit: ConditionHit): boolean {
  const { allWords, typos, prefixOnly } = hit.closeness;
  return hit.match !== "ranked" || (allWords && typos <= MAX_TYPOS && !prefixOnly);
}

/**
 * Resolves a free-text condition name to one MONDO term, with related papers from our index.
 * Resolution: an exact (folded) label or exact-synonym match, else the best-ranked acceptable
 * typo-tolerant match (see MAX_TYPOS); anything else is NOT_FOUND. With `conditionLookups` (the
 * REST routes pass theirs) repeated names are answered from that cache.
 */
export async function lookupCondition(
  ctx: Pick<SystemCtx, "sql" | "meili" | "env"> & { conditionLookups?: LookupCache<ConditionLookup> },
  input: NameInput & { papers?: number },
): Promise<ConditionLookup> {
  const q = conditionName(input);
  const papers = input.papers ?? PAPERS_DEFAULT;
  const key = `${papers}|${foldName(q)}`;
  const cached = ctx.conditionLookups?.get(key);
  if (cached === null) throw notFound(q);
  if (cached) return { ...cached, query: q };
  const found = await resolve(ctx, q, papers);
  ctx.conditionLookups?.set(key, found ?? null);
  if (!found) throw notFound(q);
  return found;
}

function notFound(q: string): AppError {
  return new AppError("NOT_FOUND", `No condition matches "${q}" closely enough.`);
}

async function resolve(
  ctx: Pick<SystemCtx, "sql" | "meili" | "env">,
  q: string,
  limit: number,
): Promise<ConditionLookup | undefined> {
  const candidates = await searchConditionCandidates(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, q, LOOKUP_CANDIDATES).catch(
    unavailable("Meilisearch"),
  );
  const best = candidates.find(isAcceptable);
  if (!best) return undefined;
  const names = distinctNames([best.label, ...best.exactSynonyms]).slice(0, PAPER_NAMES_MAX);
  const [term, papers] = await Promise.all([
    termInfo(ctx, best.id, false),
    searchRelatedPapers(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, names, limit).catch(unavailable("Meilisearch")),
  ]);
  return {
    query: q,
    info: { ...term.info, match: { by: best.match, score: best.score } },
    papers: { query: { names, fields: PAPER_FIELDS }, data: papers },
  };
}

/** Names that fold to the same words would search the same phrase twice. */
function distinctNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => {
    const key = foldName(name);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One term by MONDO id (`MONDO:0004979` or `MONDO_0004979`), with parents and children. */
export async function getCondition(ctx: Pick<SystemCtx, "sql">, input: { mondoId: string }): Promise<ConditionDetail> {
  const id = normalizeMondoId(input.mondoId);
  if (!id) throw new AppError("NOT_FOUND", `No condition with id ${input.mondoId}.`);
  const { info, children } = await termInfo(ctx, id, true, input.mondoId);
  return { ...info, children: children ?? [] };
}

/** Ranked candidates for a name: exact matches first (score 1), then typo-tolerant ones by score. */
export async function searchConditions(
  ctx: Pick<SystemCtx, "meili" | "env">,
  input: { q: string; limit?: number },
): Promise<ConditionSearch> {
  const q = conditionName({ q: input.q });
  const limit = input.limit ?? SEARCH_DEFAULT;
  const hits = await searchConditionCandidates(ctx.meili, ctx.env.MEILI_INDEX_PREFIX, q, limit).catch(
    unavailable("Meilisearch"),
  );
  return {
    query: q,
    data: hits.map((hit) => ({
      id: hit.id,
      label: hit.label,
      match: hit.match,
      score: hit.score,
      acceptable: isAcceptable(hit),
    })),
  };
}

async function termInfo(
  ctx: Pick<SystemCtx, "sql">,
  id: string,
  withChildren: boolean,
  asked = id,
): Promise<{ info: ConditionInfo; children: TermRef[] | null }> {
  const row = await findConditionWithNeighbours(ctx.sql, id, withChildren).catch(unavailable("PostgreSQL"));
  if (!row) throw new AppError("NOT_FOUND", `No condition with id ${asked}.`);
  const labelOf = new Map(row.parentRefs.map((ref) => [ref.id, ref.label]));
  return {
    children: row.children,
    info: {
      id: row.id,
      label: row.label,
      definition: row.definition,
      // Exact synonyms first: they are names of the condition; the others are only related.
      synonyms: [...row.synonyms].sort((a, b) => Number(isExactSynonym(b)) - Number(isExactSynonym(a))),
      xrefs: row.xrefs.map(resolveXref),
      parents: row.parents.map((parent) => ({ id: parent, label: labelOf.get(parent) ?? null })),
      links: mondoLinks(row.id),
      source: SOURCE,
    },
  };
}
