import type { ChatReply } from "../../shared/conversations/schemas";
import { readHealthRecord } from "../../shared/healthRecords/read";
import { CCDA_DOCUMENTS, readSample, SYNTHEA_BUNDLES } from "./healthRecordSamples";
import type { TestApp } from "./http";
import { importRecord } from "./records";

/**
 * The question banks of test/fixtures/questions (see its README): a question's shape, the real
 * sample records the record accounts import, and the checks a reply must pass.
 */
export interface BankQuestion {
  message: string;
  tools: string[];
  exact?: boolean;
  calls?: Record<string, number>;
  /** Some call of each tool had at least these arguments. */
  inputs?: Record<string, Record<string, unknown>>;
  answer: string[];
  absent?: string[];
  /** Named values of the account's imported record: each must be in the record read from the file, and in the answer. */
  recordValues?: string[];
  account?: "main" | "fresh" | "twoLogs" | RecordAccount;
  attach?: "png" | "pdf" | "report";
  issue?: "failed" | "passed";
}

/** Accounts with a real sample record imported through the API. */
export const RECORD_SAMPLES = {
  /** HL7's C-CDA R1.1 CCD (Adam Everyman): three allergies, Td, influenza and pneumococcal doses. */
  records: { path: CCDA_DOCUMENTS.hl7Ccd, filename: "ccd.xml", contentType: "application/xml" },
  /** Synthea's Johnnie679: no allergies, DTaP, influenza, MMR and other childhood doses. */
  synthea: { path: SYNTHEA_BUNDLES.johnnie, filename: "johnnie.json", contentType: "application/fhir+json" },
} as const;
export type RecordAccount = keyof typeof RECORD_SAMPLES;

export const isRecordAccount = (account: BankQuestion["account"]): account is RecordAccount =>
  account !== undefined && Object.hasOwn(RECORD_SAMPLES, account);

/** Uploads the account's sample record and imports it (the uploads worker reads it). */
export async function importSample(app: TestApp, apiKey: string, account: RecordAccount): Promise<void> {
  const sample = RECORD_SAMPLES[account];
  await importRecord(app, apiKey, readSample(sample.path), sample);
}

const recordText = new Map<RecordAccount, string>();

/** The record the reader keeps from the account's file, as text to find named values in. */
function readRecord(account: RecordAccount): string {
  const sample = RECORD_SAMPLES[account];
  let text = recordText.get(account);
  if (!text) {
    text = JSON.stringify(readHealthRecord(readSample(sample.path), sample.filename)).toLowerCase();
    recordText.set(account, text);
  }
  return text;
}

export const toolsRun = (reply: ChatReply) =>
  reply.message.parts.flatMap((part) => (part.type.startsWith("tool-") ? [part.type.slice(5)] : []));

const inputsOf = (reply: ChatReply, tool: string) =>
  reply.message.parts.flatMap((part) => (part.type === `tool-${tool}` && "input" in part ? [part.input] : []));

const matches = (actual: unknown, expected: Record<string, unknown>) =>
  typeof actual === "object" &&
  actual !== null &&
  Object.entries(expected).every(([key, value]) => (actual as Record<string, unknown>)[key] === value);

/** What the reply gets wrong for the question, one line each; none when it passes. */
export function replyFailures(question: BankQuestion, reply: ChatReply): string[] {
  const failures: string[] = [];
  const run = toolsRun(reply);
  const text = reply.text.toLowerCase();
  if (reply.finish_reason !== "stop") failures.push(`finish reason ${reply.finish_reason}`);
  if (!reply.text.includes("offline reference assistant")) failures.push("not the offline assistant's answer");
  for (const tool of question.tools) if (!run.includes(tool)) failures.push(`did not run ${tool}`);
  const ran = [...new Set(run)].sort();
  if (question.exact && ran.join() !== [...new Set(question.tools)].sort().join()) failures.push(`ran ${ran.join()}`);
  for (const [tool, n] of Object.entries(question.calls ?? {})) {
    if (run.filter((name) => name === tool).length < n) failures.push(`ran ${tool} fewer than ${n} times`);
  }
  for (const [tool, input] of Object.entries(question.inputs ?? {})) {
    if (!inputsOf(reply, tool).some((actual) => matches(actual, input))) failures.push(`no ${tool} call with ${input}`);
  }
  for (const words of question.answer)
    if (!text.includes(words.toLowerCase())) failures.push(`answer lacks "${words}"`);
  for (const words of question.absent ?? [])
    if (text.includes(words.toLowerCase())) failures.push(`answer has "${words}"`);
  for (const value of question.recordValues ?? []) {
    if (!isRecordAccount(question.account)) failures.push(`"${value}": the account has no record`);
    else if (!readRecord(question.account).includes(value.toLowerCase()))
      failures.push(`"${value}" is not in the record`);
    if (!text.includes(value.toLowerCase())) failures.push(`answer lacks the record's "${value}"`);
  }
  if (reply.message.parts.some((part) => "state" in part && part.state === "output-error")) {
    failures.push("a tool failed");
  }
  return failures;
}
