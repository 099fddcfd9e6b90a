/**
 * Where the sign-in page may send the browser afterwards: `next` resolved against this site's
 * origin, followed only when it stays on that origin. A check on the string's start is not enough:
 * browsers read `/\host` and `/<tab>/host` as `//host` (another site), and `javascript:` runs code.
 * Shared by the page (auth.ts, api.ts) and the server, which builds every `?next=` it sends with
 * `signInLocation` (web/plugin.ts, oauth/interaction.ts).
 */
export function sameSiteDestination(next: string | null | undefined, origin: string, fallback = "/dashboard"): string {
  if (!next?.startsWith("/")) return fallback;
  // Backslashes and control characters are what browsers rewrite or drop before resolving.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: those characters are the point
  if (/[\\\u0000-\u001f\u007f]/.test(next)) return fallback;
  const url = URL.parse(next, origin);
  if (!url || url.origin !== origin) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page with a `next` that returns to `path` on this site (the dashboard if it would not). */
export function signInLocation(path: string, origin: string): string {
  return `/?next=${encodeURIComponent(sameSiteDestination(path, origin))}`;
}
