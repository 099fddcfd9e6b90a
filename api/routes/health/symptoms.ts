import { Elysia, t } from "elysia";
import { LogKindSchema, listSymptomOptions, SymptomOptionsSchema } from "../../../shared/services/symptoms";

export const symptomRoutes = new Elysia({ name: "routes/health/symptoms" }).get(
  "/api/v1/health/symptoms",
  ({ query }) => listSymptomOptions(query.kind ?? "acute"),
  {
    query: t.Object({ kind: t.Optional(LogKindSchema) }),
    response: SymptomOptionsSchema,
    detail: {
      tags: ["Health"],
      summary: "Symptom options for a log kind",
      description: "The symptom choices the website offers for `acute` (default), `pregnancy` or `custom` logs.",
      security: [{ bearer: [] }],
    },
  },
);
