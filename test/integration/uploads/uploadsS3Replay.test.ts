import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import type { Env } from "../../../shared/core/env";
import { modelCatalog } from "../../../shared/llm/models";
import { uploadConfig } from "../../../shared/storage/config";
import type { UploadInfo } from "../../../shared/uploads/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { openaiReplayEnv, type ProviderReplay, startProviderReplay } from "../../fixtures/providers/replayServer";
import { healthAccount } from "../../helpers/health";
import { call, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { type FakeS3, s3Env, startFakeS3 } from "../../helpers/s3";
import { makePdf } from "../../helpers/uploads";
import { startUpstreamFixtures, type UpstreamFixtures, upstreamEnv } from "../../helpers/upstream";

/**
 * With S3-compatible storage the upload URL is the bucket's presigned PUT, which the bucket accepts
 * again until it lapses. Bytes PUT again after processing must never reach a model: a model that
 * reads PDFs gets the extracted text of the checked bytes instead.
 */
let deps: Deps;
let app: TestApp;
let owner: TestAccount;
let workers: Workers;
let s3: FakeS3;
let upstream: UpstreamFixtures;
let openai: ProviderReplay;

beforeAll(async () => {
  s3 = startFakeS3();
  upstream = startUpstreamFixtures();
  openai = startProviderReplay("openai");
  const base = await testDeps();
  const env: Env = {
    ...base.env,
    ...s3Env(s3),
    ...upstreamEnv(upstream),
    ...openaiReplayEnv(openai),
  };
  deps = { ...base, env, uploads: uploadConfig(env), models: modelCatalog(env) };
  workers = await startWorkers(deps, { queues: ["uploads", "chat", "rxnav", "openfda"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
});

afterAll(async () => {
  await workers?.close();
  await s3?.stop();
  await upstream?.stop();
  await openai?.stop();
});

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

async function sentToModel(fileId: string): Promise<string> {
  const seen = openai.requests.length;
  const reply = await call(app, "/api/v1/health/chat", {
    method: "POST",
    key: owner.apiKey,
    body: { message: "What does my lab report say?", attachment_ids: [fileId], model: "gpt-4.1-mini" },
  });
  expect(reply.status).toBe(200);
  return JSON.stringify(openai.requests[seen]?.body);
}

describe("a presigned S3 PUT repeated after processing", () => {
  test("the replaced object (same or another size) never reaches the model; the checked text does", async () => {
    const original = await makePdf(["HbA1c 6.1 % (reference 4.0-5.6)"]);
    const presigned = await call(app, "/api/v1/uploads/presign", {
      method: "POST",
      key: owner.apiKey,
      body: { scope: "health", filename: "labs.pdf", contentType: "application/pdf", size: original.length },
    });
    const ticket = await json<{ fileId: string; uploadUrl: string; headers: Record<string, string> }>(presigned);
    const put = (bytes: Uint8Array) => fetch(ticket.uploadUrl, { method: "PUT", headers: ticket.headers, body: bytes });
    expect((await put(original)).status).toBe(200);
    await call(app, "/api/v1/uploads/complete", { method: "POST", key: owner.apiKey, body: { fileId: ticket.fileId } });
    let info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey }));
    while (info.status === "processing") {
      await Bun.sleep(20);
      info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey }));
    }
    expect(info.status).toBe("ready");
    expect(await sentToModel(ticket.fileId)).toContain(base64(original));

    // Same size, other bytes; then a larger object than was ever declared.
    const sameSize = new Uint8Array(original);
    sameSize.set(new TextEncoder().encode("%PDF-1.7 replaced"), 0);
    const larger = await makePdf(["Replaced after processing", "with more pages", "than declared"]);
    for (const replaced of [sameSize, larger]) {
      expect((await put(replaced)).status).toBe(200);
      const sent = await sentToModel(ticket.fileId);
      expect(sent).not.toContain(base64(replaced).slice(0, 200));
      expect(sent).not.toContain("data:application/pdf;base64,");
      expect(sent).toContain("HbA1c 6.1 % (reference 4.0-5.6)");
    }
  });
});
