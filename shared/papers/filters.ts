import { Type as T } from "@sinclair/typebox";

const FilterText = T.Optional(T.String({ maxLength: 500 }));

/** The fielded-search filters (spec 4.6), the same for REST's `searchFilterString` and the MCP tool. */
export const PaperFiltersSchema = T.Object(
  {
    all: FilterText,
    id: FilterText,
    ti: FilterText,
    au: FilterText,
    abs: FilterText,
    cat: FilterText,
    jr: FilterText,
    co: FilterText,
    rn: FilterText,
  },
  { additionalProperties: false, description: "Filters, ANDed; at least one must be non-empty." },
);
