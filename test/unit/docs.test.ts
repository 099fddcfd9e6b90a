import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { EnvSchema } from "../../shared/core/env";
import { ERROR_KINDS } from "../../shared/core/errors";

/**
 * The README and docs/ state what is true now: their links resolve, the configuration table is the
 * env schema, the error table is ERROR_KINDS, every page opens with a summary, and no page tells
 * the story of how the code got here. No network, no servers.
 */
const ROOT = join(import.meta.dir, "../..");
const DOCS = join(ROOT, "docs");

/** README.md and every docs/*.md, as paths relative to the repository root. */
function markdownFiles(): string[] {
  const pages = readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages];
}

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

// --- Markdown helpers --------------------------------------------------------------------------

/** Lines outside fenced code blocks (``` or ~~~), with their line numbers. */
function proseLines(markdown: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      return;
    }
    if (!fence) out.push({ line, number: index + 1 });
  });
  return out;
}

/** A line without its inline code spans (a `[x](y)` inside backticks is not a link). */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, (span) => " ".repeat(span.length));
}

/**
 * GitHub's heading anchor: the heading's text (inline code and links reduced to their text),
 * lower-cased, every character that is not a letter, digit, mark, space, `-` or `_` dropped, and
 * each space turned into `-`. A repeated slug gets `-1`, `-2`, … in order.
 */
function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a markdown text defines: its headings' slugs (with GitHub's duplicate suffixes). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every link target of a markdown text: inline links and images, and reference definitions. */
function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { line, number } of proseLines(markdown)) {
    const text = withoutCodeSpans(line);
    for (const match of text.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1] as string, line: number });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text);
    if (definition) links.push({ target: definition[1] as string, line: number });
  }
  return links;
}

/** What a link may point at: a markdown file's text, another file, a directory, or nothing. */
type Target = { kind: "markdown"; text: string } | { kind: "file" } | { kind: "dir" } | undefined;

interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/**
 * The relative links and anchors of `file` (a path relative to the repository root) that do not
 * resolve. External links (`https:`, `mailto:` …) are not checked; an anchor is checked only in a
 * markdown target.
 */
function brokenLinks(file: string, markdown: string, lookup: (path: string) => Target): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const { target, line } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf("#");
    const pathPart = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    let resolved: Target;
    if (pathPart === "") {
      resolved = { kind: "markdown", text: markdown };
    } else {
      const path = normalize(join(dirname(file), decodeURIComponent(pathPart))).replace(/\/$/, "");
      if (path.startsWith("..")) {
        broken.push({ file, line, target, reason: "points outside the repository" });
        continue;
      }
      resolved = lookup(path);
      if (!resolved) {
        broken.push({ file, line, target, reason: `no file ${path}` });
        continue;
      }
    }
    if (anchor !== undefined && resolved.kind === "markdown" && !anchorsOf(resolved.text).has(anchor)) {
      broken.push({ file, line, target, reason: `no heading with anchor #${anchor}` });
    }
  }
  return broken;
}

/** Looks paths up in this repository. */
function repositoryLookup(path: string): Target {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  if (statSync(full).isDirectory()) return { kind: "dir" };
  return path.endsWith(".md") ? { kind: "markdown", text: readFileSync(full, "utf8") } : { kind: "file" };
}

/** The rows of the first table after `heading` (up to the next heading), as trimmed cells. */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) throw new Error(`no "${heading}" heading`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    // An escaped pipe (`\|`) is part of a cell, not a separator.
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.replace(/\\\|/g, "|").trim());
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    rows.push(cells);
  }
  return rows.slice(1);
}

// --- Tests -------------------------------------------------------------------------------------

describe("links", () => {
  test("every relative link and anchor in README.md and docs/*.md resolves", () => {
    const broken = markdownFiles().flatMap((file) => brokenLinks(file, read(file), repositoryLookup));
    expect(broken.map((b) => `${b.file}:${b.line} ${b.target}: ${b.reason}`)).toEqual([]);
  });

  test("the checker reports a missing file and a missing anchor", () => {
    const pages: Record<string, string> = {
      "docs/a.md": "# Page A\n\n## Rate limits\n\nText.\n",
    };
    const lookup = (path: string): Target =>
      path in pages ? { kind: "markdown", text: pages[path] as string } : path === "docs" ? { kind: "dir" } : undefined;
    const markdown = [
      "# Index",
      "",
      "See [limits](a.md#rate-limits), [the top](#index) and [code](https://example.com/x.md#nothing).",
      "A [missing page](missing.md) and [a missing anchor](a.md#rate-limit) and [here](#nowhere).",
      "",
      "```md",
      "[inside a fence](ignored.md)",
      "```",
      "And `[inline code](ignored.md)` is not a link.",
    ].join("\n");
    const broken = brokenLinks("docs/index.md", markdown, lookup);
    expect(broken.map((b) => [b.line, b.target, b.reason])).toEqual([
      [4, "missing.md", "no file docs/missing.md"],
      [4, "a.md#rate-limit", "no heading with anchor #rate-limit"],
      [4, "#nowhere", "no heading with anchor #nowhere"],
    ]);
  });

  test("anchors follow GitHub's slug rule", () => {
    expect(githubSlug("Errors, rate limits and plans")).toBe("errors-rate-limits-and-plans");
    expect(githubSlug("Models, routing and providers")).toBe("models-routing-and-providers");
    expect(githubSlug("`stream: true` (SSE)")).toBe("stream-true-sse");
    expect(githubSlug("10-minute soak, ×1")).toBe("10-minute-soak-1");
    expect([...anchorsOf("## Notes\n\n## Notes\n\n```\n## not a heading\n```\n")]).toEqual(["notes", "notes-1"]);
  });
});

describe("configuration table", () => {
  test("docs/operations.md lists exactly the variables of shared/core/env.ts", () => {
    const rows = tableAfter(read("docs/operations.md"), "## Configuration");
    const documented = rows.flatMap((row) => [...(row[0] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
    const schema = Object.keys(EnvSchema.properties);
    expect(documented.filter((name, index) => documented.indexOf(name) !== index)).toEqual([]);
    expect([...documented].sort()).toEqual([...schema].sort());
  });
});

describe("error table", () => {
  test("docs/errors-and-limits.md lists exactly ERROR_KINDS, each with its status", () => {
    const rows = tableAfter(read("docs/errors-and-limits.md"), "## Error codes");
    const documented = Object.fromEntries(
      rows.map((row) => [/^`([A-Z_]+)`$/.exec(row[0] ?? "")?.[1] ?? row[0], Number(row[1])]),
    );
    const kinds = Object.fromEntries(Object.entries(ERROR_KINDS).map(([kind, { status }]) => [kind, status]));
    expect(documented).toEqual(kinds);
  });
});

describe("pages", () => {
  test("the README is a front page of at most 250 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(251);
  });

  test("every docs page opens with a title and a summary paragraph", () => {
    const without: string[] = [];
    for (const file of markdownFiles().filter((f) => f.startsWith("docs/"))) {
      const blocks = read(file)
        .split(/\n\s*\n/)
        .map((block) => block.trim())
        .filter(Boolean);
      const [title, summary] = blocks;
      if (!/^# \S/.test(title ?? "") || !summary || /^(#|\||```|- |\* |> |!\[)/.test(summary)) without.push(file);
    }
    expect(without).toEqual([]);
  });

  /** Words that tell the story of the work rather than the state of the code. */
  const HISTORY_MARKERS: RegExp[] = [
    /\bsession\s+\d+/i,
    /\bissue\s*#?\s*\d+/i,
    /\bstop\s+\d+\b/i,
    /\b(?:a|the|this)\s+(?:later|next|previous|earlier|hardening|chat|upload)\s+issues?\b/i,
    /\bissue\s+\d+'s\b/i,
    /\b\d{1,2}:\d{2}(?:\s*[–-]\s*\d{1,2}:\d{2})?\s*UTC\b/,
    /\bat the time of writing\b/i,
    /\b(?:before|after) the fix\b/i,
    /\.\.\/shared\/spec\//,
    // The story of a change: machines, layouts and versions that were, and what a rework found.
    /\b(?:earlier|later|previous|older|former)\s+(?:machines?|layouts?|versions?|runs?|releases?|designs?|code)\b/i,
    /\breorgani[sz]/i,
    /\bwhat (?:was|we) found\b/i,
    /\blayout change\b/i,
    /\b(?:first|second|original)\s+(?:attempt|draft|implementation)\b/i,
  ];

  test("no page tells history (session or issue numbers, times of work runs, before/after)", () => {
    const found: string[] = [];
    for (const file of markdownFiles()) {
      for (const { line, number } of read(file)
        .split("\n")
        .map((text, index) => ({ line: text, number: index + 1 }))) {
        const marker = HISTORY_MARKERS.find((pattern) => pattern.test(line));
        if (marker) found.push(`${file}:${number}: ${line.trim()}`);
      }
    }
    expect(found).toEqual([]);
  });

  test("the history check catches the markers it is meant to", () => {
    const samples = [
      "Measurements: docs/benchmarks.md, session 18.",
      "The dashboard is a later issue.",
      "Issue 9's load test",
      "see issue #12",
      "stop 1 of the plan",
      "a run at 18:01–18:12 UTC",
      `The contract is \`${["..", "shared", "spec", "service-spec.md"].join("/")}\`.`,
      "the earlier machine: 42k req/s",
      "Layout change: no regression.",
      "What was found. The first reorganised version was slower.",
      "The previous layout kept the keys elsewhere.",
      "our first attempt cached nothing",
    ];
    expect(samples.filter((sample) => !HISTORY_MARKERS.some((pattern) => pattern.test(sample)))).toEqual([]);
    expect(HISTORY_MARKERS.some((pattern) => pattern.test("The session cookie expires after 30 days."))).toBe(false);
  });
});
