import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ProviderReplay } from "../../fixtures/providers/replayServer";
import { type AttachmentWorld, startAttachmentWorld } from "../../helpers/attachmentWorld";
import { call, type TestApp } from "../../helpers/http";
import { flaggedTableReport, prosePdf } from "../../helpers/labReports";
import { uploadFile } from "../../helpers/uploads";

/**
 * A lab report attached to a chat reaches the model as a table of the results the report parser
 * read (test, value, unit, range, flag, page) before the report itself, whichever form that takes:
 * its text for a text-only model, the PDF for a model that reads PDFs. Checked on the requests the
 * replayed providers receive; the offline model's quoting of the table is in the question bank.
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

async function attach(bytes: Uint8Array, filename: string): Promise<string> {
  const upload = await uploadFile(app, key, { bytes, contentType: "application/pdf", filename });
  expect(upload.status).toBe("ready");
  return upload.fileId;
}

/** The first request of the turn the provider received, as the user message's text parts. */
async function userTextSent(replay: ProviderReplay, body: Record<string, unknown>): Promise<string[]> {
  const seen = replay.requests.length;
  const response = await call(app, "/api/v1/health/chat", { method: "POST", key, body });
  expect(response.status).toBe(200);
  return (
    JSON.stringify(replay.requests[seen]?.body).match(/(Lab results read|Attached file|data:application\/pdf)/g) ?? []
  );
}

describe("a lab report attached to a chat", () => {
  test("a text-only model gets the results table, then the report's text with page numbers", async () => {
    const report = await flaggedTableReport();
    const fileId = await attach(report.pdf, "meridian.pdf");
    const seen = local.requests.length;
    const order = await userTextSent(local, { message: "What does my report say?", attachment_ids: [fileId] });
    expect(order).toEqual(["Lab results read", "Attached file"]);
    const sent = JSON.stringify(local.requests[seen]?.body);
    expect(sent).toContain(
      `Lab results read from the attached file \\"meridian.pdf\\" by the service's report parser (12;`,
    );
    expect(sent).toContain("lab: Meridian Diagnostics; collected: 2026-03-14");
    // Every result of the report, with its page: the multi-page table's rows from page 2 too.
    for (const truth of report.truth.results) {
      const unit = truth.unit ?? "—";
      const row = `| ${truth.name} | ${truth.valueText} | ${unit} | ${truth.rangeText ?? "—"} | ${truth.flag ?? "—"} | ${truth.page} |`;
      expect(sent).toContain(JSON.stringify(row).slice(1, -1));
    }
    expect(report.truth.results.some((r) => r.page === 2)).toBe(true);
    expect(sent).toContain("[page 2]");
  });

  test("a model that reads PDFs gets the results table and the PDF itself", async () => {
    const fileId = await attach((await flaggedTableReport()).pdf, "meridian.pdf");
    const order = await userTextSent(openai, {
      message: "What does my report say?",
      attachment_ids: [fileId],
      model: "gpt-4.1-mini",
    });
    expect(order).toEqual(["Lab results read", "data:application/pdf"]);
  });

  test("a PDF that is not a lab report gets no table", async () => {
    const prose = await prosePdf([
      "Dear patient, thank you for visiting the clinic on Tuesday. Please bring your previous letters to the next appointment.",
    ]);
    const fileId = await attach(prose, "letter.pdf");
    const order = await userTextSent(local, { message: "What does this letter say?", attachment_ids: [fileId] });
    expect(order).toEqual(["Attached file"]);
  });
});
