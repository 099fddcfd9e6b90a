import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import { seedDemoReferences } from "../../../scripts/lib/seedReferences";
import type { Deps } from "../../../shared/context/deps";
import type { ChatReply } from "../../../shared/conversations/schemas";
import { uploadKey } from "../../../shared/storage/storage";
import { expirePendingUploads } from "../../../shared/uploads/processing";
import type { UploadInfo } from "../../../shared/uploads/schemas";
import { signUpload } from "../../../shared/uploads/signing";
import { startWorkers, type Workers } from "../../../workers/runner";
import { makePng } from "../../helpers/files";
import { healthAccount } from "../../helpers/health";
import { call, createTestAccount, errorOf, json, type TestAccount, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";
import {
  makePdf,
  type Presigned,
  presign as presignWith,
  put as putWith,
  uploadFile as uploadWith,
} from "../../helpers/uploads";

let deps: Deps;
let app: TestApp;
let owner: TestAccount;
let workers: Workers;

beforeAll(async () => {
  deps = await testDeps();
  workers = await startWorkers(deps, { queues: ["uploads", "chat"] });
  app = createApp(deps);
  owner = await healthAccount(deps, app);
});

afterAll(async () => {
  await workers?.close();
});

const presign = (body: Record<string, unknown>, key = owner.apiKey) => presignWith(app, key, body);
const put = (url: string, bytes: Uint8Array, contentType: string) => putWith(app, url, bytes, contentType);
const uploadFile = (
  bytes: Uint8Array,
  contentType: string,
  filename: string,
  declared = contentType,
  key = owner.apiKey,
) => uploadWith(app, key, { bytes, contentType, filename, declared });

describe("presign", () => {
  test("answers a pending upload with a signed URL, the method and the headers to send", async () => {
    const response = await presign({ filename: "labs.pdf", contentType: "application/pdf", size: 1234 });
    expect(response.status).toBe(201);
    const ticket = await json<Presigned>(response);
    expect(ticket).toMatchObject({ method: "PUT", headers: { "content-type": "application/pdf" } });
    expect(ticket.uploadUrl).toContain(`/api/v1/uploads/${ticket.fileId}/content?expires=`);
    const info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey }));
    expect(info).toMatchObject({ status: "pending", filename: "labs.pdf", size: 1234, expiresAt: ticket.expiresAt });
  });

  test("other scopes and bad bodies are 400, other types 415, too large 413, free plans 403", async () => {
    for (const body of [
      { scope: "research", filename: "a.pdf", contentType: "application/pdf", size: 10 },
      { filename: "a.pdf" },
      { filename: "a.pdf", contentType: "application/pdf", size: 0 },
      { filename: "a.pdf", contentType: "application/pdf", size: 10, path: "/etc" },
    ]) {
      expect((await call(app, "/api/v1/uploads/presign", { method: "POST", key: owner.apiKey, body })).status).toBe(
        400,
      );
    }
    const zip = await presign({ filename: "a.zip", contentType: "application/zip", size: 10 });
    expect(zip.status).toBe(415);
    expect((await errorOf(zip)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const big = await presign({
      filename: "a.pdf",
      contentType: "application/pdf",
      size: deps.env.UPLOAD_MAX_BYTES + 1,
    });
    expect(big.status).toBe(413);
    const free = await createTestAccount(deps, "free");
    expect((await presign({ filename: "a.pdf", contentType: "application/pdf", size: 10 }, free.apiKey)).status).toBe(
      403,
    );
  });
});

describe("the signed PUT", () => {
  test("is accepted once; a second PUT is 409", async () => {
    const bytes = new TextEncoder().encode("hello");
    const ticket = await json<Presigned>(
      await presign({ filename: "a.txt", contentType: "text/plain", size: bytes.length }),
    );
    expect(await json(await put(ticket.uploadUrl, bytes, "text/plain"))).toEqual({
      fileId: ticket.fileId,
      status: "uploaded",
    });
    expect((await put(ticket.uploadUrl, bytes, "text/plain")).status).toBe(409);
  });

  test("tampered, expired, wrong type, oversize and short bodies are refused and nothing is stored", async () => {
    const bytes = new TextEncoder().encode("hello world");
    const ticket = await json<Presigned>(
      await presign({ filename: "a.txt", contentType: "text/plain", size: bytes.length }),
    );
    const url = new URL(ticket.uploadUrl);
    const tampered = new URL(url);
    tampered.searchParams.set("signature", `${url.searchParams.get("signature")?.slice(0, -2)}xx`);
    const expires = Math.floor(Date.now() / 1000) - 10;
    const expired = new URL(url);
    expired.searchParams.set("expires", String(expires));
    expired.searchParams.set(
      "signature",
      signUpload(deps.uploads.secret, {
        fileId: ticket.fileId,
        size: bytes.length,
        contentType: "text/plain",
        expires,
      }),
    );
    const longer = new URL(url);
    longer.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    for (const [target, body, type, status] of [
      [tampered, bytes, "text/plain", 403],
      [expired, bytes, "text/plain", 403],
      [longer, bytes, "text/plain", 403],
      [url, bytes, "application/pdf", 403],
      [url, new TextEncoder().encode("hello world, and more"), "text/plain", 413],
      [url, new TextEncoder().encode("hello"), "text/plain", 400],
    ] as const) {
      const response = await put(target.toString(), body, type);
      expect(response.status).toBe(status);
      await errorOf(response);
    }
    expect(await deps.uploads.storage.size(uploadKey(owner.accountId, ticket.fileId))).toBeUndefined();
    const info = await json<UploadInfo>(await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey }));
    expect(info.status).toBe("pending");
  });

  test("takes files larger than the 1 MiB that holds other routes", async () => {
    const bytes = new TextEncoder().encode("x".repeat(2 * 1024 * 1024));
    const ticket = await json<Presigned>(
      await presign({ filename: "big.txt", contentType: "text/plain", size: bytes.length }),
    );
    expect((await put(ticket.uploadUrl, bytes, "text/plain")).status).toBe(200);
  });

  test("complete before the bytes arrived is 409", async () => {
    const ticket = await json<Presigned>(await presign({ filename: "a.txt", contentType: "text/plain", size: 5 }));
    const response = await call(app, "/api/v1/uploads/complete", {
      method: "POST",
      key: owner.apiKey,
      body: { fileId: ticket.fileId },
    });
    expect(response.status).toBe(409);
  });
});

describe("processing", () => {
  test("a real PDF: ready, with its pages' text, sha256 and page count", async () => {
    const pdf = await makePdf(["HbA1c 6.1 %", "LDL cholesterol 2.9 mmol/L"]);
    const info = await uploadFile(pdf, "application/pdf", "labs.pdf");
    expect(info).toMatchObject({ status: "ready", failureReason: null, details: { pages: 2 } });
    expect(info.sha256).toBe(new Bun.CryptoHasher("sha256").update(pdf).digest("hex"));
    const pages = await deps.sql<
      { text: string }[]
    >`select text from upload_pages where upload_id = ${info.fileId} order by page`;
    expect(pages.map((p) => p.text)).toEqual(["HbA1c 6.1 %", "LDL cholesterol 2.9 mmol/L"]);
  });

  test("a large PNG: ready, with its size and a downscaled JPEG copy for models", async () => {
    const info = await uploadFile(makePng(3000, 2000), "image/png", "rash.png");
    expect(info.details).toEqual({
      width: 3000,
      height: 2000,
      modelCopy: { width: 1568, height: 1045, contentType: "image/jpeg" },
    });
    const copy = await deps.uploads.storage.read(uploadKey(owner.accountId, info.fileId, "model.jpg"));
    expect([...(copy ?? []).slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const small = await uploadFile(makePng(40, 30), "image/png", "small.png");
    expect(small.details).toEqual({ width: 40, height: 30 });
  });

  test("bytes that lie about their type: failed, with the reason", async () => {
    const info = await uploadFile(
      new TextEncoder().encode("not really a picture"),
      "text/plain",
      "fake.png",
      "image/png",
    );
    expect(info.status).toBe("failed");
    expect(info.failureReason).toContain("not image/png");
  });

  test("another account's upload is 404 everywhere", async () => {
    const other = await healthAccount(deps, app);
    const ticket = await json<Presigned>(await presign({ filename: "a.txt", contentType: "text/plain", size: 5 }));
    expect((await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: other.apiKey })).status).toBe(404);
    const complete = await call(app, "/api/v1/uploads/complete", {
      method: "POST",
      key: other.apiKey,
      body: { fileId: ticket.fileId },
    });
    expect(complete.status).toBe(404);
  });

  test("pending uploads whose URL lapsed are deleted by the expiry job", async () => {
    const ticket = await json<Presigned>(await presign({ filename: "late.txt", contentType: "text/plain", size: 5 }));
    await deps.sql`update uploads set expires_at = now() - interval '1 minute' where id = ${ticket.fileId}`;
    expect((await expirePendingUploads(deps)).deleted).toBeGreaterThanOrEqual(1);
    expect((await call(app, `/api/v1/uploads/${ticket.fileId}`, { key: owner.apiKey })).status).toBe(404);
  });
});

describe("chat attachments", () => {
  test("a ready PDF reaches the model as its text; not ready is 409; another account's is 404; the offline model describes an image", async () => {
    await seedDemoReferences(deps.env);
    const pdf = await uploadFile(
      await makePdf(["Current medication: aspirin 81 mg daily"]),
      "application/pdf",
      "meds.pdf",
    );
    const response = await call(app, "/api/v1/health/chat", {
      method: "POST",
      key: owner.apiKey,
      body: { message: "Please look at the attached list", attachment_ids: [pdf.fileId] },
    });
    expect(response.status).toBe(200);
    const reply = await json<ChatReply>(response);
    // The offline model chose its tool from the attachment's text: the text reached the model.
    expect(reply.message.parts.some((p) => p.type === "tool-get_medication_reference")).toBe(true);

    const pending = await json<Presigned>(await presign({ filename: "x.txt", contentType: "text/plain", size: 5 }));
    const conflict = await call(app, "/api/v1/health/chat", {
      method: "POST",
      key: owner.apiKey,
      body: { message: "hi", attachment_ids: [pending.fileId] },
    });
    expect(conflict.status).toBe(409);
    const other = await healthAccount(deps, app);
    const theirs = await call(app, "/api/v1/health/chat", {
      method: "POST",
      key: other.apiKey,
      body: { message: "hi", attachment_ids: [pdf.fileId] },
    });
    expect(theirs.status).toBe(404);
    // The offline model takes images: it cannot see them, and reports what the file is.
    const image = await uploadFile(makePng(64, 64), "image/png", "photo.png");
    const described = await call(app, "/api/v1/health/chat", {
      method: "POST",
      key: owner.apiKey,
      body: { message: "what is this?", attachment_ids: [image.fileId] },
    });
    expect(described.status).toBe(200);
    const text = (await json<ChatReply>(described)).text;
    expect(text).toContain("cannot see images");
    expect(text).toContain("image/png");
    expect(text).toContain("64 × 64 pixels");
  });
});
