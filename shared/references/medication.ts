import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { Job } from "bullmq";
import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import "../core/formats";
import { unavailable } from "../core/unavailable";
import { JOBS, type JobName, type JobPayload } from "../jobs/catalog";
import { type LabelQuery, labelKey, type MedicationQuery, medicationKey } from "../jobs/payloads/referenceQueries";
import { enqueue } from "../jobs/queue";
import { findCachedReference, type ReferenceSource } from "./cacheRepository";
import { isFresh } from "./config";
import { findHeldAnswer, holdAnswer } from "./heldAnswers";
import { notFoundLabel } from "./openfda";
import {
  type FdaPart,
  MEDICATION_DISCLAIMER,
  type MedicationReference,
  MedicationReferenceSchema,
  type RxnormPart,
} from "./schemas";

const UPSTREAM_NAMES: Record<ReferenceSource, string> = { rxnav: "RxNav (RxNorm)", openfda: "openFDA" };

/** An RxCUI is up to 8 digits; an NDC is 10–11 digits, or hyphenated 4-4-2, 5-3-2 or 5-4-1. */
export function classifyMedicationQuery(input: string): MedicationQuery {
  const value = input.trim().replace(/\s+/g, " ");
  if (/^\d{1,8}$/.test(value)) return { by: "rxcui", value };
  if (/^\d{10,11}$/.test(value) || /^\d{4,5}-\d{3,4}-\d{1,2}$/.test(value)) return { by: "ndc", value };
  return { by: "name", value: value.toLowerCase() };
}

/** The label search for what RxNav found: its concept and product ids, then generic and brand names. */
export function labelQueryFor(query: MedicationQuery, rxnorm: RxnormPart): LabelQuery {
  const rxcuis = rxnorm.found ? [rxnorm.rxcui as string, ...rxnorm.products.map((p) => p.rxcui)] : [];
  const names = [
    ...(query.by === "name" && rxnorm.matchedBy !== "approximate" ? [query.value] : []),
    ...rxnorm.ingredients.map((c) => c.name),
    ...rxnorm.brands.map((c) => c.name),
  ];
  const unique = (items: string[]) => [...new Map(items.map((item) => [item.toLowerCase(), item])).values()];
  return { rxcuis: unique(rxcuis).slice(0, 20), names: unique(names).slice(0, 5) };
}

/** Requests in this process waiting on the same lookup share one job. */
const inFlight = new Map<string, Promise<{ value: unknown; fetchedAt: string }>>();

type LookupCtx = Pick<SystemCtx, "sql" | "queues" | "jobEvents" | "env">;

async function runLookup<N extends JobName>(
  ctx: LookupCtx,
  name: N,
  payload: JobPayload<N>,
  key: string,
): Promise<{ value: unknown; fetchedAt: string }> {
  const flightKey = `${name}-${key}`;
  let flight = inFlight.get(flightKey);
  if (!flight) {
    flight = (async () => {
      // BullMQ deduplication makes concurrent lookups from other API processes share the job too.
      const job: Job = await enqueue(ctx.queues, name, payload, { deduplicationId: flightKey });
      return ctx.jobEvents.waitFor<{ value: unknown; fetchedAt: string }>(
        JOBS[name].queue,
        job,
        ctx.env.REFERENCE_WAIT_MS,
      );
    })().finally(() => inFlight.delete(flightKey));
    inFlight.set(flightKey, flight);
  }
  return flight;
}

type Part<T> = {
  value: T;
  cache: MedicationReference["cache"]["rxnorm"];
  /** The cache row's version when the part was read fresh from the table (see heldAnswers.ts). */
  version?: string;
};

/** Cache first; then the queued lookup; when that fails, a stale cached answer; else 502 naming the upstream. */
async function lookupPart<T, N extends JobName>(
  ctx: LookupCtx,
  source: ReferenceSource,
  job: N,
  payload: JobPayload<N>,
  key: string,
): Promise<Part<T>> {
  const cached = await findCachedReference<T>(ctx.sql, source, key).catch(unavailable("PostgreSQL"));
  if (cached && isFresh(cached.fetchedAt, ctx.env)) {
    const cache = { state: "fresh" as const, fetchedAt: cached.fetchedAt.toISOString() };
    return { value: cached.value, cache, version: cached.version };
  }
  try {
    const result = await runLookup(ctx, job, payload, key);
    return { value: result.value as T, cache: { state: "live", fetchedAt: result.fetchedAt } };
  } catch (cause) {
    if (cached) return { value: cached.value, cache: { state: "stale", fetchedAt: cached.fetchedAt.toISOString() } };
    if (cause instanceof AppError) throw cause;
    throw new AppError(
      "UPSTREAM_FAILED",
      `${UPSTREAM_NAMES[source]} did not answer and nothing is cached for this query; retry later.`,
      { cause },
    );
  }
}

const checkReference = TypeCompiler.Compile(MedicationReferenceSchema);

/** The answer checked against its schema (once, as it is built) and serialized after its `query` member. */
function serializedTail(reference: MedicationReference): Uint8Array {
  if (!checkReference.Check(reference)) {
    const first = checkReference.Errors(reference).First();
    throw new AppError("INTERNAL", `The medication answer does not match its schema at ${first?.path || "/"}`);
  }
  const { query: _, ...rest } = reference;
  return utf8.encode(JSON.stringify(rest).slice(1));
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The answer's JSON: its `query` member (the caller's spelling) before the serialized rest. */
function withQuery(query: MedicationReference["query"], tail: Uint8Array): Uint8Array {
  const head = utf8.encode(`{"query":${JSON.stringify(query)},`);
  const body = new Uint8Array(head.length + tail.length);
  body.set(head);
  body.set(tail, head.length);
  return body;
}

/**
 * Looks the answer up (cache, queue, stale fallback) and serializes it; an answer whose parts were
 * all read fresh from the cache table is held in memory for the next lookups.
 */
async function buildAnswer(ctx: LookupCtx, input: { name: string }, query: MedicationQuery): Promise<Uint8Array> {
  const rxnavKey = medicationKey(query);
  const rxnorm = await lookupPart<RxnormPart, "references.rxnav-lookup">(
    ctx,
    "rxnav",
    "references.rxnav-lookup",
    query,
    rxnavKey,
  );
  const labelQuery = labelQueryFor(query, rxnorm.value);
  const openfdaKey = labelQuery.rxcuis.length + labelQuery.names.length === 0 ? null : labelKey(labelQuery);
  const fda: Part<FdaPart> =
    openfdaKey === null
      ? { value: notFoundLabel(rxnorm.cache.fetchedAt), cache: rxnorm.cache }
      : await lookupPart<FdaPart, "references.openfda-lookup">(
          ctx,
          "openfda",
          "references.openfda-lookup",
          labelQuery,
          openfdaKey,
        );
  const reference: MedicationReference = {
    query: { input: input.name, ...query },
    rxnorm: rxnorm.value,
    fda: fda.value,
    cache: { rxnorm: rxnorm.cache, fda: fda.cache },
    disclaimer: MEDICATION_DISCLAIMER,
  };
  const tail = serializedTail(reference);
  const read = [
    { source: "rxnav" as const, key: rxnavKey, version: rxnorm.version },
    ...(openfdaKey === null ? [] : [{ source: "openfda" as const, key: openfdaKey, version: fda.version }]),
  ];
  if (read.every((row) => row.version !== undefined)) {
    holdAnswer(ctx.sql, rxnavKey, {
      rows: read.map(({ source, key }) => ({ source, key })),
      versions: read.map((row) => row.version as string),
      fetchedAt: { rxnorm: new Date(rxnorm.cache.fetchedAt), fda: new Date(fda.cache.fetchedAt) },
      tail,
    });
  }
  return withQuery(reference.query, tail);
}

/**
 * Medication labeling reference as JSON (UTF-8 bytes), ready to send: RxNorm concept (RxNav) and the newest
 * FDA label (openFDA) for a name, RxCUI or NDC. Upstream calls run on the queue (rate-limited per
 * upstream, retried, deduplicated); answers are cached in PostgreSQL, and the finished answer is
 * held in memory while its cache rows are unchanged and fresh (heldAnswers.ts). The bytes may be
 * shared with later callers: read them, or copy them (a Response does), never change them.
 */
export async function lookupMedicationJson(ctx: LookupCtx, input: { name: string }): Promise<Uint8Array> {
  const query = classifyMedicationQuery(input.name);
  const held = await findHeldAnswer(ctx, medicationKey(query));
  if (!held) return buildAnswer(ctx, input, query);
  if (held.last?.input === input.name) return held.last.body;
  const body = withQuery({ input: input.name, ...query }, held.tail);
  held.last = { input: input.name, body };
  return body;
}

/** The medication reference as an object (see lookupMedicationJson): a copy of its own for each caller. */
export async function lookupMedication(ctx: LookupCtx, input: { name: string }): Promise<MedicationReference> {
  return JSON.parse(fromUtf8.decode(await lookupMedicationJson(ctx, input))) as MedicationReference;
}
