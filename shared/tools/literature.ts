import { Type as T } from "@sinclair/typebox";
import { searchAdvanced } from "../../search-index/advancedSearch";
import { ConditionLookupSchema } from "../conditions/schemas";
import { PaginationSchema } from "../papers/page";
import { type Paper, PaperSchema } from "../papers/record";
import { lookupCondition } from "../services/conditions";
import { unavailable } from "../services/unavailable";
import { defineTool, type ToolContext } from "./types";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const conditionsCtx = (ctx: ToolContext) => ({
  sql: ctx.deps.sql,
  meili: ctx.deps.meili,
  indexPrefix: ctx.deps.env.MEILI_INDEX_PREFIX,
});

export const getConditionReferenceTool = defineTool({
  name: "get_condition_reference",
  title: "Condition reference (MONDO)",
  description:
    "Resolves a condition name (typos tolerated) to its MONDO term: id, label, definition when available, synonyms, cross-references, parents, links, and related papers from our index. Not found when nothing matches closely.",
  input: T.Object(
    {
      q: T.String({ minLength: 2, maxLength: 120, description: "A condition or disease name." }),
      papers: T.Optional(T.Integer({ minimum: 0, maximum: 20, default: 5 })),
    },
    { additionalProperties: false },
  ),
  output: ConditionLookupSchema,
  annotations: READ_ONLY,
  feature: "health",
  run: (ctx, input) => lookupCondition(conditionsCtx(ctx), input),
  render: (c) => `${c.info.label} (${c.info.id}); ${c.papers.data.length} related papers.`,
});

const SearchOutput = T.Object({
  query: T.Object({
    text: T.String({ description: "The words actually searched." }),
    widened: T.Boolean({ description: "True when trailing words were dropped because all of them matched nothing." }),
  }),
  data: T.Array(PaperSchema),
  pagination: PaginationSchema,
});

/**
 * Literature search over our own paper index: every word must match a whole word somewhere in the
 * paper (title, abstract, authors, …). A question rarely matches in full, so when nothing matches
 * the last word is dropped (down to one word) and the response says so.
 */
export const searchPapersTool = defineTool({
  name: "search_papers",
  title: "Search research papers",
  description:
    "Searches our index of arXiv paper metadata (titles, abstracts, authors, categories, journal refs). Give a few keywords; every word must match. Returns papers with links.",
  input: T.Object(
    {
      query: T.String({ minLength: 1, maxLength: 300, pattern: "\\S" }),
      limit: T.Optional(T.Integer({ minimum: 1, maximum: 20, default: 5 })),
    },
    { additionalProperties: false },
  ),
  output: SearchOutput,
  annotations: READ_ONLY,
  run: async (ctx, input) => {
    const words = input.query.trim().split(/\s+/);
    for (let count = words.length; count >= 1; count--) {
      const text = words.slice(0, count).join(" ");
      const page = await searchAdvanced(ctx.deps.meili, ctx.deps.env.MEILI_INDEX_PREFIX, {
        filters: { all: text },
        page: 0,
        limit: input.limit ?? 5,
        sortBy: "relevance",
        sortOrder: "descending",
      }).catch(unavailable("Meilisearch"));
      const data = JSON.parse(page.data) as Paper[];
      if (data.length > 0 || count === 1) {
        return { query: { text, widened: count < words.length }, data, pagination: page.pagination };
      }
    }
    throw new Error("unreachable: the loop always returns");
  },
  render: (r) => r.data.map((p) => `${p.title} (${p.links.abs})`).join("\n") || "No papers matched.",
});
