/**
 * Where a set of v1 routes is mounted. The website mirrors the v1 health surface under `/api/…`
 * with the same handlers and schemas; only the path, the authentication (session cookie instead
 * of an API key, api/plugins/session.ts; the document reads it from the access policy) and the
 * OpenAPI tag differ.
 */
export interface Mount {
  /** Replaces `/api/v1` in every path. */
  base: string;
  /** Keeps Elysia from deduplicating the second mount of a named plugin. */
  suffix: string;
  tags: (tag: string) => string[];
}

export const V1: Mount = { base: "/api/v1", suffix: "", tags: (tag) => [tag] };

export const WEBSITE: Mount = { base: "/api", suffix: "/website", tags: () => ["Website"] };
