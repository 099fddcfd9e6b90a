import type { Deps } from "../../context/deps";
import type { ChatReply } from "../../conversations/schemas";
import { followTurn } from "./follow";
import { type ChatCtx, type PreparedTurn, replyOf, submitTurn } from "./prepare";

export type TurnCtx = ChatCtx & Pick<Deps, "turnSubscriber" | "log">;

/**
 * Stores and queues a prepared turn and waits for its end, then returns the stored reply: the JSON path of
 * POST /api/v1/health/chat and the MCP `health_chat` tool. It subscribes while enqueueing and then
 * replays the turn's log, so a fast worker's events are not missed; a turn past CHAT_TURN_TIMEOUT_MS
 * ends as an error (502).
 */
export async function runTurnToEnd(ctx: TurnCtx, prepared: PreparedTurn): Promise<ChatReply> {
  await followTurn(ctx, prepared.turn.turnId, {
    afterSeq: 0,
    start: () => submitTurn(ctx, prepared),
    onEvent: () => {},
  });
  return replyOf(ctx, prepared.turn);
}
