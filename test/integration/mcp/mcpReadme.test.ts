import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { TOOLS } from "../../../shared/toolCatalog";

/**
 * The tool table of docs/mcp.md (under the heading `## Tools`) and the catalog agree: the same
 * names in the same order, the same read-only flags, and every row names a REST twin or `—`.
 */
const PAGE = join(import.meta.dir, "../../../docs/mcp.md");
const HEADING = "## Tools";

interface Row {
  name: string;
  readOnly: string;
  twin: string;
}

function toolTable(markdown: string): Row[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === HEADING);
  if (start === -1) throw new Error(`docs/mcp.md has no "${HEADING}" heading`);
  const rows: Row[] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
    const name = /^`([a-z0-9_]+)`$/.exec(cells[0] ?? "")?.[1];
    if (!name) continue; // the header and separator rows
    rows.push({ name, readOnly: cells[2] ?? "", twin: cells[3] ?? "" });
  }
  return rows;
}

describe("MCP tool table in docs/mcp.md", () => {
  test("lists every tool of the catalog, in order, with its read-only flag and a REST twin column", async () => {
    const rows = toolTable(await Bun.file(PAGE).text());
    expect(rows.map((row) => row.name)).toEqual(TOOLS.map((tool) => tool.name));
    for (const [index, tool] of TOOLS.entries()) {
      const row = rows[index] as Row;
      expect(`${row.name}: ${row.readOnly}`).toBe(`${tool.name}: ${tool.annotations.readOnlyHint ? "yes" : "no"}`);
      expect(row.twin === "—" || /^`(GET|POST|PATCH|DELETE) \/api\/v1\//.test(row.twin)).toBe(true);
    }
    expect(rows).toHaveLength(36);
  });
});
