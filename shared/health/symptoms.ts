import { type Static, Type as T } from "@sinclair/typebox";
import type { Ctx } from "../context/ctx";
import acute from "../data/symptoms/acute.json";
import custom from "../data/symptoms/custom.json";
import pregnancy from "../data/symptoms/pregnancy.json";
import { type LogKind, LogKindSchema } from "./schemas";

export const SymptomOptionsSchema = T.Object({
  kind: LogKindSchema,
  symptoms: T.Array(
    T.Object({
      id: T.String({ description: "Stable across releases." }),
      label: T.String(),
      urgent: T.Optional(T.Boolean({ description: "Present and true on red-flag symptoms." })),
    }),
  ),
});
export type SymptomOptions = Static<typeof SymptomOptionsSchema>;

const LISTS: Record<LogKind, SymptomOptions> = Object.fromEntries(
  [acute, pregnancy, custom].map((list) => [list.kind, { kind: list.kind, symptoms: list.symptoms }]),
) as Record<LogKind, SymptomOptions>;

/** The same for every caller: it takes the verb context only to share the verbs' shape. */
export function listSymptomOptions(_ctx: Pick<Ctx, never>, input: { kind: LogKind }): SymptomOptions {
  return LISTS[input.kind];
}
