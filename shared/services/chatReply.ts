import { followTurn } from "../chat/followTurn";
import type { ChatReply } from "../chat/schemas";
import type { ChatTurn } from "../chat/turn";
import type { Deps } from "../deps";
import { type ChatCtx, enqueueTurn, replyOf } from "./chat";

export type TurnCtx = ChatCtx & Pick<Deps, "turnSubscriber" | "log">;

/**
 * Queues a prepared turn and waits for its end, then returns the stored reply: the JSON path of
 * POST /api/v1/health/chat and the MCP `health_chat` tool. It subscribes while enqueueing and then
 * replays the turn's log, so a fast worker's events are not missed; a turn past CHAT_TURN_TIMEOUT_MS
 * ends as an error (502).
 */
export async function runTurnToEnd(ctx: TurnCtx, turn: ChatTurn): Promise<ChatReply> {
  await followTurn(ctx, turn.turnId, {
    afterSeq: 0,
    start: () => enqueueTurn(ctx, turn),
    onEvent: () => {},
  });
  return replyOf(ctx, turn);
}
