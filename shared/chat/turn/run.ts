import { convertToModelMessages, isStepCount, streamText, type UIMessage } from "ai";
import { contextFor } from "../../context/ctx";
import type { Deps } from "../../context/deps";
import { findReplyToTurn, insertAssistantMessage, listMessages, touchChat } from "../../conversations/repository";
import type { StoredUIMessage, Usage } from "../../conversations/schemas";
import { redisKeys } from "../../core/redis";
import { turnPublisher } from "../../events/turnEvents";
import { getProfile } from "../../health/profile";
import type { ChatTurn } from "../../jobs/payloads/chatTurn";
import { languageModelFor } from "../../llm/languageModels";
import { uploadKey } from "../../storage/storage";
import { CHAT_TOOLS } from "../../tools";
import { toAiSdkTools } from "../../tools/aiSdk";
import { findUploadsByIds, listPages } from "../../uploads/repository";
import { healthInstructions, PROMPT_VERSION } from "./prompt";

/** Steps a turn may take (tool calls and answers); the offline model needs two. */
export const MAX_STEPS = 6;

type Part = UIMessage["parts"][number];

/**
 * What an attachment adds to its message: images as a file part (the downscaled copy when there
 * is one; routing already made sure the model reads images), PDFs as a file part for a model that
 * reads PDFs and as their extracted text otherwise, text files as their text.
 */
async function attachmentParts(
  deps: Deps,
  accountId: string,
  ids: readonly string[],
  readsPdf: boolean,
): Promise<Part[]> {
  if (ids.length === 0) return [];
  const rows = await findUploadsByIds(deps.sql, accountId, [...ids]);
  const parts: Part[] = [];
  for (const row of rows) {
    if (row.status !== "ready") continue;
    if (row.contentType.startsWith("image/")) {
      const bytes = row.details.modelCopy
        ? await deps.uploads.storage.read(uploadKey(row.accountId, row.fileId, "model.jpg"))
        : await processedOriginal(deps, row);
      if (!bytes) continue;
      const mediaType = row.details.modelCopy ? "image/jpeg" : row.contentType;
      parts.push({
        type: "file",
        mediaType,
        filename: row.filename,
        url: `data:${mediaType};base64,${Buffer.from(bytes).toString("base64")}`,
      });
      continue;
    }
    if (row.contentType === "application/pdf" && readsPdf) {
      const bytes = await processedOriginal(deps, row);
      if (bytes) {
        const url = `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`;
        parts.push({ type: "file", mediaType: "application/pdf", filename: row.filename, url });
        continue;
      }
    }
    const pages = await listPages(deps.sql, row.fileId);
    const body = pages.map((text, i) => (pages.length > 1 ? `[page ${i + 1}]\n${text}` : text)).join("\n\n");
    parts.push({ type: "text", text: `Attached file "${row.filename}" (${row.contentType}):\n${body}` });
  }
  return parts;
}

/**
 * An upload's original bytes, only if they are still the ones processing checked. With S3 the
 * client PUTs to the bucket's presigned URL, which the bucket accepts again until it lapses, so the
 * object may have been replaced since (another size, another type): its size, then its SHA-256,
 * must match what was recorded. A PDF falls back to its extracted text; an image is left out.
 */
async function processedOriginal(
  deps: Deps,
  row: { accountId: string; fileId: string; size: number; sha256: string | null },
): Promise<Uint8Array | undefined> {
  const key = uploadKey(row.accountId, row.fileId);
  const bytes = (await deps.uploads.storage.size(key)) === row.size ? await deps.uploads.storage.read(key) : undefined;
  if (bytes && new Bun.CryptoHasher("sha256").update(bytes).digest("hex") === row.sha256) return bytes;
  deps.log.warn("upload changed since processing; not sent to the model", { fileId: row.fileId });
  return undefined;
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
      const metadata = (message.metadata ?? {}) as { replyContexts?: { text: string }[]; attachmentIds?: string[] };
      const parts = message.parts as UIMessage["parts"];
      if (message.role !== "user") return { ...message, parts } as UIMessage;
      const quotes = metadata.replyContexts ?? [];
      const before: Part[] = await attachmentParts(deps, accountId, metadata.attachmentIds ?? [], readsPdf);
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
 * rejection with no handler yet is an unhandled rejection, which ends the worker process and every
 * turn it runs (the load run saw Redis commands time out under overload do that). The no-op handler
 * only marks it handled; awaiting the promise still throws, so the turn fails and is cleaned up.
 */
function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** A turn's reply has an id derived from the turn's, so every attempt and every reader agree on it. */
export function replyIdFor(turnId: string): string {
  return `${turnId}-reply`;
}

/** How long a worker waits for the API's word that a turn's message is stored (`submitTurn`). */
export const TURN_STORED_WAIT_MS = 10_000;

/**
 * Whether a queued turn's message is stored, for a worker that read the conversation before the
 * API's commit: the API's word in Redis once it knows, else (the word lost) PostgreSQL decides.
 */
async function messageStored(deps: Deps, turn: ChatTurn): Promise<boolean> {
  const key = redisKeys(deps.env.REDIS_PREFIX).turnStored(turn.turnId);
  const deadline = Date.now() + TURN_STORED_WAIT_MS;
  while (Date.now() < deadline) {
    const word = await deps.redis.get(key);
    if (word) return word === "stored";
    await Bun.sleep(5);
  }
  return (await listMessages(deps.sql, turn.chatId)).some((message) => message.id === turn.turnId);
}

/**
 * Runs one turn on a worker: history and (with consent) profile → model with tools → every UI
 * message chunk published with a sequence number → the reply stored once → `end`. A client that
 * disconnected does not stop it.
 */
export async function runChatTurn(deps: Deps, turn: ChatTurn): Promise<{ messageId: string | null }> {
  const publisher = turnPublisher(deps.redis, deps.env.REDIS_PREFIX, turn.turnId);
  const messageId = replyIdFor(turn.turnId);
  // The stream starts as soon as the turn is picked up; history and profile are read meanwhile.
  const started = awaitedLater(publisher.publish({ chunk: { type: "start", messageId } }));
  // Three independent reads, in parallel.
  const [existing, read, profile] = await Promise.all([
    findReplyToTurn(deps.sql, turn.turnId),
    listMessages(deps.sql, turn.chatId),
    getProfile({ sql: deps.sql, accountId: turn.accountId }),
  ]);
  let history = read;
  // The API stores the message while the turn is queued (submitTurn); this read may have come first.
  if (!existing && !history.some((message) => message.id === turn.turnId)) {
    await started;
    if (!(await messageStored(deps, turn))) {
      // Never stored (the API answered 503): nothing to answer, nothing to store.
      await publisher.publish({ chunk: { type: "error", errorText: "The message was not stored; please retry." } });
      await deps.redis.del(redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(turn.chatId));
      await publisher.publish({ end: "error" });
      return { messageId: null };
    }
    history = await listMessages(deps.sql, turn.chatId);
  }
  if (existing) {
    await started;
    await publisher.publish({ end: "ok" });
    return { messageId: existing.id };
  }
  const entry = deps.models.find((model) => model.id === turn.modelId);
  if (!entry) throw new Error(`Model ${turn.modelId} is not in this worker's catalog`);
  const ctx = contextFor(deps, turn.turnId, turn);
  const result = streamText({
    model: languageModelFor(entry, deps.env),
    instructions: healthInstructions(profile),
    messages: await convertToModelMessages(
      await toModelInput(deps, turn.accountId, history, entry.inputModalities.includes("pdf")),
    ),
    tools: toAiSdkTools(CHAT_TOOLS, ctx),
    stopWhen: isStepCount(MAX_STEPS),
    // Provider errors go to our log (the SDK would print them); the UI stream turns them into an error chunk.
    onError: ({ error }) => deps.log.warn("chat model error", { turnId: turn.turnId, model: entry.id, error }),
  });
  let reply: UIMessage | undefined;
  let failed = false;
  const stream = result.toUIMessageStream({
    generateMessageId: () => messageId,
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
  // Chunks are sent without waiting for each reply: one connection keeps them in order, and the
  // stream is not held up by Redis round trips. Every send is awaited before the reply is stored.
  const sends: Promise<void>[] = [started];
  for await (const chunk of stream) {
    if (chunk.type === "error") failed = true;
    sends.push(awaitedLater(publisher.publish({ chunk })));
  }
  await Promise.all(sends);
  const finishReason = failed ? "error" : await Promise.resolve(result.finishReason).catch(() => "error" as const);
  const usage = usageOf(await Promise.resolve(result.totalUsage).catch(() => ({})));
  const stored: StoredUIMessage = {
    id: messageId,
    role: "assistant",
    parts: (reply?.parts ?? []) as StoredUIMessage["parts"],
    metadata: {
      model: entry.id,
      usage,
      finishReason,
      promptVersion: PROMPT_VERSION,
      // The instructions carried the profile, so the reply may quote it anywhere: shares withhold it.
      profileInPrompt: profile?.consentGiven === true,
      createdAt: new Date().toISOString(),
    },
  };
  await insertAssistantMessage(deps.sql, turn.chatId, turn.turnId, stored);
  await touchChat(deps.sql, turn.chatId);
  await deps.redis.del(redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(turn.chatId));
  await publisher.publish({ end: failed ? "error" : "ok" });
  return { messageId };
}

/**
 * A turn that failed outside the model (a crash, a stalled worker): its listeners get an error
 * chunk and `end`, and the chat gets one error reply, so the store stays consistent.
 */
export async function failChatTurn(deps: Deps, turn: ChatTurn, reason: string): Promise<void> {
  const keys = redisKeys(deps.env.REDIS_PREFIX);
  const message: StoredUIMessage = {
    id: replyIdFor(turn.turnId),
    role: "assistant",
    parts: [],
    metadata: { model: turn.modelId, finishReason: "error", error: reason, createdAt: new Date().toISOString() },
  };
  const stored = await insertAssistantMessage(deps.sql, turn.chatId, turn.turnId, message);
  await deps.redis.del(keys.chatActiveTurn(turn.chatId));
  // Sequence numbers continue after whatever the dead attempt already sent.
  const publisher = turnPublisher(
    deps.redis,
    deps.env.REDIS_PREFIX,
    turn.turnId,
    await deps.redis.xlen(keys.turnLog(turn.turnId)),
  );
  if (stored) {
    await publisher.publish({
      chunk: { type: "error", errorText: "The assistant stopped unexpectedly; please retry." },
    });
  }
  await publisher.publish({ end: stored ? "error" : "ok" });
}
