import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Glob } from "bun";

/**
 * `git clone` + `bun install` + `bun run test` has to work with nothing beside the checkout. So no
 * code may reach the team folder that sits next to it (a `shared` folder above the checkout): tests read
 * test/fixtures/, and the service reads its shipped slices in shared/data/.
 *
 * A path escapes when it goes up out of the repository and into `shared`. Paths are resolved
 * against the file's directory when anchored there: import specifiers, `join(import.meta.dir, …)`
 * and `${import.meta.dir}/…`. Any other path is resolved against the repository root. That covers
 * `join(ROOT, …)`, paths relative to the working directory, shell scripts and config. Comment lines
 * are not code and are ignored.
 */

const ROOT = join(import.meta.dir, "../..");
const THIS_FILE = relative(ROOT, import.meta.path);
const DIRS = ["test", "scripts", "api", "shared", "workers", "search-index"];
const CODE = "{ts,tsx,js,mjs,cjs,json,lua,sh,sql,toml,yaml,yml}";
const ROOT_FILES = [".ci/run", "package.json", "bunfig.toml", "tsconfig.json", "compose.yaml", "Dockerfile"];
const SKIP = /(^|\/)(node_modules|\.data)\/|^test\/artifacts\//;

/**
 * The team folder's absolute path on the team's machines, assembled so this file does not name it.
 * Maintainer scripts that derive shipped data from the team's files take them as an argument.
 */
const TEAM_ABSOLUTE = ["", "work", "shared"].join("/");

/** Comment lines: JavaScript/TypeScript, and shell, TOML, YAML, SQL and Lua. */
const JS_COMMENT = /^\s*(\/\/|\/\*|\*)/;
const OTHER_COMMENT = /^\s*(#|--|\/\/)/;
/** String literals on one line of JavaScript/TypeScript. */
const LITERAL = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g;
/** A literal that starts with a run of `../` ending in `shared`, after an optional `${dir}/`. */
const UP_TO_SHARED = /^(?:\$\{\s*([\w.]+)\s*\}\/)?((?:\.\.\/)+)shared(?:\/|$)/;
/** A base that makes the literal relative to the file's own directory. */
const FILE_DIR = /^(import\.meta\.dir|import\.meta\.dirname|__dirname)$/;
/** Text just before a literal that makes it relative to the file's own directory. */
const FILE_ANCHORED =
  /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*|\brequire\s*\(\s*|(?:import\.meta\.dir(?:name)?|__dirname)\s*,\s*)$/;
/** In shell scripts and config, a run of `../` ending in `shared`, at a word start. */
const SHELL_UP_TO_SHARED = /(?<=^|[\s"'=:(])(?:\.\.\/)+shared(?=\/|["'\s)]|$)/;

/** Whether one line of a JS/TS file at `depth` directories below the root reaches outside it. */
function jsLineEscapes(line: string, depth: number): boolean {
  for (const literal of line.matchAll(LITERAL)) {
    const match = UP_TO_SHARED.exec(literal[0].slice(1, -1));
    if (!match) continue;
    const ups = (match[2] as string).length / 3;
    const fromFile = match[1] ? FILE_DIR.test(match[1]) : FILE_ANCHORED.test(line.slice(0, literal.index));
    if (ups > (fromFile ? depth : 0)) return true;
  }
  return false;
}

/** The lines of `source` (a file at `file`, relative to the repository) that reach outside it. */
function escapingLines(file: string, source: string): string[] {
  const depth = file.split("/").length - 1;
  const jsLike = /\.(ts|tsx|js|mjs|cjs)$/.test(file);
  const found: string[] = [];
  source.split("\n").forEach((line, index) => {
    if ((jsLike ? JS_COMMENT : OTHER_COMMENT).test(line)) return;
    const escapes =
      line.includes(TEAM_ABSOLUTE) || (jsLike ? jsLineEscapes(line, depth) : SHELL_UP_TO_SHARED.test(line));
    if (escapes) found.push(`${file}:${index + 1}: ${line.trim()}`);
  });
  return found;
}

function filesToCheck(): string[] {
  const files = DIRS.flatMap((dir) => [...new Glob(`${dir}/**/*.${CODE}`).scanSync({ cwd: ROOT, dot: true })]);
  return [...files, ...ROOT_FILES.filter((file) => existsSync(join(ROOT, file)))]
    .filter((file) => file !== THIS_FILE && !SKIP.test(file))
    .sort();
}

describe("self-contained checkout", () => {
  const found = new Map<string, string[]>();
  for (const file of filesToCheck()) {
    const lines = escapingLines(file, readFileSync(join(ROOT, file), "utf8"));
    if (lines.length > 0) found.set(file, lines);
  }

  test("no code reads the team folder beside the checkout", () => {
    expect([...found.values()].flat()).toEqual([]);
  });

  test("the check catches the ways a path leaves the repository, and nothing that stays inside", () => {
    // `{up}` is one `../`, `{team}` the absolute team folder: written so, this file names neither.
    const line = (text: string) => text.replaceAll("{up}", "../").replaceAll("{team}", TEAM_ABSOLUTE);
    const escapes = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a line of source as text, not a template
      ["test/integration/a.test.ts", "const t = Bun.file(`${import.meta.dir}/{up}{up}{up}shared/data/x.jsonl`);"],
      ["test/helpers/a.ts", 'const RECORDED = join(import.meta.dir, "{up}{up}{up}shared/data/medications");'],
      ["scripts/a.ts", 'const IN = resolve(process.argv[2] ?? join(ROOT, "{up}shared/data/mondo"));'],
      ["scripts/lib/a.ts", 'const file = Bun.file("{up}shared/data/arxiv/papers.jsonl.gz");'],
      ["shared/core/a.ts", 'const dir = "{team}/data";'],
      [".ci/run", "cp -r {up}shared/data /tmp/data"],
    ].map(([file, text]) => [file, line(text as string)]);
    const stays = [
      ["test/unit/a.test.ts", 'import { parseEnv } from "{up}{up}shared/core/env";'],
      ["scripts/lib/a.ts", 'export const DEMO = join(import.meta.dir, "{up}{up}shared/data/papers/demo.jsonl.gz");'],
      ["api/routes/health/a.ts", 'import { AppError } from "{up}{up}{up}shared/core/errors";'],
      ["scripts/a.ts", " * Reads {up}shared/data/mondo by default (a comment, not a read)."],
      ["test/unit/a.test.ts", 'const sample = "The contract is `{up}shared/spec/service-spec.md`.";'],
      ["test/helpers/a.ts", 'const path = "{up}{up}etc/passwd";'],
    ].map(([file, text]) => [file, line(text as string)]);
    expect(escapes.filter(([file, line]) => escapingLines(file as string, line as string).length === 0)).toEqual([]);
    expect(stays.filter(([file, line]) => escapingLines(file as string, line as string).length > 0)).toEqual([]);
  });
});
