import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { displayPrefix, generateApiKey, hashApiKey } from "../core/keys";
import type { PlanId } from "../core/plans";
import type { Db } from "../db/sql";
import * as repo from "./accountRepository";
import { bumpAuthVersions } from "./apiKeys";

/**
 * Account administration: accounts, their keys and plans. It acts for no signed-in account, so its
 * context is the database and Redis (under `redisPrefix`, to tell API processes about revocations
 * and plan changes), which a script builds without a whole process context.
 */
export type AdminCtx = Pick<SystemCtx, "sql" | "redis"> & { redisPrefix: string };

export interface IssuedKey {
  apiKey: string;
  keyId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireUuid(id: string, what: string): void {
  if (!UUID.test(id)) throw new AppError("NOT_FOUND", `Unknown ${what}: ${id}`);
}

export async function createAccount(
  ctx: AdminCtx,
  input: { plan: PlanId; email?: string | null },
): Promise<{ accountId: string; plan: PlanId } & IssuedKey> {
  const email = input.email?.trim().toLowerCase() || null;
  const created = ctx.sql.begin(async (tx) => {
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
export async function createKey(ctx: AdminCtx, accountId: string): Promise<IssuedKey> {
  requireUuid(accountId, "account");
  if (!(await repo.findAccountById(ctx.sql, accountId)))
    throw new AppError("NOT_FOUND", `Unknown account: ${accountId}`);
  return issueKey(ctx.sql, accountId);
}

/**
 * Revokes a key. Idempotent: revoking again re-announces it, so a run whose announcement failed
 * (Redis down after the commit) can simply be repeated.
 */
export async function revokeKey(ctx: AdminCtx, keyId: string): Promise<{ keyId: string; revoked: true }> {
  requireUuid(keyId, "key");
  const revoked = await repo.revokeApiKey(ctx.sql, keyId);
  if (!revoked) throw new AppError("NOT_FOUND", `Unknown key: ${keyId}`);
  await bumpAuthVersions(ctx.redis, ctx.redisPrefix, revoked.accountId, [revoked.keyHash]);
  return { keyId, revoked: true };
}

/** Moves an account to another plan; its keys' cached plan is dropped in every API process. */
export async function setPlan(ctx: AdminCtx, input: { accountId: string; plan: PlanId }) {
  const { accountId, plan } = input;
  requireUuid(accountId, "account");
  if (!(await repo.updateAccountPlan(ctx.sql, accountId, plan))) {
    throw new AppError("NOT_FOUND", `Unknown account: ${accountId}`);
  }
  await bumpAuthVersions(ctx.redis, ctx.redisPrefix, accountId, await repo.listKeyHashesByAccount(ctx.sql, accountId));
  return { accountId, plan };
}

/**
 * The account with this id, or undefined when there is none (it was deleted): for a signed-in
 * principal other than an API key (an OAuth token's subject), whose account is read per request.
 */
export function findAccount(ctx: Pick<SystemCtx, "sql">, accountId: string): Promise<repo.AccountRow | undefined> {
  return repo.findAccountById(ctx.sql, accountId);
}

/** The account's keys, revoked ones included (prefixes and times, never a key). */
export async function listKeys(ctx: AdminCtx, accountId: string) {
  requireUuid(accountId, "account");
  return repo.listApiKeysByAccount(ctx.sql, accountId);
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
