import { normalizeMondoId, type ParsedTerm, SYNONYM_SCOPES, type Synonym } from "../../records/conditionTerm";

/**
 * One line of the JSON Lines extract (`mondo-terms.jsonl.gz`, see shared/data/mondo/PROVENANCE.md):
 * `{"id","label","has_definition","definition","synonyms":[{"synonym","scope"}],"xrefs","parents","obsolete"}`.
 * Throws with a reason when the line is not such a term.
 */
export function parseJsonlTerm(line: string): ParsedTerm {
  const raw = JSON.parse(line) as Record<string, unknown>;
  const id = typeof raw.id === "string" ? normalizeMondoId(raw.id) : undefined;
  if (!id) throw new Error("id is not a MONDO id");
  if (typeof raw.label !== "string" || !raw.label.trim()) throw new Error("label is missing");
  return {
    id,
    label: raw.label.trim(),
    definition: typeof raw.definition === "string" && raw.definition.trim() ? raw.definition.trim() : null,
    synonyms: list(raw.synonyms).flatMap(toSynonym),
    xrefs: list(raw.xrefs).filter((xref): xref is string => typeof xref === "string" && xref.includes(":")),
    parents: list(raw.parents).flatMap((parent) =>
      typeof parent === "string" ? (normalizeMondoId(parent) ?? []) : [],
    ),
    obsolete: raw.obsolete === true,
  };
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function toSynonym(value: unknown): Synonym[] {
  if (typeof value !== "object" || value === null) return [];
  const { synonym, scope } = value as { synonym?: unknown; scope?: unknown };
  if (typeof synonym !== "string" || !synonym.trim()) return [];
  const upper = typeof scope === "string" ? scope.toUpperCase() : null;
  const known = SYNONYM_SCOPES.find((s) => s === upper) ?? null;
  return [{ text: synonym.trim(), scope: known }];
}
