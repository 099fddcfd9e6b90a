import { type Static, Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";

/**
 * One MONDO term as every loader format yields it (OBO, OBO Graphs JSON, the JSON Lines extract) and
 * as a `conditions.index-batch` job carries it. Obsolete terms never get this far: loaders report
 * their ids separately so a reload removes terms that became obsolete.
 */
export const MONDO_ID_PATTERN = "^MONDO:[0-9]{7}$";
export const MondoIdSchema = T.String({ pattern: MONDO_ID_PATTERN, description: "A MONDO CURIE, `MONDO:0004979`." });

export const SYNONYM_SCOPES = ["EXACT", "RELATED", "BROAD", "NARROW"] as const;
export const SynonymSchema = T.Object({
  text: Text({ minLength: 1, maxLength: 1000 }),
  scope: T.Union([T.Literal("EXACT"), T.Literal("RELATED"), T.Literal("BROAD"), T.Literal("NARROW"), T.Null()], {
    description: "OBO synonym scope; null when the source does not say (the JSON Lines extract).",
  }),
});
export type Synonym = Static<typeof SynonymSchema>;

export const ConditionTermSchema = T.Object(
  {
    id: MondoIdSchema,
    label: Text({ minLength: 1, maxLength: 1000 }),
    definition: T.Union([Text({ maxLength: 20_000 }), T.Null()]),
    synonyms: T.Array(SynonymSchema, { maxItems: 500 }),
    xrefs: T.Array(Text({ minLength: 1, maxLength: 200 }), { maxItems: 500 }),
    parents: T.Array(MondoIdSchema, { maxItems: 100 }),
    /** Subclasses at any depth in the loaded file: a generality measure that breaks ranking ties. */
    descendants: T.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type ConditionTerm = Static<typeof ConditionTermSchema>;

/** What a parser yields before the loader counts descendants over the whole file. */
export type ParsedTerm = Omit<ConditionTerm, "descendants"> & { obsolete: boolean };

/** Largest term batch one job carries (MONDO terms are small: ≈ 1 KB of JSON each). */
export const CONDITION_BATCH_MAX = 1000;

export const ConditionBatchSchema = T.Object(
  {
    terms: T.Array(ConditionTermSchema, { maxItems: CONDITION_BATCH_MAX }),
    obsolete: T.Array(MondoIdSchema, { maxItems: CONDITION_BATCH_MAX }),
  },
  { additionalProperties: false },
);

const CURIE = /^MONDO[:_](\d{7})$/i;

/** `MONDO:0004979`, `MONDO_0004979`, `mondo:0004979` or the PURL → `MONDO:0004979`; undefined otherwise. */
export function normalizeMondoId(value: string): string | undefined {
  const trimmed = value.trim().replace(/^https?:\/\/purl\.obolibrary\.org\/obo\//i, "");
  const match = CURIE.exec(trimmed);
  return match ? `MONDO:${match[1]}` : undefined;
}

/**
 * The form names are compared in: diacritics folded, lower case, every run of non-letters and
 * non-digits one space. `Sjögren's syndrome`, `sjogren s  SYNDROME` and `Sjogren-s syndrome` agree.
 */
export function foldName(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Synonyms that name the same condition: EXACT, or of unknown scope (the extract has no scopes). */
export function isExactSynonym(synonym: Synonym): boolean {
  return synonym.scope === "EXACT" || synonym.scope === null;
}
