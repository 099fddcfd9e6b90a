import { AppError } from "../core/errors";
import { fromPostgres as db } from "../core/unavailable";
import type { Db } from "../db/sql";
import { findProfileByAccount, lockConsent } from "./profileRepository";

/** Consent is a saved profile: the steps the log verbs take before reading or writing. */
export async function hasConsent(sql: Db, accountId: string): Promise<boolean> {
  return (await db(findProfileByAccount(sql, accountId))) !== undefined;
}

export async function requireConsentToRead(
  sql: Db,
  accountId: string,
  message = "Reading a health log needs consent: save the profile with consentGiven: true.",
): Promise<void> {
  if (!(await hasConsent(sql, accountId))) throw new AppError("CONSENT_REQUIRED", message);
}

/**
 * Inside a write transaction: whether the account has consented, holding the consent row until
 * commit, so a concurrent profile deletion waits and cannot leave data behind written after it.
 */
export function holdConsent(tx: Db, accountId: string): Promise<boolean> {
  return lockConsent(tx, accountId);
}

/**
 * Inside a write transaction: refuses without consent and holds the consent row until commit, so
 * a concurrent profile deletion cannot leave data behind that was written after it.
 */
export async function requireConsent(
  tx: Db,
  accountId: string,
  message = "Health logs need consent: save the profile with consentGiven: true (POST /api/v1/health/profile) first.",
): Promise<void> {
  if (!(await holdConsent(tx, accountId))) throw new AppError("CONSENT_REQUIRED", message);
}
