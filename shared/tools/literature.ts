import { Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { searchPapersFielded } from "../papers/catalog";
import { PaginationSchema, papersOf } from "../papers/page";
import { PaperSchema } from "../records/paper";
import { READ_ONLY } from "./annotations";
import { defineTool } from "./types";

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
      query: Text({ minLength: 1, maxLength: 300, pattern: "\\S" }),
      limit: T.Optional(T.Integer({ minimum: 1, maximum: 20, default: 5 })),
    },
    { additionalProperties: false },
  ),
  output: SearchOutput,
  annotations: READ_ONLY,
  scope: "papers:read",
  run: async (ctx, input) => {
    const words = input.query.trim().split(/\s+/);
    let count = words.length;
    for (;;) {
      const text = words.slice(0, count).join(" ");
      const { page } = await searchPapersFielded(ctx, { filters: { all: text }, limit: input.limit ?? 5 });
      const data = papersOf(page);
      if (data.length > 0 || count === 1) {
        return { query: { text, widened: count < words.length }, data, pagination: page.pagination };
      }
      count -= 1;
    }
  },
  render: (r) => r.data.map((p) => `${p.title} (${p.links.abs})`).join("\n") || "No papers matched.",
});
