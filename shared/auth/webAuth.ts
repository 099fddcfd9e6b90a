import { createHash } from "node:crypto";
import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import type { Redis } from "../core/redis";
import { codePoints } from "../core/text";
import { fromPostgres, unavailable } from "../core/unavailable";
import { insertAccount } from "./accountRepository";
import { PASSWORD_MAX, PASSWORD_MIN, type SignInInput, type SignUpInput, type WebAccount } from "./schemas";
import * as repo from "./sessionRepository";
import { createSession, type IssuedSession } from "./webSessions";

/**
 * Website sign-up and sign-in with email and password. Passwords are hashed with Bun's built-in
 * argon2id (`Bun.password`). An unknown email costs one verification against a dummy hash, so its
 * answer takes about as long as a wrong password's and says the same thing. Failed sign-ins are
 * counted per email and client address in Redis; past the limit, sign-in for that pair is 429
 * until the window ends, even with the right password.
 */
export type WebAuthCtx = Pick<SystemCtx, "sql" | "redis" | "env">;

export const SIGNIN_MAX_FAILURES = 5;
export const SIGNIN_WINDOW_SECONDS = 900;

const WRONG_CREDENTIALS = "The email or password is not correct.";

/**
 * At most this many password hashes run at once per process (each argon2id run holds its memory
 * cost and a core until done); more wait their turn, and past `HASH_QUEUE` waiting, sign-in and
 * sign-up answer 503 with Retry-After instead of letting a burst exhaust memory.
 */
export const HASH_CONCURRENCY = 4;
export const HASH_QUEUE = 64;

/** A counting gate: `run` waits for a free slot, or refuses when too many already wait. */
export function createGate(concurrency: number, queueLimit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running >= concurrency) {
        if (waiting.length >= queueLimit) {
          throw new AppError("UNAVAILABLE", "Too many sign-ins at once; retry shortly.", {
            headers: { "Retry-After": "2" },
          });
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await work();
      } finally {
        // Hand the slot straight to the next waiter, or free it.
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    },
  };
}

const hashing = createGate(HASH_CONCURRENCY, HASH_QUEUE);

let dummyHash: Promise<string> | undefined;
function dummy(): Promise<string> {
  // Made once per process, outside the gate: a refusal must not be cached as the dummy.
  dummyHash ??= Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });
  return dummyHash;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function hashPassword(password: string): Promise<string> {
  const length = codePoints(password);
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new AppError("VALIDATION_FAILED", `The password must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`, {
      details: [{ in: "body", path: "/password", message: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }],
    });
  }
  return hashing.run(() => Bun.password.hash(password, { algorithm: "argon2id" }));
}

/** Creates a free-plan account with a password (no API key: the dashboard makes those) and signs it in. */
export async function signUp(
  ctx: WebAuthCtx,
  input: SignUpInput,
): Promise<{ account: WebAccount; session: IssuedSession }> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const taken = () => new AppError("CONFLICT", "An account with this email already exists; sign in instead.");
  const account = await ctx.sql
    .begin(async (tx) => {
      if (await repo.findWebAccountByEmail(tx, email)) throw taken();
      const row = await insertAccount(tx, { id: Bun.randomUUIDv7(), email, plan: "free" });
      await repo.upsertPassword(tx, row.id, passwordHash);
      return { id: row.id, email, plan: row.plan };
    })
    .catch((error: { code?: string }) => {
      // 23505: a concurrent sign-up with the same email won the unique index.
      if (error.code === "23505") throw taken();
      return unavailable("PostgreSQL")(error);
    });
  return { account: account as WebAccount, session: await createSession(ctx, account.id) };
}

export async function signIn(
  ctx: WebAuthCtx,
  input: SignInInput & { client: string },
): Promise<{ account: WebAccount; session: IssuedSession }> {
  const email = normalizeEmail(input.email);
  const pair = createHash("sha256").update(`${email}\n${input.client}`).digest("hex");
  const throttleKey = `${ctx.env.REDIS_PREFIX}:signin:${pair}`;
  // The attempt counts as a failure until the password proves right, so parallel guesses cannot
  // all slip past the limit before any of them is recorded.
  await countAttempt(ctx.redis, throttleKey);
  const row = await fromPostgres(repo.findWebAccountByEmail(ctx.sql, email));
  const hash = row?.passwordHash ?? (await dummy());
  const ok = await hashing.run(() => Bun.password.verify(input.password, hash));
  if (!row?.passwordHash || !ok) throw new AppError("UNAUTHORIZED", WRONG_CREDENTIALS);
  await ctx.redis.del(throttleKey).catch(unavailable("Redis"));
  const session = await createSession(ctx, row.id);
  return { account: { id: row.id, email: row.email, plan: row.plan }, session };
}

async function countAttempt(redis: Redis, key: string): Promise<void> {
  const replies = await redis
    .multi()
    .incr(key)
    .expire(key, SIGNIN_WINDOW_SECONDS, "NX")
    .ttl(key)
    .exec()
    .catch(unavailable("Redis"));
  const attempts = Number(replies?.[0]?.[1] ?? 0);
  if (attempts <= SIGNIN_MAX_FAILURES) return;
  const retryAfter = String(Math.max(1, Number(replies?.[2]?.[1] ?? SIGNIN_WINDOW_SECONDS)));
  throw new AppError("RATE_LIMITED", `Too many failed sign-ins; retry in ${retryAfter} s.`, {
    headers: { "Retry-After": retryAfter },
  });
}

/**
 * Sets (or replaces) an account's website password and ends its sessions, so a reset locks out
 * whoever knew the old one. The demo seed and the admin CLI use it.
 */
export async function setPassword(ctx: Pick<WebAuthCtx, "sql">, accountId: string, password: string) {
  const passwordHash = await hashPassword(password);
  await fromPostgres(
    ctx.sql.begin(async (tx) => {
      await repo.upsertPassword(tx, accountId, passwordHash);
      await repo.deleteSessionsByAccount(tx, accountId);
    }),
  );
}

/** A random password for an operator to hand over (24 characters of base64url, 144 bits). */
export function generatePassword(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");
}

export function accountHasPassword(ctx: Pick<WebAuthCtx, "sql">, accountId: string): Promise<boolean> {
  return fromPostgres(repo.hasPassword(ctx.sql, accountId));
}
