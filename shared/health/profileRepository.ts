import type { Db } from "../db/sql";

export interface ProfileRow {
  conditions: string[];
  medications: string[];
  consentedAt: Date;
  updatedAt: Date;
}

export async function findProfileByAccount(sql: Db, accountId: string): Promise<ProfileRow | undefined> {
  const [row] = await sql<ProfileRow[]>`
    select conditions, medications, consented_at as "consentedAt", updated_at as "updatedAt"
    from health_profiles where account_id = ${accountId}`;
  return row;
}

/** Saves (replaces) the profile; the first consent time is kept across saves. */
export async function upsertProfile(
  sql: Db,
  profile: { accountId: string; conditions: string[]; medications: string[] },
): Promise<ProfileRow> {
  const [row] = await sql<ProfileRow[]>`
    insert into health_profiles (account_id, consent_given, conditions, medications)
    values (${profile.accountId}, true, ${profile.conditions}, ${profile.medications})
    on conflict (account_id) do update
      set conditions = excluded.conditions, medications = excluded.medications, updated_at = now()
    returning conditions, medications, consented_at as "consentedAt", updated_at as "updatedAt"`;
  return row as ProfileRow;
}

/**
 * Whether the account has consented, holding a share lock on the profile row until the
 * transaction ends: a concurrent profile deletion waits for writes that saw consent, and writes
 * that start after it see none.
 */
export async function lockConsent(tx: Db, accountId: string): Promise<boolean> {
  const [row] = await tx`select 1 from health_profiles where account_id = ${accountId} for share`;
  return row !== undefined;
}

/**
 * Deletes the profile (withdrawing consent), every log with its entries, the lab panels, the
 * imported records with their items, and the share links (which stop working at once).
 */
export async function deleteHealthData(
  tx: Db,
  accountId: string,
): Promise<{
  trackersDeleted: number;
  labPanelsDeleted: number;
  recordImportsDeleted: number;
  shareLinksDeleted: number;
}> {
  // The profile goes first: its row lock makes writers that checked consent finish before we go on.
  await tx`delete from health_profiles where account_id = ${accountId}`;
  const logs = await tx`delete from trackers where account_id = ${accountId}`;
  const panels = await tx`delete from lab_panels where account_id = ${accountId}`;
  const imports = await tx`delete from health_record_imports where account_id = ${accountId}`;
  const links = await tx`delete from share_links where account_id = ${accountId}`;
  return {
    trackersDeleted: logs.count,
    labPanelsDeleted: panels.count,
    recordImportsDeleted: imports.count,
    shareLinksDeleted: links.count,
  };
}
