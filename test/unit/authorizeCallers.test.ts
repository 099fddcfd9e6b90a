import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

/**
 * Authorization is one check, `authorize` (shared/auth/authorize.ts): the rules it applies, the
 * scope rule and the plan rule, are called from shared/auth/ only, so no adapter can check one and
 * forget another, or check them in another order. And the check is asynchronous (consent is a
 * database read), so a call that is not awaited would let everything through: every call is awaited.
 */
const ROOT = join(import.meta.dir, "../..");
const SERVICE = ["api", "workers", "shared", "search-index"];
const RULES = /\b(missingScope|requireFeature|holdsScopes|requireScopes)\b/g;

/** The rules a file outside shared/auth/ names (comments too: a rule named is a rule about to be called). */
function rulesNamedIn(text: string): string[] {
  return [...new Set([...text.matchAll(RULES)].map((match) => match[1] as string))];
}

const CHECKS = new Set(["authorize", "isAuthorized", "authorized"]);
const IMPORT = /import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g;

/** Calls of the check (as imported from shared/auth/authorize.ts or api/mcp/errors.ts) not awaited. */
function unawaitedChecks(text: string): string[] {
  const names = [...text.matchAll(IMPORT)]
    .filter((match) => /(auth\/authorize|\.\/errors)$/.test(match[2] as string))
    .flatMap((match) => (match[1] as string).split(",").map((name) => name.replace(/^\s*type\s+/, "").trim()))
    .filter((name) => CHECKS.has(name));
  const unawaited: string[] = [];
  for (const name of names) {
    for (const call of text.matchAll(new RegExp(`(^|[^.\\w])${name}\\(`, "g"))) {
      const before = text.slice(0, call.index + (call[1] as string).length);
      if (!/(await|return)\s*\(*\s*$/.test(before)) unawaited.push(`${name}(…) at offset ${call.index}`);
    }
  }
  return unawaited;
}

const sources = () =>
  SERVICE.flatMap((dir) => [...new Glob(`${dir}/**/*.ts`).scanSync(ROOT)]).map((file) => ({
    file,
    text: readFileSync(join(ROOT, file), "utf8"),
  }));

describe("one authorization check", () => {
  test("only shared/auth/ applies the scope and plan rules; everyone else asks authorize", () => {
    const offending = sources()
      .filter(({ file }) => !file.startsWith("shared/auth/"))
      .flatMap(({ file, text }) => rulesNamedIn(text).map((rule) => `${file}: ${rule}`));
    expect(offending).toEqual([]);
  });

  test("every call of the check is awaited", () => {
    const unawaited = sources().flatMap(({ file, text }) => unawaitedChecks(text).map((call) => `${file}: ${call}`));
    expect(unawaited).toEqual([]);
  });

  test("the checkers find a planted direct rule and a planted unawaited check", () => {
    const planted = [
      'import { authorize } from "../../shared/auth/authorize";',
      'import { requireFeature } from "../../shared/auth/access";',
      "export async function step(ctx) {",
      '  if (missingScope(ctx, "chat")) return;',
      "  requireFeature(ctx.plans, ctx, 'health');",
      "  authorize(ctx, { feature: 'health' });",
      "  await authorize(ctx, { scope: 'chat' });",
      "  return authorize(ctx, {});",
      "}",
    ].join("\n");
    expect(rulesNamedIn(planted)).toEqual(["requireFeature", "missingScope"]);
    expect(unawaitedChecks(planted)).toHaveLength(1);
  });
});
