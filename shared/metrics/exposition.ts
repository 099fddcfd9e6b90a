import { timingSafeEqual } from "node:crypto";
import { Cluster } from "ioredis";
import type { Env } from "../core/env";
import { AppError } from "../core/errors";
import type { Logger } from "../core/log";
import type { Redis } from "../core/redis";
import { clusterState } from "../core/redisState";
import type { Queues } from "../jobs/queue";
import { readJobDurations, readQueueDepths } from "./jobs";
import { Gauge, renderMetrics } from "./registry";
import { processMetrics } from "./service";

/** What the exposition reads: the process's Redis, queues, key prefix and logger. */
interface Sources {
  redis: Redis;
  queues: Queues;
  env: Pick<Env, "REDIS_PREFIX">;
  log: Logger;
}

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
export async function exposeMetrics(deps: Sources): Promise<string> {
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
  return processMetrics.render() + renderMetrics([available]) + fromRedis + (await clusterMetrics(deps));
}

/** On a Redis Cluster: its state as the client's node sees it, and which primaries answer this process. */
async function clusterMetrics(deps: Pick<Sources, "redis" | "log">): Promise<string> {
  if (!(deps.redis instanceof Cluster)) return "";
  const gauges = {
    ok: new Gauge("redis_cluster_state_ok", "1 when CLUSTER INFO reports cluster_state:ok, else 0.", []),
    slots: new Gauge("redis_cluster_slots_ok", "Hash slots served by a reachable primary (of 16384).", []),
    nodes: new Gauge("redis_cluster_known_nodes", "Nodes the cluster knows, primaries and replicas.", []),
    size: new Gauge("redis_cluster_size", "Primaries serving at least one slot.", []),
    primaries: new Gauge("redis_cluster_primaries_reachable", "Primaries that answered this process's PING.", []),
  };
  try {
    const state = await clusterState(deps.redis);
    gauges.ok.labels().set(state.ok ? 1 : 0);
    gauges.slots.labels().set(state.slotsOk);
    gauges.nodes.labels().set(state.knownNodes);
    gauges.size.labels().set(state.size);
  } catch (error) {
    deps.log.warn("metrics: cluster state unavailable", { error });
    gauges.ok.labels().set(0);
  }
  const pings = await Promise.allSettled(deps.redis.nodes("master").map((node) => node.ping()));
  gauges.primaries.labels().set(pings.filter((ping) => ping.status === "fulfilled").length);
  return renderMetrics(Object.values(gauges));
}
