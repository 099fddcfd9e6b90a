import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { UIMessageChunk } from "ai";
import { waitFor } from "../../../scripts/lib/processes";
import { prepareTurn } from "../../../shared/chat/turn/prepare";
import { submitTurn } from "../../../shared/chat/turn/start";
import { contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import { findChatById, findReplyToTurn, listMessages } from "../../../shared/conversations/repository";
import { redisKeys } from "../../../shared/core/redis";
import { followToEnd, openTurnFeed } from "../../../shared/events/turnFeed";
import { enqueue } from "../../../shared/jobs/queue";
import { startWorkers, type Workers } from "../../../workers/runner";
import { createTestAccount } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

/**
 * The API stores a turn's message, then queues the turn (`submitTurn`): both or neither. These are
 * the rules that keep a failure of either from leaving half a turn behind.
 */
let deps: Deps;
let workers: Workers;
let accountId: string;

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["chat"] });
  accountId = (await createTestAccount(deps, "pro")).accountId;
});

afterAll(async () => {
  await workers?.close();
});

const ctx = () => contextFor(deps, "test", { accountId, plan: "pro" as const });

/** Follows a turn to its end; `start` runs while the follower subscribes. */
async function follow(turnId: string, start?: () => Promise<void>) {
  const chunks: UIMessageChunk[] = [];
  const feed = openTurnFeed(deps, turnId, 0);
  await start?.();
  const result = await followToEnd(feed, (event) => {
    if ("chunk" in event) chunks.push(event.chunk);
  });
  return { result, chunks };
}

describe("a chat turn's message is stored before the turn is queued", () => {
  test("a stored and queued turn is answered: the message, then the reply", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    const { result } = await follow(prepared.turn.turnId, () => submitTurn(deps, prepared));
    expect(result).toBe("ok");
    const messages = await listMessages(deps.sql, prepared.turn.chatId);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(messages[0]?.id).toBe(prepared.turn.turnId);
    expect(JSON.stringify(messages[1]?.parts)).toContain("pregnancy");
  });

  test("a message that could not be stored is a 503 and queues nothing", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    // An account that does not exist: the chat's insert fails (foreign key).
    const ghost = Bun.randomUUIDv7();
    prepared.chat.accountId = ghost;
    prepared.turn.accountId = ghost;
    await expect(submitTurn(deps, prepared)).rejects.toMatchObject({ kind: "UNAVAILABLE" });
    expect(await deps.queues.chat.getJob(`turn-${prepared.turn.turnId}`)).toBeUndefined();
    expect(await findChatById(deps.sql, ghost, prepared.turn.chatId)).toBeUndefined();
    const activeTurn = redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(prepared.turn.chatId);
    expect(await deps.redis.get(activeTurn)).toBeNull();
  });

  test("a turn that could not be queued leaves no message behind", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    // A payload the job catalog refuses: the enqueue fails after the message was stored.
    prepared.turn.modelId = "";
    await expect(submitTurn(deps, prepared)).rejects.toThrow();
    expect(await findChatById(deps.sql, accountId, prepared.turn.chatId)).toBeUndefined();
    expect(await listMessages(deps.sql, prepared.turn.chatId)).toEqual([]);
  });

  test("a new turn is queued only once its feed's subscription is live; a subscription that failed is a 503 with nothing kept", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    const { turn } = prepared;
    let fail: (error: Error) => void = () => {};
    const subscribed = new Promise<void>((_, reject) => (fail = reject));
    const submitted = submitTurn(deps, prepared, subscribed);
    submitted.catch(() => {});
    // The message is stored while the subscription is still pending, and the turn is not queued:
    // a feed that skips the log (`unqueued`) relies on this order.
    await waitFor("the message stored", async () => (await listMessages(deps.sql, turn.chatId)).length === 1);
    expect(await deps.queues.chat.getJob(`turn-${turn.turnId}`)).toBeUndefined();
    fail(new Error("SSUBSCRIBE failed"));
    await expect(submitted).rejects.toMatchObject({ kind: "UNAVAILABLE" });
    expect(await deps.queues.chat.getJob(`turn-${turn.turnId}`)).toBeUndefined();
    expect(await listMessages(deps.sql, turn.chatId)).toEqual([]);
  });

  test("a queued turn whose message was taken back ends with an error on the worker and stores nothing", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    const { turn } = prepared;
    const { result, chunks } = await follow(turn.turnId, async () => {
      await enqueue(deps.queues, "chat.turn", turn, { jobId: `turn-${turn.turnId}` });
    });
    expect(result).toBe("error");
    expect(chunks.some((chunk) => chunk.type === "error")).toBe(true);
    expect(await findReplyToTurn(deps.sql, turn.turnId)).toBeUndefined();
  });
});
