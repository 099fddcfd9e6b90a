import { normalizeMondoId, type ParsedTerm, SYNONYM_SCOPES, type Synonym } from "../../records/conditionTerm";

/**
 * MONDO's OBO 1.4 release (`mondo.obo`): `[Term]` stanzas with `id`, `name`, `def`, `synonym`,
 * `xref`, `is_a` and `is_obsolete`. Other stanza types and non-MONDO terms are skipped.
 */
export function parseObo(text: string): ParsedTerm[] {
  const terms: ParsedTerm[] = [];
  for (const stanza of text.split(/^(?=\[)/m)) {
    if (!stanza.startsWith("[Term]")) continue;
    const term = parseStanza(stanza);
    if (term) terms.push(term);
  }
  return terms;
}

function parseStanza(stanza: string): ParsedTerm | undefined {
  const term: ParsedTerm = {
    id: "",
    label: "",
    definition: null,
    synonyms: [],
    xrefs: [],
    parents: [],
    obsolete: false,
  };
  for (const line of stanza.split(/\r?\n/)) {
    const colon = line.indexOf(": ");
    if (colon <= 0) continue;
    const tag = line.slice(0, colon);
    const value = line.slice(colon + 2);
    if (tag === "id") term.id = normalizeMondoId(value) ?? "";
    else if (tag === "name") term.label = value.trim();
    else if (tag === "def") term.definition = quoted(value)?.text ?? null;
    else if (tag === "synonym") addSynonym(term.synonyms, value);
    else if (tag === "xref") term.xrefs.push(withoutTrailers(value));
    else if (tag === "is_a") {
      const parent = normalizeMondoId(withoutTrailers(value));
      if (parent) term.parents.push(parent);
    } else if (tag === "is_obsolete") term.obsolete = value.trim() === "true";
  }
  return term.id && term.label ? term : undefined;
}

/** A quoted OBO string (`"text" rest`), honouring `\"` and `\\` escapes. */
function quoted(value: string): { text: string; rest: string } | undefined {
  if (!value.startsWith('"')) return undefined;
  let text = "";
  for (let i = 1; i < value.length; i++) {
    const ch = value[i];
    if (ch === "\\" && i + 1 < value.length) text += value[++i];
    else if (ch === '"') return { text: text.trim(), rest: value.slice(i + 1).trim() };
    else text += ch;
  }
  return undefined;
}

/** `synonym: "text" EXACT [TYPE] [xrefs]`. */
function addSynonym(synonyms: Synonym[], value: string): void {
  const parsed = quoted(value);
  if (!parsed?.text) return;
  const word = parsed.rest.split(/\s+/)[0] ?? "";
  const scope = SYNONYM_SCOPES.find((s) => s === word) ?? null;
  synonyms.push({ text: parsed.text, scope });
}

/** Drops trailing qualifiers `{…}` and comments `! …` (`is_a: MONDO:0001 {source="x"} ! label`). */
function withoutTrailers(value: string): string {
  return value
    .replace(/\s*!.*$/, "")
    .replace(/\s*\{.*\}\s*$/, "")
    .trim();
}
