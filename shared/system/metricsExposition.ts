import { timingSafeEqual } from "node:crypto";
import type { Deps } from "../context/deps";
import { AppError } from "../core/errors";
import { Gauge, renderMetrics } from "../core/metrics";
import { processMetrics } from "../core/serviceMetrics";
import { readJobDurations, readQueueDepths } from "../jobs/metrics";

/** Where a scrape comes from, as the HTTP layer sees it. */
export interface ScrapeOrigin {
  /** The `Authorization` header, if any. */
  authorization: string | null;
  /** The TCP peer's address; undefined when unknown (in-process requests). */
  peerAddress: string | undefined;
  /** Whether the request carries `Forwarded` or `X-Forwarded-For` (a proxy relayed it). */
  forwarded: boolean;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Who may read /metrics. With METRICS_TOKEN set: whoever sends it as a bearer token, from anywhere.
 * Without: only a client on this machine talking to the API directly. A request relayed by a proxy
 * is refused even from loopback, because a reverse proxy on the same host would otherwise publish
 * the endpoint to everyone it serves.
 */
export function authorizeScrape(token: string | undefined, origin: ScrapeOrigin): void {
  if (token) {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(origin.authorization ?? "")?.[1];
    if (!given || !sameSecret(given, token)) {
      throw new AppError("UNAUTHORIZED", "Send the metrics token as `Authorization: Bearer <METRICS_TOKEN>`.");
    }
    return;
  }
  if (origin.forwarded || !origin.peerAddress || !LOOPBACK.test(origin.peerAddress)) {
    throw new AppError("FORBIDDEN", "Metrics are served to loopback clients only unless METRICS_TOKEN is set.");
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The exposition text: this process's counters, then queue depths and job durations from Redis.
 * Redis being away does not fail the scrape: the queue families are left out and
 * `queue_metrics_available` says so.
 */
export async function exposeMetrics(deps: Pick<Deps, "redis" | "queues" | "env" | "log">): Promise<string> {
  const available = new Gauge(
    "queue_metrics_available",
    "1 when this scrape read queue depths and job durations from Redis, 0 when Redis did not answer.",
    [],
  );
  let fromRedis = "";
  try {
    const [depths, durations] = await Promise.all([
      readQueueDepths(deps.queues),
      readJobDurations(deps.redis, deps.env.REDIS_PREFIX),
    ]);
    fromRedis = renderMetrics([depths, durations]);
    available.labels().set(1);
  } catch (error) {
    deps.log.warn("metrics: queue figures unavailable", { error });
    available.labels().set(0);
  }
  return processMetrics.render() + renderMetrics([available]) + fromRedis;
}
