/**
 * The endpoint index of docs/api.md, rendered from /openapi.json so the page cannot drift from
 * the routes: one row per operation with its auth, summary and the page that explains it.
 */
type Operation = {
  summary: string;
  tags?: string[];
  security: Record<string, unknown>[];
  responses: Record<string, unknown>;
};
export type Doc = { paths: Record<string, Record<string, Operation>> };

export const INDEX_START =
  "<!-- endpoint index: generated from /openapi.json by test/integration/api/openapi.test.ts -->";
export const INDEX_END = "<!-- end of endpoint index -->";

/** Which docs page explains each tag. */
const PAGE_OF_TAG: Record<string, string> = {
  Service: "[api](#the-openapi-document)",
  System: "[operations](operations.md#health-checks)",
  Account: "[limits](errors-and-limits.md#rate-limits)",
  Papers: "[papers](api-papers.md)",
  Health: "[health](api-health.md)",
  "Health reference": "[references](api-references.md)",
  "Health chat": "[chat](api-chat.md)",
  Chats: "[chat](api-chat.md#conversations)",
  Uploads: "[uploads](api-uploads.md)",
  MCP: "[MCP](mcp.md)",
  OAuth: "[MCP: OAuth](mcp.md#oauth)",
  Website: "[website](website.md)",
  "Website pages": "[website](website.md)",
};

function authOf(operation: Operation): string {
  const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes("session")) return "session";
  if (schemes.length > 0) return "key";
  return "none";
}

/** Statuses every operation can answer, named once under the table instead of on every row. */
const EVERYWHERE = ["400", "413", "414", "431", "500", "503"];

function statusesOf(operation: Operation): string {
  return Object.keys(operation.responses)
    .filter((status) => !EVERYWHERE.includes(status))
    .join(", ");
}

export function renderIndex(doc: Doc): string {
  const rows = ["| method and path | auth | what | statuses | documented in |", "|---|---|---|---|---|"];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? "";
      const page = PAGE_OF_TAG[tag];
      if (!page) throw new Error(`${method.toUpperCase()} ${path}: tag "${tag}" has no docs page in apiIndex.ts`);
      const summary = operation.summary.replaceAll("|", "\\|");
      rows.push(
        `| \`${method.toUpperCase()} ${path}\` | ${authOf(operation)} | ${summary} | ${statusesOf(operation)} | ${page} |`,
      );
    }
  }
  const note = `Every operation can also answer ${EVERYWHERE.join(", ")} (a malformed request, a body over its limit, a URL or headers over theirs, an unexpected error, a dependency down).`;
  return [INDEX_START, ...rows, "", note, INDEX_END].join("\n");
}

/** The page with its index section replaced by `index`. */
export function withIndex(page: string, index: string): string {
  const start = page.indexOf(INDEX_START);
  const end = page.indexOf(INDEX_END);
  if (start < 0 || end < start) throw new Error("docs/api.md has no endpoint index markers");
  return page.slice(0, start) + index + page.slice(end + INDEX_END.length);
}
