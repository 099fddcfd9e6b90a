import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import { uploadConfig } from "../../../shared/storage/config";
import type { UploadInfo } from "../../../shared/uploads/schemas";
import { startWorkers, type Workers } from "../../../workers/runner";
import { healthAccount } from "../../helpers/health";
import { call, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import { type FakeS3, s3Env, startFakeS3 } from "../../helpers/s3";

/** Uploads with S3-compatible storage: the client PUTs to the bucket's presigned URL. */
let deps: Deps;
let app: TestApp;
let owner: TestAccount;
let workers: Workers;
let s3: FakeS3;

beforeAll(async () => {
  s3 = startFakeS3();
  const base = await testDeps();
  const env = {
    ...base.env,
    ...s3Env(s3),
  };
  deps = { ...base, env, uploads: uploadConfig(env) };
  workers = await startWorkers(deps, { queues: ["uploads"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
});

afterAll(async () => {
  await workers?.close();
  await s3?.stop();
});

describe("uploads to S3-compatible storage", () => {
  test("presign gives the bucket's presigned PUT; complete checks the object; a worker reads it from the bucket", async () => {
    const bytes = new TextEncoder().encode("Potassium 4.1 mmol/L\nSodium 139 mmol/L\n");
    const presigned = await call(app, "/api/v1/uploads/presign", {
      method: "POST",
      key: owner.apiKey,
      body: { scope: "health", filename: "labs.txt", contentType: "text/plain", size: bytes.length },
    });
    expect(presigned.status).toBe(201);
    const ticket = await json<{ fileId: string; uploadUrl: string; headers: Record<string, string> }>(presigned);
    const url = new URL(ticket.uploadUrl);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.pathname).toBe(`/health-uploads/uploads/${owner.accountId}/${ticket.fileId}/original`);
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);

    // Before the bytes are in the bucket, complete is 409.
    const early = await call(app, "/api/v1/uploads/complete", {
      method: "POST",
      key: owner.apiKey,
      body: { fileId: ticket.fileId },
    });
    expect(early.status).toBe(409);

    const put = await fetch(ticket.uploadUrl, { method: "PUT", headers: ticket.headers, body: bytes });
    expect(put.status).toBe(200);
    const done = await call(app, "/api/v1/uploads/complete", {
      method: "POST",
      key: owner.apiKey,
      body: { fileId: ticket.fileId },
    });
    expect(await json(done)).toEqual({ fileId: ticket.fileId, status: "processing" });
    let info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey }));
    while (info.status === "processing") {
      await Bun.sleep(20);
      info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey }));
    }
    expect(info).toMatchObject({ status: "ready", details: { textCharacters: bytes.length } });
    expect(info.sha256).toBe(new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
    // The worker read the object back from the bucket.
    expect(s3.requests.some((r) => r.method === "GET" && r.path.endsWith(`/${ticket.fileId}/original`))).toBe(true);
  });

  test("a short object in the bucket is not accepted as uploaded", async () => {
    const presigned = await call(app, "/api/v1/uploads/presign", {
      method: "POST",
      key: owner.apiKey,
      body: { scope: "health", filename: "short.txt", contentType: "text/plain", size: 100 },
    });
    const ticket = await json<{ fileId: string; uploadUrl: string; headers: Record<string, string> }>(presigned);
    await fetch(ticket.uploadUrl, { method: "PUT", headers: ticket.headers, body: "only a few bytes" });
    const done = await call(app, "/api/v1/uploads/complete", {
      method: "POST",
      key: owner.apiKey,
      body: { fileId: ticket.fileId },
    });
    expect(done.status).toBe(409);
  });
});
