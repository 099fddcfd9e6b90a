import { AppError } from "../core/errors";
import { unavailable } from "../core/unavailable";
import type { Db, Sql } from "../db/sql";
import {
  deleteHealthData,
  findProfileByAccount,
  lockConsent,
  type ProfileRow,
  upsertProfile,
} from "./profileRepository";
import type { Profile, ProfileDeletion, ProfileInput } from "./schemas";
import { uniqueTrimmed } from "./text";

/** What the health verbs run with: the database and the calling account (REST, MCP and chat alike). */
export interface HealthCtx {
  sql: Sql;
  accountId: string;
}

/** An account without a profile has not consented: it reads as empty lists and no timestamps. */
const NO_PROFILE: Profile = {
  consentGiven: false,
  conditions: [],
  medications: [],
  consentedAt: null,
  updatedAt: null,
};

function toProfile(row: ProfileRow | undefined): Profile {
  if (!row) return NO_PROFILE;
  return {
    consentGiven: true,
    conditions: row.conditions,
    medications: row.medications,
    consentedAt: row.consentedAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function getProfile(ctx: HealthCtx): Promise<Profile> {
  return toProfile(await findProfileByAccount(ctx.sql, ctx.accountId).catch(unavailable("PostgreSQL")));
}

/** Saves (replaces) the profile; saving is giving consent. Omitted lists are saved empty. */
export async function saveProfile(ctx: HealthCtx, input: ProfileInput): Promise<Profile> {
  const row = await upsertProfile(ctx.sql, {
    accountId: ctx.accountId,
    conditions: uniqueTrimmed(input.conditions),
    medications: uniqueTrimmed(input.medications),
  }).catch(unavailable("PostgreSQL"));
  return toProfile(row);
}

/** Removes the profile, every log with its entries and the lab panels, in one transaction. */
export async function deleteProfile(ctx: HealthCtx): Promise<ProfileDeletion> {
  const counts = await ctx.sql.begin((tx) => deleteHealthData(tx, ctx.accountId)).catch(unavailable("PostgreSQL"));
  return { deleted: true, ...counts };
}

export async function hasConsent(ctx: HealthCtx): Promise<boolean> {
  return (await getProfile(ctx)).consentGiven;
}

/**
 * Inside a write transaction: refuses without consent and holds the consent row until commit, so
 * a concurrent profile deletion cannot leave data behind that was written after it.
 */
export async function requireConsent(tx: Db, accountId: string): Promise<void> {
  if (!(await lockConsent(tx, accountId))) {
    throw new AppError(
      "CONSENT_REQUIRED",
      "Health logs need consent: save the profile with consentGiven: true (POST /api/v1/health/profile) first.",
    );
  }
}
