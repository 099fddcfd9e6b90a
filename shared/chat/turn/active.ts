import type { Ctx } from "../../context/ctx";
import type { Deps } from "../../context/deps";
import { ownedChat } from "../../conversations/chats";
import { redisKeys } from "../../core/redis";
import { unavailable } from "../../core/unavailable";
import { openTurnFeed, type TurnFeed } from "../../events/turnFeed";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";

/** Outlives any turn, so a worker that died without clearing the mark does not leave it forever. */
const ACTIVE_TTL_SECONDS = 3600;

type RedisDeps = Pick<Deps, "redis" | "env">;

/** Marks the chat's turn in progress, for a client that re-attaches. */
export function markActive(deps: RedisDeps, turn: ChatTurn): Promise<unknown> {
  return deps.redis.set(
    redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(turn.chatId),
    turn.turnId,
    "EX",
    ACTIVE_TTL_SECONDS,
  );
}

export async function clearActive(deps: RedisDeps, chatId: string): Promise<void> {
  await deps.redis.del(redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(chatId));
}

/**
 * The caller's chat's turn in progress, followed from after `afterSeq` (a client's Last-Event-ID);
 * undefined when no turn is in progress. Another account's chat is 404.
 */
export async function activeTurn(
  ctx: Ctx,
  input: { chatId: string; afterSeq: number },
): Promise<{ chatId: string; feed: TurnFeed } | undefined> {
  const chat = await ownedChat(ctx, input.chatId);
  const turnId = await ctx.redis
    .get(redisKeys(ctx.env.REDIS_PREFIX).chatActiveTurn(chat.id))
    .catch(unavailable("Redis"));
  return turnId ? { chatId: chat.id, feed: openTurnFeed(ctx, turnId, input.afterSeq) } : undefined;
}
