import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { UIMessageChunk } from "ai";
import { prepareTurn } from "../../shared/chat/turn/prepare";
import { tellStored } from "../../shared/chat/turn/stored";
import { submitTurn } from "../../shared/chat/turn/submit";
import { contextFor } from "../../shared/context/ctx";
import type { Deps } from "../../shared/context/deps";
import {
  findChatById,
  findReplyToTurn,
  insertChatWithMessage,
  listMessages,
} from "../../shared/conversations/repository";
import { redisKeys } from "../../shared/core/redis";
import { followToEnd, openTurnFeed } from "../../shared/events/turnFeed";
import { enqueue } from "../../shared/jobs/queue";
import { startWorkers, type Workers } from "../../workers/runner";
import { createTestAccount } from "../helpers/http";
import { testDeps } from "../helpers/infra";

/**
 * The API stores a turn's message and queues the turn at the same time (`submitTurn`), so a worker
 * may pick the turn up before the message is committed. These are the rules that keep that safe.
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

describe("a chat turn queued while its message is being stored", () => {
  test("a worker that got the turn before the commit waits for the API's word, then answers the stored message", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    const { turn } = prepared;
    let sawStart: () => void = () => {};
    const started = new Promise<void>((resolve) => (sawStart = resolve));
    const followed = followToEnd(openTurnFeed(deps, turn.turnId, 0), (event) => {
      if ("chunk" in event && event.chunk.type === "start") sawStart();
    });
    // Queued first; the message is stored only once the worker has started (and read nothing).
    await enqueue(deps.queues, "chat.turn", turn, { jobId: `turn-${turn.turnId}` });
    await started;
    await Bun.sleep(100);
    expect(await findReplyToTurn(deps.sql, turn.turnId)).toBeUndefined();
    await insertChatWithMessage(deps.sql, prepared.chat, prepared.message);
    await tellStored(deps, turn.turnId, true);

    expect(await followed).toBe("ok");
    const messages = await listMessages(deps.sql, turn.chatId);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(messages[0]?.id).toBe(turn.turnId);
    expect(JSON.stringify(messages[1]?.parts)).toContain("pregnancy");
  });

  test("a turn whose message could not be stored is a 503, ends with an error on the worker and stores nothing", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    // An account that does not exist: the chat's insert fails (foreign key) after the turn is queued.
    const ghost = Bun.randomUUIDv7();
    prepared.chat.accountId = ghost;
    prepared.turn.accountId = ghost;
    let failure: unknown;
    const { result, chunks } = await follow(prepared.turn.turnId, () =>
      submitTurn(deps, prepared).catch((error) => {
        failure = error;
      }),
    );
    expect(failure).toMatchObject({ kind: "UNAVAILABLE" });
    expect(result).toBe("error");
    expect(chunks.some((chunk) => chunk.type === "error")).toBe(true);
    expect(await findChatById(deps.sql, ghost, prepared.turn.chatId)).toBeUndefined();
    expect(await findReplyToTurn(deps.sql, prepared.turn.turnId)).toBeUndefined();
    const activeTurn = redisKeys(deps.env.REDIS_PREFIX).chatActiveTurn(prepared.turn.chatId);
    expect(await deps.redis.get(activeTurn)).toBeNull();
  });

  test("a turn that could not be queued leaves no message behind", async () => {
    const prepared = await prepareTurn(ctx(), { message: "symptom options for pregnancy" });
    // A payload the job catalog refuses: the enqueue fails after the message's insert started.
    prepared.turn.modelId = "";
    await expect(submitTurn(deps, prepared)).rejects.toThrow();
    expect(await findChatById(deps.sql, accountId, prepared.turn.chatId)).toBeUndefined();
    expect(await listMessages(deps.sql, prepared.turn.chatId)).toEqual([]);
  });
});
