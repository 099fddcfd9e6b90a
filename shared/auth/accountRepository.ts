import type { PlanId } from "../core/plans";
import type { Db } from "../db/sql";

export interface AccountRow {
  id: string;
  email: string | null;
  plan: PlanId;
  createdAt: Date;
}

export interface ApiKeyRow {
  id: string;
  accountId: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What authentication needs from one lookup: the key's hash, its account and plan. */
export interface KeyOwnerRow {
  keyId: string;
  keyHash: Buffer;
  accountId: string;
  plan: PlanId;
}

export async function insertAccount(sql: Db, account: { id: string; email: string | null; plan: PlanId }) {
  const [row] = await sql<AccountRow[]>`
    insert into accounts (id, email, plan) values (${account.id}, ${account.email}, ${account.plan})
    returning id, email, plan, created_at as "createdAt"`;
  return row as AccountRow;
}

export async function findAccountById(sql: Db, id: string): Promise<AccountRow | undefined> {
  const [row] = await sql<AccountRow[]>`
    select id, email, plan, created_at as "createdAt" from accounts where id = ${id}`;
  return row;
}

export async function findAccountByEmail(sql: Db, email: string): Promise<AccountRow | undefined> {
  const [row] = await sql<AccountRow[]>`
    select id, email, plan, created_at as "createdAt" from accounts where email = ${email}`;
  return row;
}

export async function updateAccountPlan(sql: Db, id: string, plan: PlanId): Promise<boolean> {
  const result = await sql`update accounts set plan = ${plan}, updated_at = now() where id = ${id}`;
  return result.count === 1;
}

export async function insertApiKey(
  sql: Db,
  key: { id: string; accountId: string; keyHash: Buffer; displayPrefix: string },
): Promise<ApiKeyRow> {
  const [row] = await sql<ApiKeyRow[]>`
    insert into api_keys (id, account_id, key_hash, display_prefix)
    values (${key.id}, ${key.accountId}, ${key.keyHash}, ${key.displayPrefix})
    returning id, account_id as "accountId", display_prefix as "displayPrefix",
      created_at as "createdAt", last_used_at as "lastUsedAt", revoked_at as "revokedAt"`;
  return row as ApiKeyRow;
}

/** Revokes a key (keeping the first revocation time); returns its hash and account, or undefined when the key is unknown. */
export async function revokeApiKey(
  sql: Db,
  keyId: string,
): Promise<{ keyHash: Buffer; accountId: string } | undefined> {
  const [row] = await sql<{ keyHash: Buffer; accountId: string }[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${keyId}
    returning key_hash as "keyHash", account_id as "accountId"`;
  return row;
}

/** The account a key belongs to, revoked or not (it never changes). */
export async function findKeyAccountByHash(sql: Db, keyHash: Buffer): Promise<string | undefined> {
  const [row] = await sql<{ accountId: string }[]>`
    select account_id as "accountId" from api_keys where key_hash = ${keyHash}`;
  return row?.accountId;
}

export async function listKeyHashesByAccount(sql: Db, accountId: string): Promise<Buffer[]> {
  const rows = await sql<{ keyHash: Buffer }[]>`
    select key_hash as "keyHash" from api_keys where account_id = ${accountId} and revoked_at is null`;
  return rows.map((row) => row.keyHash);
}

export async function listApiKeysByAccount(sql: Db, accountId: string): Promise<ApiKeyRow[]> {
  return sql<ApiKeyRow[]>`
    select id, account_id as "accountId", display_prefix as "displayPrefix", created_at as "createdAt",
      last_used_at as "lastUsedAt", revoked_at as "revokedAt"
    from api_keys where account_id = ${accountId} order by id`;
}

/** The live (unrevoked) key with this hash and its owner, if any. */
export async function findKeyOwnerByHash(sql: Db, keyHash: Buffer): Promise<KeyOwnerRow | undefined> {
  const [row] = await sql<KeyOwnerRow[]>`
    select k.id as "keyId", k.key_hash as "keyHash", a.id as "accountId", a.plan
    from api_keys k join accounts a on a.id = k.account_id
    where k.key_hash = ${keyHash} and k.revoked_at is null`;
  return row;
}

/** Records when keys were last used; called in batches by a worker, never per request. */
export async function touchApiKeys(sql: Db, usage: { keyId: string; usedAt: Date }[]): Promise<void> {
  if (usage.length === 0) return;
  const ids = usage.map((u) => u.keyId);
  const times = usage.map((u) => u.usedAt.toISOString());
  await sql`
    update api_keys k set last_used_at = greatest(k.last_used_at, u.used_at)
    from unnest(${ids}::uuid[], ${times}::timestamptz[]) as u(id, used_at)
    where k.id = u.id`;
}
