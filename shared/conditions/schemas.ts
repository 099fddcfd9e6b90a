import { type Static, Type as T } from "@sinclair/typebox";
import { MondoIdSchema, SynonymSchema } from "../records/conditionTerm";
import { PaperSchema } from "../records/paper";

const TermRefSchema = T.Object({
  id: MondoIdSchema,
  label: T.Union([T.String(), T.Null()], { description: "Null when the term is not loaded here." }),
});

/** What every condition answer says about one MONDO term (the spec names only the parts). */
export const ConditionInfoSchema = T.Object({
  id: MondoIdSchema,
  label: T.String(),
  definition: T.Union([T.String(), T.Null()], {
    description: "MONDO's textual definition; null when the loaded source has none (the bundled extract has none).",
  }),
  synonyms: T.Array(SynonymSchema),
  xrefs: T.Array(
    T.Object({
      id: T.String({ description: "A CURIE, e.g. `DOID:2841`, `OMIM:600807`, `Orphanet:558`, `MESH:D001249`." }),
      prefix: T.String(),
      url: T.Union([T.String(), T.Null()], {
        description: "A resolver URL; null for prefixes without a well-known one.",
      }),
    }),
  ),
  parents: T.Array(TermRefSchema, { description: "Direct superclasses (is_a)." }),
  links: T.Object({
    monarch: T.String({ description: "The term's page at the Monarch Initiative." }),
    purl: T.String({ description: "The term's OBO PURL." }),
  }),
  source: T.Object({
    name: T.Literal("Mondo Disease Ontology"),
    license: T.Literal("CC BY 4.0"),
    url: T.String(),
  }),
});
export type ConditionInfo = Static<typeof ConditionInfoSchema>;

export const ConditionDetailSchema = T.Object({
  ...ConditionInfoSchema.properties,
  children: T.Array(TermRefSchema, { description: "Direct subclasses, by label." }),
});
export type ConditionDetail = Static<typeof ConditionDetailSchema>;

export const MatchSchema = T.Union([T.Literal("label"), T.Literal("synonym"), T.Literal("ranked")], {
  description:
    "`label`/`synonym`: the query equals the label or an exact synonym (case, diacritics and punctuation folded); `ranked`: best typo-tolerant match.",
});

export const ConditionLookupSchema = T.Object({
  query: T.String({ description: "The query as received (trimmed)." }),
  info: T.Object({
    ...ConditionInfoSchema.properties,
    match: T.Object({
      by: MatchSchema,
      score: T.Number({ description: "1 for exact matches, else Meilisearch's ranking score." }),
    }),
  }),
  papers: T.Object({
    query: T.Object({
      names: T.Array(T.String(), { description: "The label and exact synonyms searched, each as a phrase." }),
      fields: T.Array(T.String(), { description: "The paper fields searched." }),
    }),
    data: T.Array(PaperSchema, { description: "Best matches first." }),
  }),
});
export type ConditionLookup = Static<typeof ConditionLookupSchema>;

export const ConditionSearchSchema = T.Object({
  query: T.String(),
  data: T.Array(
    T.Object({
      id: MondoIdSchema,
      label: T.String(),
      match: MatchSchema,
      score: T.Number(),
      acceptable: T.Boolean({
        description: "Exact, or ranked at or above the acceptance threshold: what a lookup may resolve to.",
      }),
    }),
  ),
});
export type ConditionSearch = Static<typeof ConditionSearchSchema>;
