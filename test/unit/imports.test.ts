import { describe, expect, test } from "bun:test";
import { Glob } from "bun";

/** Imports point one way: api/ and workers/ use shared/ and search-index/; never the reverse. */
const RULES: { from: string; mayNotImport: string[] }[] = [
  { from: "shared", mayNotImport: ["api", "workers", "scripts", "test"] },
  { from: "search-index", mayNotImport: ["api", "workers", "scripts", "test"] },
  { from: "api", mayNotImport: ["workers", "scripts", "test"] },
  { from: "workers", mayNotImport: ["api", "scripts", "test"] },
];

const IMPORT =
  /(?:import|export)[^"']*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;

async function importsOf(dir: string): Promise<{ file: string; target: string }[]> {
  const found: { file: string; target: string }[] = [];
  for await (const file of new Glob(`${dir}/**/*.ts`).scan(".")) {
    const text = await Bun.file(file).text();
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec?.startsWith(".")) continue;
      const resolved = new URL(spec, `file:///${file}`).pathname.slice(1);
      found.push({ file, target: resolved.split("/")[0] as string });
    }
  }
  return found;
}

describe("import direction", () => {
  test.each(RULES)("$from imports none of $mayNotImport", async ({ from, mayNotImport }) => {
    const offending = (await importsOf(from)).filter(({ target }) => mayNotImport.includes(target));
    expect(offending).toEqual([]);
  });

  test("only shared/env.ts reads process.env in service code", async () => {
    const readers: string[] = [];
    for (const dir of ["api", "workers", "shared", "search-index"]) {
      for await (const file of new Glob(`${dir}/**/*.ts`).scan(".")) {
        if (/process\.env\b/.test(await Bun.file(file).text())) readers.push(file);
      }
    }
    expect(readers).toEqual(["shared/env.ts"]);
  });
});
