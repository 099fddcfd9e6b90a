import type { Ctx } from "../../context/ctx";
import type { Deps } from "../../context/deps";
import type { ChatReply, ChatRequest } from "../../conversations/schemas";
import { appendUserMessage, withdrawUserMessage } from "../../conversations/turns";
import { fromPostgres, unavailable } from "../../core/unavailable";
import { followToEnd, openTurnFeed, type TurnFeed } from "../../events/turnFeed";
import { enqueue } from "../../jobs/queue";
import { markActive } from "./active";
import { type PreparedTurn, prepareTurn } from "./prepare";
import { replyOf } from "./reply";

/** A turn that is stored and queued: relay its events (SSE), or wait for its reply (JSON). */
export interface StartedTurn {
  chatId: string;
  /** The turn's events from the first; its subscription was live before the turn was queued. */
  feed: TurnFeed;
  /** Follows the turn to its end and returns the stored reply: 502 for a failed turn. */
  reply(): Promise<ChatReply>;
}

/**
 * Starts a health chat turn for REST, the website and the MCP `health_chat` tool alike: checks
 * (no write yet), then stores the message and queues the turn. A failure of either is an error
 * here (503), before anything is streamed, and nothing is kept.
 */
export async function startTurn(ctx: Ctx, input: ChatRequest): Promise<StartedTurn> {
  // A burst of new turns starts a few per event-loop turn, on every surface.
  const slot = ctx.turnStarts.slot();
  if (slot) await slot;
  const prepared = await prepareTurn(ctx, input);
  const { turn } = prepared;
  // Subscribed while the message is stored, and queued only once the subscription is live: nothing
  // can have been published before it, so the feed reads no log (gap repair still does).
  const feed = openTurnFeed(ctx, turn.turnId, 0, { unqueued: true });
  try {
    await submitTurn(ctx, prepared, feed.live);
  } catch (error) {
    await feed.close();
    throw error;
  }
  return {
    chatId: turn.chatId,
    feed,
    async reply() {
      await followToEnd(feed);
      return replyOf(ctx, turn);
    },
  };
}

type SubmitDeps = Pick<Deps, "sql" | "redis" | "queues" | "env">;

/**
 * Stores the user message, then queues its turn (job id `turn-<turnId>`, so it runs once) with the
 * chat's in-progress mark. A turn that could not be queued takes its message back (503). A worker
 * therefore always finds the message it answers; one that does not (the message was taken back)
 * ends the turn with an error and stores nothing. `subscribed` (a feed's `live`) is awaited before
 * the enqueue: a feed that could not subscribe is a 503 too, with its message taken back.
 *
 * Stored first, not in parallel with the enqueue plus a Redis handshake for a worker that read
 * before the commit: measured on this 2-core machine (shared, noisy), six alternating runs each of
 * `BENCH_CHAT_TURNS=300 BENCH_CHAT_CONCURRENT=1 bun test/bench/chat.ts`, the added first chunk p50
 * was 8.09 ms in parallel and 8.13 ms stored first (stored first lower in 5 of 6 pairs), whole turn
 * p50 28.9 and 28.3 ms; five alternating full runs (200 concurrent chats): the API's answer p50
 * 1,303 and 1,243 ms. Interleaved in one process (1,200 submits), stored first adds 0.17 ms at p50
 * (4.25 against 4.08 ms) and 0.9 ms on average to the API's answer. Within the noise, so the
 * simpler order won: no stored-word handshake, no blocking connection pool on the workers.
 */
export async function submitTurn(ctx: SubmitDeps, prepared: PreparedTurn, subscribed?: Promise<void>): Promise<void> {
  const { turn } = prepared;
  await fromPostgres(appendUserMessage(ctx, prepared));
  try {
    await subscribed?.catch(unavailable("Redis"));
    // Both on the request connection back to back: one round trip on one Redis (on a cluster the
    // two keys' primaries may differ, and each gets its own).
    await Promise.all([
      markActive(ctx, turn),
      enqueue(ctx.queues, "chat.turn", turn, { jobId: `turn-${turn.turnId}` }),
    ]).catch(unavailable("Redis"));
  } catch (error) {
    await withdrawUserMessage(ctx, prepared).catch(() => {});
    throw error;
  }
}
