import type { ChatTurn } from "../../shared/chat/turn";
import type { Deps } from "../../shared/deps";
import { failChatTurn, runChatTurn } from "../../shared/services/chatTurn";

export function chatTurn(deps: Deps, turn: ChatTurn) {
  return runChatTurn(deps, turn);
}

/** Called when a chat turn failed for good (an exception, or a worker that died and stalled it). */
export function chatTurnFailed(deps: Deps, turn: ChatTurn, reason: string) {
  return failChatTurn(deps, turn, reason);
}
