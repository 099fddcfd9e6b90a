import { type Static, Type as T } from "@sinclair/typebox";
import { Text } from "../../core/text";

/** What a medication lookup asks RxNav: a name, an RxCUI or an NDC, already normalized. */
export const MedicationQuerySchema = T.Object(
  {
    by: T.Union([T.Literal("name"), T.Literal("rxcui"), T.Literal("ndc")]),
    value: Text({ minLength: 1, maxLength: 120 }),
  },
  { additionalProperties: false },
);
export type MedicationQuery = Static<typeof MedicationQuerySchema>;

/** What a label lookup asks openFDA: RxNav's concept ids first, then generic/brand names. */
export const LabelQuerySchema = T.Object(
  {
    rxcuis: T.Array(T.String({ pattern: "^[0-9]{1,10}$" }), { maxItems: 20 }),
    names: T.Array(Text({ minLength: 1, maxLength: 200 }), { maxItems: 10 }),
  },
  { additionalProperties: false },
);
export type LabelQuery = Static<typeof LabelQuerySchema>;

/** Cache and deduplication key of a medication query (BullMQ ids and cache keys must not contain ':'). */
export function medicationKey(query: MedicationQuery): string {
  return `${query.by}-${query.value}`;
}

/** Cache and deduplication key of a label query: order-insensitive, lower-cased. */
export function labelKey(query: LabelQuery): string {
  const parts = [...query.rxcuis.map((id) => `r${id}`), ...query.names.map((n) => `n${n.toLowerCase()}`)].sort();
  return new Bun.CryptoHasher("sha256").update(parts.join("\n")).digest("hex").slice(0, 32);
}
