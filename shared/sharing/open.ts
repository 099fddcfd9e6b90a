/**
 * Opening a share link, with no sign-in: the page's summary or the FHIR Bundle of the link's
 * owner. An unknown, expired or revoked token, and a link whose owner has no consent or whose plan
 * no longer includes health, all answer the same NOT_FOUND, so nothing tells whether a link ever
 * existed. Each successful open is recorded (view, client address, user agent).
 */
import { createHash } from "node:crypto";
import type { Bundle } from "@medplum/fhirtypes";
import { findAccount } from "../auth/accounts";
import { isAuthorized } from "../auth/authorize";
import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { fromPostgres as db } from "../core/unavailable";
import { healthRecordBundle } from "../healthRecords/export";
import { hitWindow } from "../ratelimit/windowCounter";
import { isTokenShaped, tokenHash } from "./links";
import { findActiveLinkByTokenHash, insertShareLinkOpen } from "./repository";
import { SHARE_LIMITS, type SharedRecord, type ShareVisit } from "./schemas";
import { sharedRecord } from "./summary";

const NOT_FOUND_MESSAGE = "This share link does not work: it may have expired or been revoked.";

const notFound = () => new AppError("NOT_FOUND", NOT_FOUND_MESSAGE);

interface Admitted {
  linkId: string;
  expiresAt: string;
  owner: Pick<SystemCtx, "sql"> & { accountId: string };
}

/** Counts the request against its address (every request, valid or not), then finds the working link. */
async function admit(ctx: SystemCtx, visit: ShareVisit): Promise<Admitted> {
  const address = createHash("sha256").update(visit.client).digest("hex");
  await hitWindow(ctx.redis, `${ctx.env.REDIS_PREFIX}:share-open:${address}`, {
    max: ctx.env.SHARE_LINK_REQUESTS_PER_ADDRESS_PER_MINUTE,
    windowSeconds: 60,
    message: (retryAfter) => `Too many share-link requests from this address; retry in ${retryAfter} s.`,
  });
  if (!isTokenShaped(visit.token)) throw notFound();
  const link = await db(findActiveLinkByTokenHash(ctx.sql, tokenHash(visit.token)));
  if (!link) throw notFound();
  const account = await db(findAccount(ctx, link.accountId));
  const allowed =
    account !== undefined &&
    (await isAuthorized(
      { plans: ctx.plans, plan: account.plan, sql: ctx.sql, accountId: account.id },
      { feature: "health", consent: true },
    ));
  if (!allowed) throw notFound();
  return { linkId: link.id, expiresAt: link.expiresAt, owner: { sql: ctx.sql, accountId: link.accountId } };
}

/**
 * Records the open once what it shows has been read, and only while the link still works: a link
 * revoked meanwhile shows nothing and is not counted.
 */
async function record(ctx: SystemCtx, admitted: Admitted, visit: ShareVisit): Promise<void> {
  const userAgent = visit.userAgent ? [...visit.userAgent].slice(0, SHARE_LIMITS.userAgent).join("") : null;
  const recorded = await db(
    insertShareLinkOpen(ctx.sql, {
      linkId: admitted.linkId,
      view: visit.view,
      clientAddress: visit.client,
      userAgent,
    }),
  );
  if (!recorded) throw notFound();
}

/** The summary a share link's page shows. */
export async function openSharedRecord(ctx: SystemCtx, visit: Omit<ShareVisit, "view">): Promise<SharedRecord> {
  const page = { ...visit, view: "page" as const };
  const admitted = await admit(ctx, page);
  const summary = await sharedRecord(admitted.owner, { expiresAt: admitted.expiresAt });
  await record(ctx, admitted, page);
  return summary;
}

/** The whole record as a FHIR R4 Bundle (the export's, with no account identifier). */
export async function openSharedBundle(ctx: SystemCtx, visit: Omit<ShareVisit, "view">): Promise<Bundle> {
  const fhir = { ...visit, view: "fhir" as const };
  const admitted = await admit(ctx, fhir);
  const bundle = await healthRecordBundle(admitted.owner);
  await record(ctx, admitted, fhir);
  return bundle;
}
