import { failChatTurn, runChatTurn } from "../../shared/chat/turn/run";
import type { Deps } from "../../shared/context/deps";
import type { ChatTurn } from "../../shared/jobs/payloads/chatTurn";

export function chatTurn(deps: Deps, turn: ChatTurn) {
  return runChatTurn(deps, turn);
}

/** Called when a chat turn failed for good (an exception, or a worker that died and stalled it). */
export function chatTurnFailed(deps: Deps, turn: ChatTurn, reason: string) {
  return failChatTurn(deps, turn, reason);
}
