import type { AnyElysia } from "elysia";
import type { CounterChild, HistogramChild } from "../../shared/metrics/registry";
import { httpRequestDuration, httpRequests } from "../../shared/metrics/service";
import { stateOf } from "../requestState";
import { pathOf } from "./access";
import { routeMiss, toAppError } from "./errors";
import type { RouteTable } from "./routeTable";

/** Requests no route matches share one label: raw paths would give every scanner's URL its own series. */
export const UNMATCHED = "unmatched";
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

interface Series {
  requests: CounterChild;
  duration: HistogramChild;
}

/**
 * route → method → status → series. Route and method strings come from Elysia and the request, the
 * status is a number, so recording a request allocates nothing once its series exists.
 */
const seriesCache = new Map<string, Map<string, Map<number, Series>>>();

function seriesFor(method: string, route: string, status: number): Series {
  let byMethod = seriesCache.get(route);
  if (!byMethod) {
    byMethod = new Map();
    seriesCache.set(route, byMethod);
  }
  let byStatus = byMethod.get(method);
  if (!byStatus) {
    byStatus = new Map();
    byMethod.set(method, byStatus);
  }
  let series = byStatus.get(status);
  if (!series) {
    const statusClass = `${Math.floor(status / 100)}xx`;
    series = {
      requests: httpRequests.labels(method, route, String(status)),
      duration: httpRequestDuration.labels(method, route, statusClass),
    };
    byStatus.set(status, series);
  }
  return series;
}

function record(request: Request, route: string, status: number): void {
  const method = METHODS.has(request.method) ? request.method : "OTHER";
  const series = seriesFor(method, route, status);
  series.requests.inc();
  series.duration.observe((performance.now() - stateOf(request).startedAt) / 1000);
}

/**
 * Records `http_requests_total` and `http_request_duration_seconds` for every request: handled ones
 * after their handler, failed ones in the error hook (which must run before the error handler, which
 * answers: `.use` this plugin first). Requests refused before routing (401, 403, 413, 429), whose
 * route Elysia has not looked up yet, get theirs from the app's route table; a 405 (no route for
 * the method) is `unmatched`, like a 404. CORS preflights, answered before routing, count under
 * route `preflight`.
 */
export function httpMetrics(routes: RouteTable) {
  const preflights = httpRequests.labels("OPTIONS", "preflight", "204");
  return <App extends AnyElysia>(app: App): App =>
    app
      .onRequest(({ request }) => {
        if (request.method === "OPTIONS") preflights.inc();
      })
      .onAfterHandle({ as: "global" }, ({ request, set, route, response }) => {
        record(request, route, response instanceof Response ? response.status : Number(set.status ?? 200));
      })
      .onError({ as: "global" }, (context) => {
        const { request, error, code } = context;
        let route = "route" in context ? (context.route as string | undefined) : undefined;
        if (!route && code !== "NOT_FOUND") route = routes.routeOf(request.method, pathOf(request.url));
        const status = code === "NOT_FOUND" ? routeMiss(request, routes).status : toAppError(error, code).status;
        record(request, route || UNMATCHED, status);
      }) as App;
}
