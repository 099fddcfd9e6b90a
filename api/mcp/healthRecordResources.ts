import type { Resource, TextResourceContents } from "@modelcontextprotocol/server";
import type { Ctx } from "../../shared/context/ctx";
import { isUuid } from "../../shared/core/formats";
import { requireConsentToRead } from "../../shared/health/consent";
import { exportHealthRecord } from "../../shared/healthRecords/export";
import { getRecordImport, listRecordImports } from "../../shared/healthRecords/imports";
import type { RecordImport, RecordImportList, RecordSections } from "../../shared/healthRecords/schemas";
import { recordSections } from "../../shared/healthRecords/sections";
import { JSON_TYPE, jsonContents } from "./contents";
import { invalidParams } from "./errors";

/**
 * health-record://: what imported records (FHIR R4 Bundles, C-CDA documents) hold, read through
 * the verbs the REST routes call. After the scheme comes a path: `summary` and `fhir` name one
 * resource each, `imports/{importId}` one import (the template in resources.ts).
 */
type RecordCtx = Pick<Ctx, "sql" | "accountId">;

const SCHEME = "health-record://";
const IMPORTS = "imports/";
export const RECORD_IMPORT_TEMPLATE = `${SCHEME}${IMPORTS}{importId}`;
const FHIR_TYPE = "application/fhir+json";

const CONSENT_MESSAGE =
  "Health records need consent: save the profile with consentGiven: true (POST /api/v1/health/profile) first.";

/** What may follow `health-record://`. */
export const isRecordPath = (path: string) =>
  path === "summary" || path === "fhir" || (path.startsWith(IMPORTS) && isUuid(path.slice(IMPORTS.length)));

type SummaryContents = RecordSections & Pick<RecordImportList, "imports">;

/** The profile's sections that imports fill, and every import (newest first) with its counts. */
async function readRecordSummary(ctx: RecordCtx): Promise<SummaryContents> {
  await requireConsentToRead(ctx.sql, ctx.accountId, CONSENT_MESSAGE);
  const [sections, { imports }] = await Promise.all([recordSections(ctx), listRecordImports(ctx)]);
  return { ...sections, imports };
}

/** resources/read of a `health-record://` path (`isRecordPath`); consent and ownership are the verbs'. */
export async function readRecordPath(ctx: RecordCtx, path: string, uri: string): Promise<TextResourceContents[]> {
  if (path === "summary") return [jsonContents(uri, await readRecordSummary(ctx))];
  if (path === "fhir") {
    // The file GET /api/v1/health/records/export sends: the same Bundle, the same consent refusal.
    const { body } = await exportHealthRecord(ctx);
    return [{ uri, mimeType: FHIR_TYPE, text: body }];
  }
  return [jsonContents(uri, await getRecordImport(ctx, { id: path.slice(IMPORTS.length) }))];
}

const day = (timestamp: string) => timestamp.slice(0, 10);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
const FORMAT = { fhir: "FHIR R4 Bundle", ccda: "C-CDA document" } as const;

const summaryResource = (imports: number): Resource => ({
  uri: `${SCHEME}summary`,
  name: "Health record summary",
  title: "Health record summary",
  mimeType: JSON_TYPE,
  description: `Allergies, active conditions and medications, and immunizations from ${plural(imports, "imported record")}, with each import's counts.`,
});

const FHIR_RESOURCE: Resource = {
  uri: `${SCHEME}fhir`,
  name: "Health record (FHIR R4)",
  title: "Health record as a FHIR R4 Bundle",
  mimeType: FHIR_TYPE,
  description:
    "The whole record as one FHIR R4 Bundle: the profile's and imported conditions and medications, allergies, immunizations and every lab panel.",
};

function importResource(item: RecordImport): Resource {
  const { kept } = item;
  const about = item.patient.name ? ` about ${item.patient.name}` : "";
  return {
    uri: `${SCHEME}${IMPORTS}${item.id}`,
    name: item.filename,
    title: `Health record import: ${item.filename}`,
    mimeType: JSON_TYPE,
    description: `${FORMAT[item.format]}${about}, imported ${day(item.createdAt)}: kept ${plural(kept.conditions, "condition")}, ${plural(kept.medications, "medication")}, ${plural(kept.allergies, "allergy")}, ${plural(kept.immunizations, "immunization")}, ${plural(kept.labResults, "lab result")}.`,
  };
}

/** An import's place in the list's order (created_at, then id, both descending); fixed width, so it sorts as text. */
const importKey = (item: RecordImport) => `${item.createdAt}|${item.id}`;
const IMPORT_KEY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|[0-9a-f-]{36}$/;
const FIXED = ["summary", "fhir"];

function startAfter(keys: string[], cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const at = keys.indexOf(cursor);
  if (at !== -1) return at + 1;
  if (!IMPORT_KEY.test(cursor)) throw invalidParams("Not a cursor this server returned: pass nextCursor as it came.");
  // The import the cursor names was undone since: go on from the first one listed after it.
  const next = keys.findIndex((key, index) => index >= FIXED.length && key < cursor);
  return next === -1 ? keys.length : next;
}

/**
 * resources/list's health-record section (with consent; the caller checks scope and plan): the
 * summary, the FHIR record, then each import, newest first. The cursor is the key of the last one
 * sent, so an import undone between pages does not shift the next page.
 */
export async function listRecordResources(
  ctx: RecordCtx,
  limit: number,
  cursor: string | undefined,
): Promise<{ resources: Resource[]; next: string | null }> {
  const { consentGiven, imports } = await listRecordImports(ctx);
  if (!consentGiven) return { resources: [], next: null };
  const keys = [...FIXED, ...imports.map(importKey)];
  const resources = [summaryResource(imports.length), FHIR_RESOURCE, ...imports.map(importResource)];
  const start = startAfter(keys, cursor);
  const end = Math.min(start + limit, keys.length);
  return { resources: resources.slice(start, end), next: end < keys.length ? (keys[end - 1] as string) : null };
}
