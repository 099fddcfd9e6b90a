import type { Job } from "bullmq";
import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { unavailable } from "../core/unavailable";
import { JOBS, type JobName, type JobPayload } from "../jobs/catalog";
import { type LabelQuery, labelKey, type MedicationQuery, medicationKey } from "../jobs/payloads/referenceQueries";
import { enqueue } from "../jobs/queue";
import { findCachedReference, type ReferenceSource } from "./cacheRepository";
import { isFresh } from "./config";
import { notFoundLabel } from "./openfda";
import { type FdaPart, MEDICATION_DISCLAIMER, type MedicationReference, type RxnormPart } from "./schemas";

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

async function runLookup<N extends JobName>(
  ctx: Pick<SystemCtx, "sql" | "queues" | "jobEvents" | "env">,
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

type Part<T> = { value: T; cache: MedicationReference["cache"]["rxnorm"] };

/** Cache first; then the queued lookup; when that fails, a stale cached answer; else 502 naming the upstream. */
async function lookupPart<T, N extends JobName>(
  ctx: Pick<SystemCtx, "sql" | "queues" | "jobEvents" | "env">,
  source: ReferenceSource,
  job: N,
  payload: JobPayload<N>,
  key: string,
): Promise<Part<T>> {
  const cached = await findCachedReference<T>(ctx.sql, source, key).catch(unavailable("PostgreSQL"));
  if (cached && isFresh(cached.fetchedAt, ctx.env)) {
    return { value: cached.value, cache: { state: "fresh", fetchedAt: cached.fetchedAt.toISOString() } };
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

/**
 * Medication labeling reference: RxNorm concept (RxNav) and the newest FDA label (openFDA) for a
 * name, RxCUI or NDC. Upstream calls run on the queue (rate-limited per upstream, retried,
 * deduplicated); answers are cached in PostgreSQL.
 */
export async function lookupMedication(
  ctx: Pick<SystemCtx, "sql" | "queues" | "jobEvents" | "env">,
  input: { name: string },
): Promise<MedicationReference> {
  const query = classifyMedicationQuery(input.name);
  const rxnorm = await lookupPart<RxnormPart, "references.rxnav-lookup">(
    ctx,
    "rxnav",
    "references.rxnav-lookup",
    query,
    medicationKey(query),
  );
  const labelQuery = labelQueryFor(query, rxnorm.value);
  const fda: Part<FdaPart> =
    labelQuery.rxcuis.length + labelQuery.names.length === 0
      ? { value: notFoundLabel(rxnorm.cache.fetchedAt), cache: rxnorm.cache }
      : await lookupPart<FdaPart, "references.openfda-lookup">(
          ctx,
          "openfda",
          "references.openfda-lookup",
          labelQuery,
          labelKey(labelQuery),
        );
  return {
    query: { input: input.name, ...query },
    rxnorm: rxnorm.value,
    fda: fda.value,
    cache: { rxnorm: rxnorm.cache, fda: fda.cache },
    disclaimer: MEDICATION_DISCLAIMER,
  };
}
