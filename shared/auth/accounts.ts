import { AppError } from "../core/errors";
import { displayPrefix, generateApiKey, hashApiKey } from "../core/keys";
import type { PlanId } from "../core/plans";
import type { Redis } from "../core/redis";
import type { Db, Sql } from "../db/sql";
import * as repo from "./accountRepository";
import { bumpAuthVersions } from "./apiKeys";

/** What account management needs: the database, and Redis to tell API processes about changes. */
export interface AccountDeps {
  sql: Sql;
  redis: Redis;
  redisPrefix: string;
}

export interface IssuedKey {
  apiKey: string;
  keyId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireUuid(id: string, what: string): void {
  if (!UUID.test(id)) throw new AppError("NOT_FOUND", `Unknown ${what}: ${id}`);
}

export async function createAccount(
  deps: AccountDeps,
  input: { plan: PlanId; email?: string | null },
): Promise<{ accountId: string; plan: PlanId } & IssuedKey> {
  const email = input.email?.trim().toLowerCase() || null;
  const created = deps.sql.begin(async (tx) => {
    if (email && (await repo.findAccountByEmail(tx, email))) {
      throw new AppError("CONFLICT", `An account with email ${email} already exists.`);
    }
    const account = await repo.insertAccount(tx, { id: Bun.randomUUIDv7(), email, plan: input.plan });
    const key = await issueKey(tx, account.id);
    return { accountId: account.id, plan: account.plan, ...key };
  }) as Promise<{ accountId: string; plan: PlanId } & IssuedKey>;
  return created.catch((error: { code?: string }) => {
    // 23505: a concurrent create with the same email won the unique index.
    if (error.code === "23505") throw new AppError("CONFLICT", `An account with email ${email} already exists.`);
    throw error;
  });
}

/** Issues a new key for an account. The full key is returned once and never stored. */
export async function createKey(deps: AccountDeps, accountId: string): Promise<IssuedKey> {
  requireUuid(accountId, "account");
  if (!(await repo.findAccountById(deps.sql, accountId)))
    throw new AppError("NOT_FOUND", `Unknown account: ${accountId}`);
  return issueKey(deps.sql, accountId);
}

/**
 * Revokes a key. Idempotent: revoking again re-announces it, so a run whose announcement failed
 * (Redis down after the commit) can simply be repeated.
 */
export async function revokeKey(deps: AccountDeps, keyId: string): Promise<{ keyId: string; revoked: true }> {
  requireUuid(keyId, "key");
  const revoked = await repo.revokeApiKey(deps.sql, keyId);
  if (!revoked) throw new AppError("NOT_FOUND", `Unknown key: ${keyId}`);
  await bumpAuthVersions(deps.redis, deps.redisPrefix, [revoked.keyHash]);
  return { keyId, revoked: true };
}

export async function setPlan(deps: AccountDeps, accountId: string, plan: PlanId) {
  requireUuid(accountId, "account");
  if (!(await repo.updateAccountPlan(deps.sql, accountId, plan))) {
    throw new AppError("NOT_FOUND", `Unknown account: ${accountId}`);
  }
  await bumpAuthVersions(deps.redis, deps.redisPrefix, await repo.listKeyHashesByAccount(deps.sql, accountId));
  return { accountId, plan };
}

export async function listKeys(deps: AccountDeps, accountId: string) {
  requireUuid(accountId, "account");
  return repo.listApiKeysByAccount(deps.sql, accountId);
}

async function issueKey(sql: Db, accountId: string): Promise<IssuedKey> {
  const apiKey = generateApiKey();
  const row = await repo.insertApiKey(sql, {
    id: Bun.randomUUIDv7(),
    accountId,
    keyHash: hashApiKey(apiKey),
    displayPrefix: displayPrefix(apiKey),
  });
  return { apiKey, keyId: row.id };
}
