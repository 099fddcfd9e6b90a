import type { Deps } from "../../context/deps";
import { appendUserMessage, withdrawUserMessage } from "../../conversations/turns";
import { fromPostgres, unavailable } from "../../core/unavailable";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";
import { enqueue } from "../../jobs/queue";
import { markActive } from "./active";
import type { PreparedTurn } from "./prepare";
import { tellStored } from "./stored";

type SubmitDeps = Pick<Deps, "sql" | "redis" | "queues" | "env">;

/**
 * Stores the user message and queues its turn at the same time, so the turn's first chunk does not
 * wait for the message's commit. Both or neither: a stored message whose turn could not be queued
 * is deleted again (503), and a queued turn whose message was not stored (503) ends on the worker
 * with an error and stores nothing. A worker that read the conversation before the commit waits
 * for the word `tellStored` leaves (stored.ts).
 */
export async function submitTurn(ctx: SubmitDeps, prepared: PreparedTurn): Promise<void> {
  const { turn } = prepared;
  // The job first: the worker's pick-up is the longer path.
  const queued = enqueueTurn(ctx, turn);
  const stored = fromPostgres(appendUserMessage(ctx, prepared));
  const [store, queue] = await Promise.allSettled([stored, queued]);
  // If this word is lost, a waiting worker decides by reading PostgreSQL once more.
  const word = tellStored(ctx, turn.turnId, store.status === "fulfilled" && queue.status === "fulfilled").catch(
    () => {},
  );
  if (store.status === "rejected") throw store.reason;
  if (queue.status === "rejected") {
    await word;
    await withdrawUserMessage(ctx, prepared).catch(() => {});
    throw queue.reason;
  }
}

/** Queues the turn (the job id is the turn's, so it runs once) and marks it in progress. */
async function enqueueTurn(ctx: SubmitDeps, turn: ChatTurn): Promise<void> {
  // Both go out on the request connection back to back: one round trip on one Redis (on a cluster
  // the two keys' primaries may differ, and each gets its own).
  await Promise.all([
    markActive(ctx, turn),
    enqueue(ctx.queues, "chat.turn", turn, { jobId: `turn-${turn.turnId}` }),
  ]).catch(unavailable("Redis"));
}
