import type { Ctx } from "../context/ctx";
import { fromPostgres as db } from "../core/unavailable";
import { deleteHealthData, findProfileByAccount, type ProfileRow, upsertProfile } from "./profileRepository";
import type { Profile, ProfileDeletion, ProfileInput } from "./schemas";
import { uniqueTrimmed } from "./text";

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

export async function getProfile(ctx: Pick<Ctx, "sql" | "accountId">): Promise<Profile> {
  return toProfile(await db(findProfileByAccount(ctx.sql, ctx.accountId)));
}

/** Saves (replaces) the profile; saving is giving consent. Omitted lists are saved empty. */
export async function saveProfile(ctx: Pick<Ctx, "sql" | "accountId">, input: ProfileInput): Promise<Profile> {
  const row = await db(
    upsertProfile(ctx.sql, {
      accountId: ctx.accountId,
      conditions: uniqueTrimmed(input.conditions),
      medications: uniqueTrimmed(input.medications),
    }),
  );
  return toProfile(row);
}

/** Removes the profile, every log with its entries and the lab panels, in one transaction. */
export async function deleteProfile(ctx: Pick<Ctx, "sql" | "accountId">): Promise<ProfileDeletion> {
  const counts = await db(ctx.sql.begin((tx) => deleteHealthData(tx, ctx.accountId)));
  return { deleted: true, ...counts };
}
