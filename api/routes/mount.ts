import { API_KEY_SECURITY } from "./security";

/**
 * Where a set of v1 routes is mounted. The website mirrors the v1 health surface under `/api/…`
 * with the same handlers and schemas; only the path, the authentication (session cookie instead
 * of an API key, api/plugins/session.ts) and the OpenAPI tag differ.
 */
export interface Mount {
  /** Replaces `/api/v1` in every path. */
  base: string;
  /** Keeps Elysia from deduplicating the second mount of a named plugin. */
  suffix: string;
  security: Record<string, string[]>[];
  tags: (tag: string) => string[];
}

export const V1: Mount = { base: "/api/v1", suffix: "", security: API_KEY_SECURITY, tags: (tag) => [tag] };

/** The session cookie; state-changing requests also need `x-csrf-token`. */
export const SESSION_SECURITY: Record<string, string[]>[] = [{ session: [] }];

export const WEBSITE: Mount = {
  base: "/api",
  suffix: "/website",
  security: SESSION_SECURITY,
  tags: () => ["Website"],
};
