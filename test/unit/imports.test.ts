import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";
import {
  folderCycles,
  foreignRepositoryImports,
  type ImportEdge,
  importEdges,
  importsLeaving,
  nodeOf,
  topLevelEdges,
  upwardImports,
} from "../helpers/importGraph";

const ROOT = join(import.meta.dir, "../..");
const SERVICE = ["api", "workers", "shared", "search-index", "scripts"] as const;

/**
 * The layers of shared/, from the bottom. A folder imports its own layer or lower ones, and no two
 * folders import each other (the cycle check). search-index/ lies under all of shared/ (it imports
 * only npm packages); api/, workers/ and scripts/ sit on top.
 */
const LAYERS = [
  ["search-index"],
  ["shared/core", "shared/data"],
  ["shared/db", "shared/storage", "shared/llm", "shared/records"],
  ["shared/jobs"],
  ["shared/metrics"],
  ["shared/events", "shared/ratelimit"],
  ["shared/context"],
  [
    "shared/auth",
    "shared/papers",
    "shared/health",
    "shared/labs",
    "shared/conversations",
    "shared/references",
    "shared/conditions",
    "shared/uploads",
    "shared/transcription",
    "shared/system",
    "shared/indexing",
    "shared/safety",
    "shared/healthRecords",
  ],
  // Share links read the whole record across domains (profile, imported records, labs, logs).
  ["shared/sharing"],
  ["shared/tools"],
  ["shared/chat"],
  ["shared/toolCatalog.ts"],
];

const edges = importEdges(ROOT, SERVICE);

/**
 * Imports of another domain's repository that are allowed. The ingest writes the papers and the
 * MONDO terms in bulk, PostgreSQL first and then the search index, as one step per batch
 * (docs/architecture.md#search). scripts/ (seeding, reindexing, the admin CLI's reads) is not held
 * to the rule: it runs outside any request, over whole tables.
 */
const REPOSITORY_ALLOWANCES = { "shared/indexing": ["shared/papers", "shared/conditions"] };

describe("import direction", () => {
  test("no two folders import each other, directly or through others", () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  test("no two top folders (api, workers, shared, search-index, scripts) import each other", () => {
    expect(folderCycles(topLevelEdges(edges))).toEqual([]);
  });

  test("search-index/ imports only npm packages: its settings, Redis and metrics come in as arguments", () => {
    expect(importsLeaving(edges, "search-index")).toEqual([]);
  });

  test("nothing in shared/ imports a higher layer", () => {
    expect(upwardImports(edges, LAYERS)).toEqual([]);
  });

  test("every folder of shared/ has a layer", () => {
    const nodes = new Set(edges.flatMap((edge) => [edge.from, edge.to]).filter((node) => node.startsWith("shared")));
    const placed = new Set(LAYERS.flat());
    expect([...nodes].filter((node) => !placed.has(node))).toEqual([]);
  });

  test("shared/ and search-index/ import nothing from api/, workers/, scripts/ or test/", () => {
    const outward = edges.filter(
      (edge) =>
        /^(shared|search-index)/.test(edge.from) && /^(api|workers|scripts|test)(\/|$)/.test(nodeOf(edge.target)),
    );
    expect(outward).toEqual([]);
  });

  test("api/ and workers/ do not import each other", () => {
    const across = edges.filter(
      (edge: ImportEdge) =>
        (edge.from.startsWith("api") && edge.to.startsWith("workers")) ||
        (edge.from.startsWith("workers") && edge.to.startsWith("api")),
    );
    expect(across).toEqual([]);
  });

  test("a repository imports only core/, db/, records/ and its own folder's schemas (never a verb)", () => {
    const allowed = (edge: { file: string; target: string }) =>
      /^shared\/(core|db|records)\//.test(edge.target) || edge.target === join(edge.file, "..", "schemas.ts");
    const offending: string[] = [];
    for (const file of new Glob("shared/**/*{repository,Repository}.ts").scanSync(ROOT)) {
      for (const edge of [...importEdges(ROOT, [file]), ...sameFolderImports(file)]) {
        if (!allowed(edge)) offending.push(`${edge.file} → ${edge.target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  test("the checker finds a planted upward import and names its files", () => {
    const fixture = join(import.meta.dir, "../fixtures/imports");
    const planted = importEdges(fixture, ["shared"]);
    expect(folderCycles(planted)).toEqual([
      [
        "shared/core ↔ shared/papers: shared/core/log.ts → shared/papers/verbs.ts",
        "shared/papers ↔ shared/core: shared/papers/verbs.ts → shared/core/log.ts",
      ],
    ]);
    expect(upwardImports(planted, LAYERS)).toEqual([
      "shared/core → shared/papers: shared/core/log.ts → shared/papers/verbs.ts",
    ]);
  });

  test("the checker finds search-index/ importing shared/ and the two top folders importing each other", () => {
    const planted = importEdges(join(import.meta.dir, "../fixtures/imports"), ["shared", "search-index"]);
    const leak = "search-index/answerCache.ts → shared/core/log.ts";
    expect(importsLeaving(planted, "search-index")).toEqual([`search-index → shared/core: ${leak}`]);
    expect(folderCycles(topLevelEdges(planted))).toEqual([
      [
        "shared ↔ search-index: shared/papers/search.ts → search-index/answerCache.ts",
        `search-index ↔ shared: ${leak}`,
      ],
    ]);
  });

  test("no domain imports another domain's repository: it calls that domain's verbs", () => {
    const service = edges.filter((edge) => !edge.from.startsWith("scripts"));
    expect(foreignRepositoryImports(service, REPOSITORY_ALLOWANCES)).toEqual([]);
  });

  test("the checker finds a planted import of another domain's repository and names its files", () => {
    const planted = importEdges(join(import.meta.dir, "../fixtures/repositoryImports"), ["api", "shared"]);
    expect(foreignRepositoryImports(planted, REPOSITORY_ALLOWANCES).sort()).toEqual([
      "api/routes → shared/auth: api/routes/login.ts → shared/auth/accountRepository.ts",
      "shared/chat → shared/uploads: shared/chat/attach.ts → shared/uploads/repository.ts",
    ]);
    expect(foreignRepositoryImports(planted)).toContain(
      "shared/indexing → shared/papers: shared/indexing/papers.ts → shared/papers/repository.ts",
    );
  });

  test("only shared/core/env.ts reads process.env in service code", async () => {
    const readers: string[] = [];
    for (const dir of ["api", "workers", "shared", "search-index"]) {
      for await (const file of new Glob(`${dir}/**/*.ts`).scan(ROOT)) {
        if (/process\.env\b/.test(readFileSync(join(ROOT, file), "utf8"))) readers.push(file);
      }
    }
    expect(readers).toEqual(["shared/core/env.ts"]);
  });
});

/** Imports of a file inside its own folder (importEdges keeps only those between folders). */
function sameFolderImports(file: string): { file: string; target: string }[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/from\s*"(\.\/[^"]+)"/g)].map((match) => ({
    file,
    target: `${join(file, "..", match[1] as string)}.ts`,
  }));
}
