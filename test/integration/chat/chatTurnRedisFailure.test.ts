import { afterAll, describe, expect, test } from "bun:test";
import { runChatTurn } from "../../../shared/chat/turn/run";
import { createRedis } from "../../../shared/core/redis";
import { OFFLINE_MODEL_ID } from "../../../shared/llm/offline/model";
import { createTestAccount } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

// Nothing listens on port 1: every command on this request-role connection fails at once, as
// commands do when they time out on an overloaded machine (how the load run found this).
const broken = createRedis("redis://127.0.0.1:1/0", "request");
afterAll(() => broken.disconnect());

describe("a chat turn whose Redis sends fail", () => {
  test("fails the turn (so its clean-up runs) instead of crashing the worker process", async () => {
    const deps = await testDeps();
    const account = await createTestAccount(deps, "pro");
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const turn = {
        chatId: Bun.randomUUIDv7(),
        accountId: account.accountId,
        plan: "pro" as const,
        turnId: `msg_${Bun.randomUUIDv7()}`,
        modelId: OFFLINE_MODEL_ID,
      };
      await expect(runChatTurn({ ...deps, redis: broken }, turn)).rejects.toThrow();
      // Rejections nobody handled are reported after the current task: let the pending tasks run.
      await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
