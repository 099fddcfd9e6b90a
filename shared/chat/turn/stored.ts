import calculateSlot from "cluster-key-slot";
import IORedis, { Cluster } from "ioredis";
import type { Deps } from "../../context/deps";
import { chatMessages } from "../../conversations/turns";
import { duplicateRedis, type Redis, redisKeys } from "../../core/redis";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";

/**
 * The handshake between `submitTurn` (API) and a worker that read the conversation before the
 * API's commit: the API pushes "stored" or "failed" onto a per-turn list, the worker waits for it
 * with BLPOP. If the word never comes (lost, or Redis away), PostgreSQL decides.
 */

/** How long a worker waits for the API's word. */
const TURN_STORED_WAIT_MS = 10_000;
/** The word outlives any wait for it; a turn read after the commit never takes it. */
const WORD_TTL_SECONDS = 60;

/** The API's word on a queued turn's message; rejects if Redis did not take it. */
export async function tellStored(ctx: Pick<Deps, "redis" | "env">, turnId: string, stored: boolean): Promise<void> {
  const key = redisKeys(ctx.env.REDIS_PREFIX).turnStored(turnId);
  const results = await ctx.redis
    .multi()
    .lpush(key, stored ? "stored" : "failed")
    .expire(key, WORD_TTL_SECONDS)
    .exec();
  const failure = results?.find(([error]) => error)?.[0];
  if (failure) throw failure;
}

/** Whether a queued turn's message is stored: the API's word once it knows, else PostgreSQL. */
export async function awaitStored(deps: Pick<Deps, "redis" | "env" | "sql">, turn: ChatTurn): Promise<boolean> {
  const key = redisKeys(deps.env.REDIS_PREFIX).turnStored(turn.turnId);
  const word = await blockingPop(deps.redis, key, TURN_STORED_WAIT_MS).catch(() => null);
  if (word) return word === "stored";
  return (await chatMessages(deps, turn.chatId)).some((message) => message.id === turn.turnId);
}

/**
 * BLPOP on a connection of its own: a blocking command holds its connection until it returns, so
 * on the shared fail-fast connection it would stall every other command (and trip its command
 * timeout). Connections are kept for the next wait (one each for concurrent waits): opening one per
 * wait cost the API about 0.4 ms on every turn of a sequential chat bench, since a worker that
 * picks a turn up quickly reads before the API's commit and so waits on most turns.
 */
async function blockingPop(redis: Redis, key: string, timeoutMs: number): Promise<string | null> {
  const pool = waiterPool(redis, key, timeoutMs);
  const connection = idle.get(pool.name)?.pop() ?? opened(pool.open());
  let healthy = true;
  try {
    const popped = await connection.blpop(key, timeoutMs / 1000);
    return popped?.[1] ?? null;
  } catch (error) {
    healthy = false;
    throw error;
  } finally {
    if (healthy && waiters.has(connection)) release(pool.name, connection);
    else drop(connection);
  }
}

/** Idle waiting connections per pool; every open one, for `closeStoredWaits`. */
const idle = new Map<unknown, Redis[]>();
const waiters = new Set<Redis>();
/** Idle connections kept per pool; concurrent waits beyond this close theirs afterwards. */
const MAX_IDLE = 4;

/** A waiting connection: no command timeout, and queued until connected (the client gives up shortly after Redis's own timeout if Redis is away). */
function waiting(timeoutMs: number) {
  return { commandTimeout: undefined, enableOfflineQueue: true, blockingTimeout: timeoutMs };
}

/**
 * Where a wait's connection comes from. On one server: a copy of the source connection, pooled per
 * source. On a cluster: a plain connection to the primary that holds the key's slot, pooled per
 * primary (a cluster client per wait would connect to every node it needs and load the slot map).
 * If that primary changes meanwhile, the BLPOP fails and PostgreSQL decides.
 */
function waiterPool(redis: Redis, key: string, timeoutMs: number): { name: unknown; open: () => Redis } {
  const primary = redis instanceof Cluster ? redis.slots[calculateSlot(key)]?.[0] : undefined;
  if (!(redis instanceof Cluster) || !primary) {
    return { name: redis, open: () => duplicateRedis(redis, waiting(timeoutMs)) };
  }
  const at = primary.lastIndexOf(":");
  const node = { host: primary.slice(0, at), port: Number(primary.slice(at + 1)) };
  return { name: primary, open: () => new IORedis({ ...redis.options.redisOptions, ...node, ...waiting(timeoutMs) }) };
}

function opened(connection: Redis): Redis {
  // Failures reach the command; without a listener ioredis would also print them.
  connection.on("error", () => {});
  waiters.add(connection);
  return connection;
}

function release(pool: unknown, connection: Redis): void {
  const list = idle.get(pool) ?? [];
  idle.set(pool, list);
  if (list.length < MAX_IDLE) list.push(connection);
  else drop(connection);
}

function drop(connection: Redis): void {
  waiters.delete(connection);
  connection.disconnect();
}

/** Closes the waiting connections (a worker process's shutdown, after its jobs have finished). */
export function closeStoredWaits(): void {
  for (const connection of waiters) connection.disconnect();
  waiters.clear();
  idle.clear();
}
