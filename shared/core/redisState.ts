import IORedis, { Cluster } from "ioredis";
import type { Redis } from "./redis";

/**
 * What the service needs of its Redis, checked on each server (every node of a cluster: a client
 * command would reach only one of them), and the state readiness and /metrics report.
 */

/** Sharded pub/sub (SSUBSCRIBE/SPUBLISH) came with Redis 7. */
const MIN_MAJOR_VERSION = 7;

/** `field:value` lines of an INFO section. */
function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/**
 * Every server holding data: each node of a cluster from CLUSTER NODES (replicas too: they become
 * primaries, and the client itself connects to primaries only), or the one server. A cluster's
 * node gets a short-lived connection of its own.
 */
async function withServers(redis: Redis, use: (name: string, server: IORedis) => Promise<string | undefined>) {
  if (!(redis instanceof Cluster)) return use("Redis", redis);
  const text = String(await redis.cluster("NODES"));
  for (const line of text.split("\n").filter(Boolean)) {
    const [, address = "", flags = ""] = line.split(" ");
    if (/fail|noaddr|handshake/.test(flags)) continue;
    const hostPort = address.split("@")[0] ?? "";
    const at = hostPort.lastIndexOf(":");
    const [host, port] = [hostPort.slice(0, at), Number(hostPort.slice(at + 1))];
    const server = new IORedis({
      ...redis.options.redisOptions,
      host,
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    server.on("error", () => {});
    try {
      const problem = await use(`Redis node ${host}:${port}`, server).catch(
        (error: Error) =>
          `Redis node ${host}:${port} (from CLUSTER NODES) is not reachable from here: ${error.message}.`,
      );
      if (problem) return problem;
    } finally {
      server.disconnect();
    }
  }
  return undefined;
}

/**
 * Why this Redis cannot run the service, in one line, or undefined when it can. INFO is read, not
 * CONFIG GET, which managed services often rename.
 */
export async function redisSetupProblem(redis: Redis): Promise<string | undefined> {
  if (redis instanceof Cluster) {
    const state = await clusterState(redis);
    if (!state.ok)
      return `Redis Cluster is not ready (cluster_state:${state.state}, ${state.slotsOk} of 16384 slots served).`;
  }
  return withServers(redis, async (name, server) => {
    const info = infoFields(await server.info("all"));
    const version = info.get("redis_version") ?? "0";
    if (Number(version.split(".")[0]) < MIN_MAJOR_VERSION)
      return `${name} runs Redis ${version}; the service needs ${MIN_MAJOR_VERSION}.0 or later (sharded pub/sub).`;
    const policy = info.get("maxmemory_policy");
    if (policy !== "noeviction")
      return `${name} has maxmemory-policy ${policy}; set it to noeviction (an evicted job or rate-limit key is lost work or a wrong limit).`;
    return undefined;
  });
}

export interface ClusterState {
  ok: boolean;
  state: string;
  slotsOk: number;
  knownNodes: number;
  size: number;
}

/** CLUSTER INFO as one node sees it (the client's choice of node). */
export async function clusterState(redis: Cluster): Promise<ClusterState> {
  const info = infoFields(String(await redis.cluster("INFO")));
  const number = (name: string) => Number(info.get(name) ?? 0);
  const state = info.get("cluster_state") ?? "unknown";
  return {
    ok: state === "ok",
    state,
    slotsOk: number("cluster_slots_ok"),
    knownNodes: number("cluster_known_nodes"),
    size: number("cluster_size"),
  };
}

/**
 * Answers when Redis can serve: a PING, and on a cluster also `cluster_state:ok` and a PING of
 * every primary (a request may need any of them). Throws otherwise.
 */
export async function checkRedis(redis: Redis): Promise<void> {
  if (!(redis instanceof Cluster)) {
    await redis.ping();
    return;
  }
  const state = await clusterState(redis);
  if (!state.ok) throw new Error(`cluster state ${state.state}`);
  await Promise.all(redis.nodes("master").map((node) => node.ping()));
}

/** Keys whose primary answered a WAIT with no replica: skipped until then (ms), re-checked after. */
const replicaless = new Map<string, number>();
const NO_REPLICA_RECHECK_MS = 5000;

/**
 * Waits until one replica has every write this connection sent to `key`'s primary, at most
 * `timeoutMs`: replication is asynchronous, and a primary that fails before passing a write on
 * loses it. Nothing to wait for on a single server. WAIT has no key, so it rides in a pipeline with
 * a keyed command to reach that primary's connection, and holds that connection meanwhile (use one
 * of its own). A primary without a replica (after a failover, until one rejoins) would make every
 * WAIT run to its timeout: such a key is not waited for again for 5 s. Returns the replicas that
 * acknowledged.
 */
export async function awaitReplica(redis: Redis, key: string, timeoutMs = 200): Promise<number> {
  if (!(redis instanceof Cluster) || (replicaless.get(key) ?? 0) > Date.now()) return 0;
  const results = await redis.pipeline().exists(key).call("WAIT", "1", String(timeoutMs)).exec();
  const acknowledged = Number(results?.[1]?.[1] ?? 0);
  if (acknowledged === 0) replicaless.set(key, Date.now() + NO_REPLICA_RECHECK_MS);
  else replicaless.delete(key);
  return acknowledged;
}
