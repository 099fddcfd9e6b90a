/**
 * Account and key management from a shell, with the verbs the dashboard's key pages use. Prints one
 * JSON object on stdout; errors go to stderr as JSON with a non-zero exit. Reads DATABASE_URL /
 * REDIS_URL like the service (Redis is told about revocations and plan changes so API processes
 * drop cached keys).
 *
 *   bun run admin accounts:create --plan <free|go|plus|pro> [--email <e>]
 *   bun run admin accounts:set-plan --account <id> --plan <plan>
 *   bun run admin keys:create --account <id>
 *   bun run admin keys:revoke --key-id <id>
 *   bun run admin keys:list --account <id>
 *   bun run admin accounts:set-password --account <id>   (a generated website password, printed once)
 */
import { parseArgs } from "node:util";
import * as accounts from "../shared/auth/accounts";
import { generatePassword, setPassword } from "../shared/auth/webAuth";
import { databaseUrl, loadEnv, redisTarget } from "../shared/core/env";
import { AppError } from "../shared/core/errors";
import { isPlanId, PLAN_IDS, type PlanId } from "../shared/core/plans";
import { createRedis, redisReady } from "../shared/core/redis";
import { createSql } from "../shared/db/sql";

const USAGE = `usage: bun run admin <accounts:create|accounts:set-plan|accounts:set-password|keys:create|keys:revoke|keys:list> [options]`;

function parseOptions(args: string[]): Record<string, string | undefined> {
  try {
    return parseArgs({
      args,
      options: {
        plan: { type: "string" },
        email: { type: "string" },
        account: { type: "string" },
        "key-id": { type: "string" },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new AppError("BAD_REQUEST", `${(error as Error).message}\n${USAGE}`);
  }
}

function plan(value: string | undefined): PlanId {
  if (!value || !isPlanId(value)) throw new AppError("BAD_REQUEST", `--plan must be one of ${PLAN_IDS.join(", ")}`);
  return value;
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new AppError("BAD_REQUEST", `${flag} is required`);
  return value;
}

async function main(): Promise<number> {
  const [command, ...rest] = Bun.argv.slice(2);
  const values = parseOptions(rest);
  const env = loadEnv();
  const sql = createSql(databaseUrl(env), { max: 2 });
  const redis = createRedis(redisTarget(env), "request");
  const ctx: accounts.AdminCtx = { sql, redis, redisPrefix: env.REDIS_PREFIX };
  try {
    await redisReady(redis);
    const result = await run(ctx, command, values);
    console.log(JSON.stringify(result));
    return 0;
  } finally {
    await sql.end({ timeout: 5 });
    redis.disconnect();
  }
}

function run(ctx: accounts.AdminCtx, command: string | undefined, values: Record<string, string | undefined>) {
  switch (command) {
    case "accounts:create":
      return accounts.createAccount(ctx, { plan: plan(values.plan), email: values.email ?? null });
    case "accounts:set-plan":
      return accounts.setPlan(ctx, { accountId: required(values.account, "--account"), plan: plan(values.plan) });
    case "keys:create":
      return accounts.createKey(ctx, required(values.account, "--account"));
    case "keys:revoke":
      return accounts.revokeKey(ctx, required(values["key-id"], "--key-id"));
    case "accounts:set-password":
      return setWebsitePassword(ctx, required(values.account, "--account"));
    case "keys:list":
      return accounts.listKeys(ctx, required(values.account, "--account")).then((keys) => ({ keys }));
    default:
      throw new AppError("BAD_REQUEST", USAGE);
  }
}

/**
 * A new website password for an existing account: generated (so it never sits in a shell history),
 * printed once; the account's sessions end.
 */
async function setWebsitePassword(ctx: accounts.AdminCtx, accountId: string) {
  const known = /^[0-9a-f-]{36}$/i.test(accountId) && (await accounts.findAccount(ctx, accountId));
  if (!known) throw new AppError("NOT_FOUND", `Unknown account: ${accountId}`);
  const password = generatePassword();
  await setPassword(ctx, accountId, password);
  return { accountId, password };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof AppError;
    const message = error instanceof Error ? error.message : String(error);
    console.error(JSON.stringify({ error: { code: known ? error.kind : "INTERNAL", message } }));
    process.exit(known && error.status < 500 ? 2 : 1);
  },
);
