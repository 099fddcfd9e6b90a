import { CONDITION_BATCH_MAX, type ConditionTerm, type ParsedTerm } from "../records/conditionTerm";
import { parseJsonlTerm } from "./formats/jsonl";
import { parseObo } from "./formats/obo";
import { parseOboGraphs } from "./formats/obographs";

export type MondoFormat = "jsonl" | "obo" | "obographs";

export interface ReadResult {
  format: MondoFormat;
  terms: ParsedTerm[];
  invalid: { line: number; reason: string }[];
}

/**
 * Reads a MONDO file in any of the accepted formats, gzip or not, recognised by content rather
 * than by name. Whole-file: OBO Graphs JSON cannot be streamed with JSON.parse, and a full MONDO
 * release fits in memory easily.
 */
export function readMondo(bytes: Uint8Array<ArrayBuffer>): ReadResult {
  const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? Bun.gunzipSync(bytes) : bytes;
  const text = new TextDecoder().decode(raw);
  const start = text.trimStart();
  if (start.startsWith("{")) {
    const firstLine = start.slice(0, start.indexOf("\n") === -1 ? undefined : start.indexOf("\n"));
    if (isJsonlTerm(firstLine)) return readJsonl(text);
    return { format: "obographs", terms: parseOboGraphs(JSON.parse(text)), invalid: [] };
  }
  if (/^\[Term\]/m.test(text) || start.startsWith("format-version:")) {
    return { format: "obo", terms: parseObo(text), invalid: [] };
  }
  throw new Error("not a MONDO file: expected OBO, OBO Graphs JSON or JSON Lines terms");
}

function isJsonlTerm(line: string): boolean {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    return typeof value.id === "string" && "label" in value && !("graphs" in value);
  } catch {
    return false;
  }
}

function readJsonl(text: string): ReadResult {
  const terms: ParsedTerm[] = [];
  const invalid: ReadResult["invalid"] = [];
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    try {
      terms.push(parseJsonlTerm(line));
    } catch (error) {
      invalid.push({ line: index + 1, reason: (error as Error).message });
    }
  });
  return { format: "jsonl", terms, invalid };
}

/**
 * Splits parsed terms into job batches: current terms (each with its descendant count over the
 * file) and the ids of obsolete ones, which a load removes. A repeated id keeps its last stanza.
 */
export function toBatches(parsed: ParsedTerm[]): { terms: ConditionTerm[]; obsolete: string[] }[] {
  const byId = new Map(parsed.map((term) => [term.id, term]));
  const current = [...byId.values()].filter((term) => !term.obsolete);
  const obsolete = [...byId.values()].filter((term) => term.obsolete).map((term) => term.id);
  const counts = countDescendants(current);
  const terms = current.map(({ obsolete: _obsolete, ...term }) => ({ ...term, descendants: counts.get(term.id) ?? 0 }));
  const batches: { terms: ConditionTerm[]; obsolete: string[] }[] = [];
  for (let i = 0; i < terms.length; i += CONDITION_BATCH_MAX) {
    batches.push({ terms: terms.slice(i, i + CONDITION_BATCH_MAX), obsolete: [] });
  }
  for (let i = 0; i < obsolete.length; i += CONDITION_BATCH_MAX) {
    batches.push({ terms: [], obsolete: obsolete.slice(i, i + CONDITION_BATCH_MAX) });
  }
  return batches;
}

/** Distinct subclasses at any depth (MONDO is a DAG: a term reached by two paths counts once). */
function countDescendants(terms: Omit<ParsedTerm, "obsolete">[]): Map<string, number> {
  const children = new Map<string, string[]>();
  for (const term of terms) {
    for (const parent of term.parents) children.set(parent, [...(children.get(parent) ?? []), term.id]);
  }
  const memo = new Map<string, Set<string>>();
  const visiting = new Set<string>();
  const below = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const found = new Set<string>();
    // A cycle would be a broken file; cutting it keeps the count finite instead of recursing forever.
    if (visiting.has(id)) return found;
    visiting.add(id);
    for (const child of children.get(id) ?? []) {
      found.add(child);
      for (const deeper of below(child)) found.add(deeper);
    }
    visiting.delete(id);
    memo.set(id, found);
    return found;
  };
  return new Map(terms.map((term) => [term.id, below(term.id).size]));
}
