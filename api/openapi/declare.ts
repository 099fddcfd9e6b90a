import type { DocumentDecoration } from "elysia";
import type { ErrorKind } from "../../shared/core/errors";

/** Where a route's own failures travel in its `detail`; the document generator reads and drops it. */
export const FAILURES_KEY = "x-failures";

/**
 * A route's OpenAPI detail with the failures only its handler can produce (a missing resource, a
 * conflict, missing consent, an upstream failure). Those that follow from the request path's rules
 * (key, plan, rate limit, body, validation) are derived (./failures.ts) and need no declaration.
 */
export function failures(detail: DocumentDecoration, ...kinds: ErrorKind[]): DocumentDecoration {
  return { ...detail, [FAILURES_KEY]: kinds } as DocumentDecoration;
}

export function declaredFailures(detail: DocumentDecoration | undefined): ErrorKind[] {
  return ((detail as Record<string, unknown> | undefined)?.[FAILURES_KEY] as ErrorKind[] | undefined) ?? [];
}
