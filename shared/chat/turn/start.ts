import type { Ctx } from "../../context/ctx";
import type { ChatReply, ChatRequest } from "../../conversations/schemas";
import { followToEnd, openTurnFeed, type TurnFeed } from "../../events/turnFeed";
import { prepareTurn } from "./prepare";
import { replyOf } from "./reply";
import { submitTurn } from "./submit";

/** A turn that is stored and queued: relay its events (SSE), or wait for its reply (JSON). */
export interface StartedTurn {
  chatId: string;
  /** The turn's events from the first; subscribed before the turn was queued. */
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
  // Subscribed while the message is stored and the turn queued: a fast worker's first events are
  // held for the feed, and the subscription's round trip does not delay the writes.
  const feed = openTurnFeed(ctx, turn.turnId, 0);
  try {
    await submitTurn(ctx, prepared);
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
