import type { InternalRoute } from "elysia";
import { escapeRegExp } from "../../shared/core/regex";
import { ACCESS_POLICIES, coversPath, policyFor } from "./access";
import { assertStrictJsonBodies, checkedMediaTypes } from "./requestBodies";

type RouteLike = Pick<InternalRoute, "method" | "path">;

/** The order of an `Allow` header; a method outside it (none today) would follow in name order. */
const ALLOW_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * A route path as the router matches it, segment by segment: `:name` is one non-empty segment
 * (`:name?` possibly empty), `*` the rest of the path.
 */
export function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((part) => {
      if (part === "*") return ".*";
      if (part.startsWith(":")) return part.endsWith("?") ? "[^/]*" : "[^/]+";
      return escapeRegExp(part);
    })
    .join("/");
  return new RegExp(`^${source}$`);
}

const isPattern = (path: string) => path.includes(":") || path.includes("*");

/** Finds the route pattern of a path the way the router would: exact paths first, then patterns. */
export function routeMatcher(routes: readonly RouteLike[]) {
  const exact = new Map<string, string>();
  const patterns: { method: string; path: string; regex: RegExp }[] = [];
  for (const { method, path } of routes) {
    if (isPattern(path)) patterns.push({ method, path, regex: pathPattern(path) });
    else exact.set(`${method} ${path}`, path);
  }
  return (method: string, path: string): string | undefined =>
    exact.get(`${method} ${path}`) ??
    exact.get(`ALL ${path}`) ??
    patterns.find((p) => (p.method === method || p.method === "ALL") && p.regex.test(path))?.path;
}

/**
 * The methods a path answers, as an `Allow` header, from the app's own routes so it cannot drift
 * from them; undefined when no route has the path (a 404, not a 405). Elysia registers one route
 * tree per method, so a method is answered exactly when one of its routes matches: the value is
 * the union over every route matching the path. HEAD is listed with GET (Elysia answers HEAD with
 * the GET handler's headers), and OPTIONS always (the CORS plugin answers it on every path); the
 * CORS plugin's own `OPTIONS /*` route is left out, or every path would exist.
 */
export function allowMatcher(routes: readonly RouteLike[]) {
  const exact = new Map<string, Set<string>>();
  const patterns: { method: string; regex: RegExp }[] = [];
  for (const { method, path } of routes) {
    if (method === "OPTIONS") continue;
    if (isPattern(path)) patterns.push({ method, regex: pathPattern(path) });
    else exact.set(path, (exact.get(path) ?? new Set()).add(method));
  }
  return (path: string): string | undefined => {
    const methods = new Set(exact.get(path));
    for (const pattern of patterns) if (pattern.regex.test(path)) methods.add(pattern.method);
    // ALL answers every method, so the router never misses there.
    if (methods.size === 0 || methods.has("ALL")) return undefined;
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const listed = ALLOW_ORDER.filter((method) => methods.has(method));
    const others = [...methods].filter((method) => !ALLOW_ORDER.includes(method)).sort();
    return [...listed, ...others].join(", ");
  };
}

/**
 * A path an access policy says answers only some methods (`only`: a share link, the signed upload
 * URL) takes no credential for the others, so a route there with another method would run with no
 * credential check at all: refused when the app is assembled.
 */
export function assertPoliciesCoverRoutes(routes: readonly RouteLike[]): void {
  for (const { method, path } of routes) {
    if (method === "OPTIONS") continue;
    const sample = path.replace(/:[^/]+/g, "x").replaceAll("*", "x");
    const only = ACCESS_POLICIES.find((policy) => policy.only && coversPath(policy, sample));
    if (only && !policyFor(method, sample)) {
      throw new Error(
        `${method} ${path}: access.ts says this path answers only ${only.methods?.join(", ")}; give the route a policy`,
      );
    }
  }
}

/**
 * The app's routes, read once when the app is assembled (`load`), for what is decided without a
 * matched route: the route label of a request refused before routing (metrics), the `Allow`
 * header of a 405 (the error handler) and the media types a body may have (mediaTypes.ts), all
 * before Elysia routes the request. Loading refuses a
 * route whose JSON body would read numbers from text (requestBodies.ts), and a route on a path
 * whose policy covers other methods only.
 */
export function createRouteTable() {
  let routeOf: ReturnType<typeof routeMatcher> = () => undefined;
  let allowOf: ReturnType<typeof allowMatcher> = () => undefined;
  let media = new Map<string, string[] | undefined>();
  let loaded: readonly InternalRoute[] = [];
  return {
    load(routes: readonly InternalRoute[]): void {
      assertStrictJsonBodies(routes);
      assertPoliciesCoverRoutes(routes);
      loaded = routes;
      routeOf = routeMatcher(routes);
      allowOf = allowMatcher(routes);
      media = new Map(routes.map((route) => [`${route.method} ${route.path}`, checkedMediaTypes(route.hooks)]));
    },
    /** Every route, as loaded (the OpenAPI document is built from them). */
    all: (): readonly InternalRoute[] => loaded,
    routeOf: (method: string, path: string): string | undefined => routeOf(method, path),
    allowOf: (path: string): string | undefined => allowOf(path),
    /**
     * The media types the route for this method and path takes (none: no body); undefined without
     * a route, or for a route that checks its own.
     */
    mediaTypesOf: (method: string, path: string): string[] | undefined => {
      const route = routeOf(method, path);
      return route === undefined ? undefined : (media.get(`${method} ${route}`) ?? media.get(`ALL ${route}`));
    },
  };
}

export type RouteTable = ReturnType<typeof createRouteTable>;
