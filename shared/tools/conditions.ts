import { Type as T } from "@sinclair/typebox";
import { getCondition, lookupCondition, PAPERS_DEFAULT, searchConditions } from "../conditions/lookup";
import { ConditionDetailSchema, ConditionLookupSchema, ConditionSearchSchema } from "../conditions/schemas";
import { SEARCH_DEFAULT } from "../conditions/searchInput";
import { Text } from "../core/text";
import { READ_ONLY } from "./annotations";
import { defineTool } from "./types";

/** Condition tools: the verbs of /api/v1/health/condition*, with its plan gate. */
const ConditionName = Text({
  minLength: 2,
  maxLength: 120,
  // At least two non-blank characters, as the REST route checks after trimming.
  pattern: "\\S.*\\S",
  description: "A condition or disease name (MONDO label or synonym); typos tolerated.",
});

export const getConditionReferenceTool = defineTool({
  name: "get_condition_reference",
  title: "Condition reference (MONDO)",
  description:
    "Resolves a condition name (typos tolerated) to its MONDO term: id, label, definition when available, synonyms, cross-references, parents, links, and up to `papers` related papers from our index (those whose title or abstract contains the label or an exact synonym as a phrase, best first; `papers.query.names` lists the phrases searched; 0 for none). Not found when nothing matches closely.",
  input: T.Object(
    {
      q: ConditionName,
      papers: T.Optional(
        T.Integer({ minimum: 0, maximum: 20, default: PAPERS_DEFAULT, description: "Related papers to return." }),
      ),
    },
    { additionalProperties: false },
  ),
  output: ConditionLookupSchema,
  annotations: READ_ONLY,
  scope: "papers:read",
  feature: "health",
  run: (ctx, input) => lookupCondition(ctx, input),
  render: (c) => `${c.info.label} (${c.info.id}); ${c.papers.data.length} related papers.`,
});

export const searchConditionsTool = defineTool({
  name: "search_conditions",
  title: "Search condition candidates",
  description:
    "Ranked MONDO candidates for a name or its beginning: exact label/synonym matches first (score 1), then typo-tolerant and prefix matches. `acceptable` says which get_condition_reference would resolve to. No match is an empty list.",
  input: T.Object(
    { q: ConditionName, limit: T.Optional(T.Integer({ minimum: 1, maximum: 50, default: SEARCH_DEFAULT })) },
    { additionalProperties: false },
  ),
  output: ConditionSearchSchema,
  annotations: READ_ONLY,
  scope: "papers:read",
  feature: "health",
  run: (ctx, input) => searchConditions(ctx, input),
  render: (s) => s.data.map((c) => `${c.id} ${c.label} (${c.match}, ${c.score.toFixed(2)})`).join("\n") || "No match.",
});

export const getConditionTool = defineTool({
  name: "get_condition",
  title: "One MONDO term by id",
  description:
    "A MONDO term by id (`MONDO:0004979` or `MONDO_0004979`) with synonyms, cross-references, parents and children.",
  input: T.Object(
    { mondoId: Text({ minLength: 1, maxLength: 200, description: "`MONDO:0004979` or `MONDO_0004979`." }) },
    { additionalProperties: false },
  ),
  output: ConditionDetailSchema,
  annotations: READ_ONLY,
  scope: "papers:read",
  feature: "health",
  run: (ctx, input) => getCondition(ctx, input),
  render: (c) => `${c.label} (${c.id}); ${c.parents.length} parents, ${c.children.length} children.`,
});
