import { type Static, Type as T } from "@sinclair/typebox";
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

export function listSymptomOptions(kind: LogKind): SymptomOptions {
  return LISTS[kind];
}
