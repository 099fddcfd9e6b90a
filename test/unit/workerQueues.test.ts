import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { parseEnv } from "../../shared/core/env";
import { JOBS, type JobName, QUEUES, selectQueues } from "../../shared/jobs/catalog";
import { payloadCheck } from "../../shared/jobs/queue";

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

describe("job payload checks", () => {
  test("every job's payload schema compiles, and the compiled check refuses what the schema refuses", () => {
    for (const name of Object.keys(JOBS) as JobName[]) {
      const check = payloadCheck(name);
      expect(check.Check(Symbol("not a payload"))).toBe(Value.Check(JOBS[name].payload, Symbol("not a payload")));
      expect(check.Check(null)).toBe(Value.Check(JOBS[name].payload, null));
    }
  });
});
