import type { Deps } from "../../context/deps";
import { listMessages } from "../../conversations/repository";
import { type Redis, redisKeys } from "../../core/redis";
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
  return (await listMessages(deps.sql, turn.chatId)).some((message) => message.id === turn.turnId);
}

/**
 * BLPOP on a connection of its own: a blocking command holds its connection until it returns, so
 * on the shared fail-fast connection it would stall every other command (and trip its command
 * timeout), and one shared blocking connection would make concurrent waits take turns. Waits are
 * rare (a race with the API's commit), so a short-lived connection costs little.
 */
async function blockingPop(redis: Redis, key: string, timeoutMs: number): Promise<string | null> {
  const connection = redis.duplicate({
    commandTimeout: undefined,
    // Queued until connected; the client gives up shortly after Redis's own timeout if Redis is away.
    enableOfflineQueue: true,
    blockingTimeout: timeoutMs,
  });
  // Failures reach the command; without a listener ioredis would also print them.
  connection.on("error", () => {});
  try {
    const popped = await connection.blpop(key, timeoutMs / 1000);
    return popped?.[1] ?? null;
  } finally {
    connection.disconnect();
  }
}
