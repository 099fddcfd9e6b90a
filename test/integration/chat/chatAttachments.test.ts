import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ProviderReplay } from "../../fixtures/providers/replayServer";
import { type AttachmentWorld, startAttachmentWorld } from "../../helpers/attachmentWorld";
import { makePng } from "../../helpers/files";
import { call, type TestApp } from "../../helpers/http";
import { makePdf, uploadFile } from "../../helpers/uploads";

/**
 * What attachments look like to a real provider (replayed wire formats): a model that reads PDFs
 * gets the PDF itself, a text-only model its extracted text, an image model the (downscaled) image.
 */
let world: AttachmentWorld;
let app: TestApp;
let key: string;
let openai: ProviderReplay;
let local: ProviderReplay;

beforeAll(async () => {
  world = await startAttachmentWorld();
  ({ app, key, openai, local } = world);
});

afterAll(async () => {
  await world?.stop();
});

const chat = (body: Record<string, unknown>) => call(app, "/api/v1/health/chat", { method: "POST", key, body });

describe("attachments reach the provider", () => {
  test("a text-only model gets the PDF's extracted text; a PDF model gets the file", async () => {
    const pdf = await uploadFile(app, key, {
      bytes: await makePdf(["HbA1c 6.1 % (reference 4.0-5.6)"]),
      contentType: "application/pdf",
      filename: "labs.pdf",
    });
    expect(pdf.status).toBe("ready");

    const seenLocal = local.requests.length;
    expect((await chat({ message: "What does my lab report say?", attachment_ids: [pdf.fileId] })).status).toBe(200);
    const toLocal = JSON.stringify(local.requests[seenLocal]?.body);
    expect(toLocal).toContain("HbA1c 6.1 % (reference 4.0-5.6)");
    expect(toLocal).not.toContain("application/pdf;base64");

    const seenOpenai = openai.requests.length;
    const reply = await chat({
      message: "What does my lab report say?",
      attachment_ids: [pdf.fileId],
      model: "gpt-4.1-mini",
    });
    expect(reply.status).toBe(200);
    const toOpenai = JSON.stringify(openai.requests[seenOpenai]?.body);
    expect(toOpenai).toContain("data:application/pdf;base64,");
    expect(toOpenai).not.toContain("HbA1c 6.1 % (reference 4.0-5.6)");
  });

  test("an image goes to a model that reads images (auto routing), as the downscaled copy", async () => {
    const image = await uploadFile(app, key, {
      bytes: makePng(2400, 1600),
      contentType: "image/png",
      filename: "rash.png",
    });
    expect(image.details.modelCopy).toEqual({ width: 1568, height: 1045, contentType: "image/jpeg" });
    const seenOpenai = openai.requests.length;
    const response = await chat({ message: "What is this rash?", attachment_ids: [image.fileId] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe("gpt-4.1-mini");
    expect(JSON.stringify(openai.requests[seenOpenai]?.body)).toContain("data:image/jpeg;base64,");
  });
});
