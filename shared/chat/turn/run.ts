import { convertToModelMessages, isStepCount, streamText, type UIMessage, type UIMessageChunk } from "ai";
import { isAuthorized } from "../../auth/authorize";
import { type Caller, contextFor } from "../../context/ctx";
import type { Deps } from "../../context/deps";
import type { StoredUIMessage, Usage } from "../../conversations/schemas";
import { appendErrorReply, appendReply, chatMessages, replyToTurn } from "../../conversations/turns";
import { latestLoggedSeq, turnPublisher } from "../../events/turnLog";
import type { HealthProfile } from "../../healthRecords/schemas";
import { getHealthProfile } from "../../healthRecords/sections";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";
import { languageModelFor } from "../../llm/languageModels";
import type { ModelEntry } from "../../llm/models";
import { toAiSdkTools } from "../../tools/aiSdk";
import { CHAT_TOOLS } from "../../tools/chatTools";
import { clearActive } from "./active";
import { attachmentParts } from "./attachments";
import { healthInstructions, PROMPT_VERSION } from "./prompt";
import { replyIdFor, replyMessage } from "./reply";
import { messageSafety, noticeRecorder, type TurnSafety } from "./urgent";
import { offlineVocabulary } from "./vocabulary";

/** Steps a turn may take (tool calls and answers); the offline model takes at most four. */
export const MAX_STEPS = 6;

type Publisher = ReturnType<typeof turnPublisher>;
type Conversation = { history: StoredUIMessage[]; profile: HealthProfile | undefined };

/**
 * Runs one turn on a worker: history and (with consent) profile → model with tools → every UI
 * message chunk published with a sequence number → the reply stored once → `end`. A client that
 * disconnected does not stop it.
 */
export async function runChatTurn(deps: Deps, turn: ChatTurn): Promise<{ messageId: string | null }> {
  const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turn.turnId);
  const messageId = replyIdFor(turn.turnId);
  // The stream starts as soon as the turn is picked up; the conversation is read meanwhile.
  const started = awaitedLater(publisher.publish({ chunk: { type: "start", messageId } }));
  const read = await readConversation(deps, turn);
  if (read === "not stored") {
    // The message was taken back (the API answered 503): nothing to answer, nothing to store.
    await started;
    await publisher.publish({ chunk: { type: "error", errorText: "The message was not stored; please retry." } });
    await clearActive(deps, turn.chatId);
    await publisher.publish({ end: "error" });
    return { messageId: null };
  }
  if ("answered" in read) {
    // Another attempt of this turn stored its reply already.
    await started;
    await publisher.publish({ end: "ok" });
    return { messageId: read.answered.id };
  }
  const model = modelOf(deps, turn);
  // The triage runs before the answer, whatever the model (docs/safety.md).
  const safety = await messageSafety(deps, model, read.history, turn.turnId);
  const stream = await streamAnswer(deps, turn, model, read, safety);
  const answer = await relayAnswer(deps, turn, publisher, started, stream, safety);
  const reply = replyMessage(turn.turnId, answer.parts, {
    model: model.id,
    usage: answer.usage,
    finishReason: answer.finishReason,
    promptVersion: PROMPT_VERSION,
    // The instructions carried the profile, so the reply may quote it anywhere: shares withhold it.
    profileInPrompt: read.profile?.consentGiven === true,
  });
  await appendReply(deps, { chatId: turn.chatId, turnId: turn.turnId, reply });
  await clearActive(deps, turn.chatId);
  await publisher.publish({ end: answer.failed ? "error" : "ok" });
  return { messageId };
}

/**
 * The conversation the turn answers. The API stores the message before it queues the turn
 * (submitTurn), so a missing message was taken back: the queueing failed and the client got 503.
 */
async function readConversation(
  deps: Deps,
  turn: ChatTurn,
): Promise<Conversation | { answered: StoredUIMessage } | "not stored"> {
  const [existing, history, profile] = await Promise.all([
    replyToTurn(deps, turn.turnId),
    chatMessages(deps, turn.chatId),
    readsProfile(deps, turn).then((reads) =>
      reads ? getHealthProfile({ sql: deps.sql, accountId: turn.accountId }) : undefined,
    ),
  ]);
  if (existing) return { answered: existing };
  if (history.some((message) => message.id === turn.turnId)) return { history, profile };
  return "not stored";
}

/** A token without health:read gets no profile in the instructions, as its tools read none. */
async function readsProfile(deps: Deps, turn: ChatTurn): Promise<boolean> {
  return await isAuthorized({ plans: deps.plans, ...turnCaller(turn) }, { scope: "health:read" });
}

/** Who the turn acts for: the account, its plan, and the OAuth scopes its tools keep to. */
function turnCaller(turn: ChatTurn): Caller {
  return { accountId: turn.accountId, plan: turn.plan, ...(turn.scopes ? { scopes: new Set(turn.scopes) } : {}) };
}

function modelOf(deps: Deps, turn: ChatTurn): ModelEntry {
  const entry = deps.models.find((model) => model.id === turn.modelId);
  if (!entry) throw new Error(`Model ${turn.modelId} is not in this worker's catalog`);
  return entry;
}

/** The model's answer as a stream, with the turn's tools acting for the turn's account. */
async function streamAnswer(
  deps: Deps,
  turn: ChatTurn,
  model: ModelEntry,
  conversation: Conversation,
  safety: TurnSafety,
) {
  const input = await toModelInput(deps, turn.accountId, conversation.history, model.inputModalities.includes("pdf"));
  return streamText({
    model: languageModelFor(model, deps.env, offlineVocabulary(deps)),
    instructions: healthInstructions(conversation.profile, safety),
    messages: await convertToModelMessages(input),
    tools: toAiSdkTools(CHAT_TOOLS, contextFor(deps, turn.turnId, turnCaller(turn))),
    stopWhen: isStepCount(MAX_STEPS),
    // Provider errors go to our log (the SDK would print them); the UI stream turns them into an error chunk.
    onError: ({ error }) => deps.log.warn("chat model error", { turnId: turn.turnId, model: model.id, error }),
  });
}

/**
 * Publishes every UI message chunk of the answer. Chunks are sent without waiting for each reply:
 * one connection keeps them in order, and the stream is not held up by Redis round trips. Every
 * send is awaited before the answer is returned (and stored).
 */
async function relayAnswer(
  deps: Deps,
  turn: ChatTurn,
  publisher: Publisher,
  started: Promise<void>,
  result: Awaited<ReturnType<typeof streamAnswer>>,
  safety: TurnSafety,
): Promise<{ parts: StoredUIMessage["parts"]; failed: boolean; finishReason: string; usage: Usage }> {
  let reply: UIMessage | undefined;
  let failed = false;
  const notices = noticeRecorder(contextFor(deps, turn.turnId, turnCaller(turn)), safety);
  const stream = result.toUIMessageStream({
    generateMessageId: () => replyIdFor(turn.turnId),
    // "start" went out already, before the reads.
    sendStart: false,
    sendSources: true,
    onError: (error) => {
      deps.log.error("chat turn model error", { turnId: turn.turnId, error });
      return "The assistant failed while answering; please retry.";
    },
    onFinish: ({ responseMessage }) => {
      reply = responseMessage;
    },
  });
  const sends: Promise<void>[] = [started];
  const send = (chunk: UIMessageChunk) => sends.push(awaitedLater(publisher.publish({ chunk })));
  // The triage and its advice come before anything the model sends.
  for (const chunk of notices.opening()) send(chunk);
  for await (const chunk of stream) {
    if (chunk.type === "error") failed = true;
    send(chunk);
    const extra = notices.after(chunk);
    if (extra) for (const notice of await extra) send(notice);
  }
  await Promise.all(sends);
  const finishReason = failed ? "error" : await Promise.resolve(result.finishReason).catch(() => "error" as const);
  const usage = usageOf(await Promise.resolve(result.totalUsage).catch(() => ({})));
  const parts = notices.stored((reply?.parts ?? []) as StoredUIMessage["parts"]);
  return { parts, failed, finishReason, usage };
}

/** Quoted excerpts a user replied to and attached files reach the model as parts before the message. */
async function toModelInput(
  deps: Deps,
  accountId: string,
  messages: StoredUIMessage[],
  readsPdf: boolean,
): Promise<UIMessage[]> {
  return Promise.all(
    messages.map(async (message) => {
      const parts = message.parts as UIMessage["parts"];
      if (message.role !== "user") return { ...message, parts } as UIMessage;
      const quotes = message.metadata?.replyContexts ?? [];
      const before = await attachmentParts(deps, accountId, message.metadata?.attachmentIds ?? [], readsPdf);
      if (quotes.length > 0) {
        const quoted = quotes.map((quote) => `> ${quote.text.replace(/\n/g, "\n> ")}`).join("\n\n");
        before.unshift({ type: "text", text: `The user is replying to:\n${quoted}` });
      }
      return { ...message, parts: [...before, ...parts] } as UIMessage;
    }),
  );
}

function usageOf(total: { inputTokens?: number; outputTokens?: number; totalTokens?: number }): Usage {
  return {
    inputTokens: total.inputTokens ?? null,
    outputTokens: total.outputTokens ?? null,
    totalTokens: total.totalTokens ?? null,
  };
}

/**
 * A send that is awaited later (after the reads, or after the stream) and may fail before: a
 * rejection with no handler yet is an unhandled rejection, which would end the worker process and
 * every turn it runs. The no-op handler only marks it handled; awaiting the promise still throws,
 * so the turn fails and is cleaned up.
 */
function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/**
 * A turn that failed outside the model (a crash, a stalled worker): its listeners get an error
 * chunk and `end`, and the chat gets one error reply, so the store stays consistent.
 */
export async function failChatTurn(deps: Deps, turn: ChatTurn, reason: string): Promise<void> {
  const message = replyMessage(turn.turnId, [], { model: turn.modelId, finishReason: "error", error: reason });
  const stored = await appendErrorReply(deps, { chatId: turn.chatId, turnId: turn.turnId, reply: message });
  await clearActive(deps, turn.chatId);
  // Sequence numbers continue after the newest the dead attempt logged (not the log's length: it
  // is capped, and a Redis failover can lose entries a follower already saw).
  const sent = await latestLoggedSeq(deps.redis, deps.env.REDIS_PREFIX, turn.turnId);
  const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turn.turnId, sent);
  if (stored) {
    await publisher.publish({
      chunk: { type: "error", errorText: "The assistant stopped unexpectedly; please retry." },
    });
  }
  await publisher.publish({ end: stored ? "error" : "ok" });
}
