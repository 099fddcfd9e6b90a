import { describe, expect, test } from "bun:test";
import { parseEnv } from "../../shared/core/env";
import { QUEUES, selectQueues } from "../../shared/jobs/catalog";

describe("WORKER_QUEUES", () => {
  test("unset or blank runs every queue", () => {
    expect(selectQueues(undefined)).toEqual(QUEUES);
    expect(selectQueues(" , ")).toEqual(QUEUES);
  });

  test("a list selects those queues, trimmed, once each", () => {
    expect(selectQueues("chat")).toEqual(["chat"]);
    expect(selectQueues(" papers, conditions ,papers")).toEqual(["papers", "conditions"]);
  });

  test("an unknown queue fails the start, naming the variable and the queue", () => {
    expect(() => selectQueues("chat,chats")).toThrow(/WORKER_QUEUES: unknown queue chats/);
  });

  test("the env schema refuses characters no queue name has", () => {
    expect(parseEnv({ WORKER_QUEUES: "chat,papers" }).WORKER_QUEUES).toBe("chat,papers");
    expect(() => parseEnv({ WORKER_QUEUES: "chat;papers" })).toThrow(/WORKER_QUEUES/);
  });
});
