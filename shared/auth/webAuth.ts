import { createHash } from "node:crypto";
import type { SystemCtx } from "../context/ctx";
import { AppError } from "../core/errors";
import { codePoints } from "../core/text";
import { fromPostgres, unavailable } from "../core/unavailable";
import { clearWindows, countInWindow, hitWindow, takeTurn } from "../ratelimit/windowCounter";
import { insertAccount } from "./accountRepository";
import { PASSWORD_MAX, PASSWORD_MIN, type SignInInput, type SignUpInput, type WebAccount } from "./schemas";
import * as repo from "./sessionRepository";
import { createSession, type IssuedSession } from "./webSessions";

/**
 * Website sign-up and sign-in with email and password. Passwords are hashed with Bun's built-in
 * argon2id (`Bun.password`). An unknown email costs one verification against a dummy hash, so its
 * answer takes about as long as a wrong password's and says the same thing. Failed sign-ins are
 * counted per email and client address in Redis; past the limit, sign-in for that pair is 429
 * until the window ends, even with the right password. They are also counted per email alone, which
 * past its limit slows that email to one try per turn. Sign-ups are counted per client address.
 * Sign-up hashes on its own gate, so a burst of sign-ups never queues sign-ins behind it.
 */
export type WebAuthCtx = Pick<SystemCtx, "sql" | "redis" | "env">;

export const SIGNIN_MAX_FAILURES = 5;
export const SIGNIN_WINDOW_SECONDS = 900;
/**
 * Failures for one email from all addresses together before it is slowed to one try per turn: a
 * guesser spread over many addresses is held to that pace, and the owner waits one turn at most.
 */
export const SIGNIN_ACCOUNT_MAX_FAILURES = 20;
export const SIGNIN_ACCOUNT_TURN_SECONDS = 30;

const WRONG_CREDENTIALS = "The email or password is not correct.";

/**
 * At most this many password hashes run at once per process (each argon2id run holds its memory
 * cost and a core until done); more wait their turn, and past `HASH_QUEUE` waiting, sign-in and
 * sign-up answer 503 with Retry-After instead of letting a burst exhaust memory.
 */
export const HASH_CONCURRENCY = 4;
export const HASH_QUEUE = 64;
export const SIGNUP_HASH_CONCURRENCY = 2;
export const SIGNUP_HASH_QUEUE = 16;

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
const signUpHashing = createGate(SIGNUP_HASH_CONCURRENCY, SIGNUP_HASH_QUEUE);

let dummyHash: Promise<string> | undefined;
function dummy(): Promise<string> {
  // Made once per process, outside the gate: a refusal must not be cached as the dummy.
  dummyHash ??= Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });
  return dummyHash;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function hashPassword(password: string, gate = hashing): Promise<string> {
  const length = codePoints(password);
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new AppError("VALIDATION_FAILED", `The password must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`, {
      details: [{ in: "body", path: "/password", message: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }],
    });
  }
  return gate.run(() => Bun.password.hash(password, { algorithm: "argon2id" }));
}

/** Creates a free-plan account with a password (no API key: the dashboard makes those) and signs it in. */
export async function signUp(
  ctx: WebAuthCtx,
  input: SignUpInput & { client: string },
): Promise<{ account: WebAccount; session: IssuedSession }> {
  const email = normalizeEmail(input.email);
  const address = createHash("sha256").update(input.client).digest("hex");
  await hitWindow(ctx.redis, `${ctx.env.REDIS_PREFIX}:signup:${address}`, {
    max: ctx.env.SIGNUPS_PER_ADDRESS_PER_HOUR,
    windowSeconds: 3600,
    message: (retryAfter) => `Too many sign-ups from this address; retry in ${retryAfter} s.`,
  });
  const passwordHash = await hashPassword(input.password, signUpHashing);
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
  const keys = signInKeys(ctx.env.REDIS_PREFIX, email, input.client);
  // Every attempt counts as a failure until the password proves right.
  await hitWindow(ctx.redis, keys.pair, {
    max: SIGNIN_MAX_FAILURES,
    windowSeconds: SIGNIN_WINDOW_SECONDS,
    message: tooMany,
  });
  const accountFailures = await countInWindow(ctx.redis, keys.account, SIGNIN_WINDOW_SECONDS);
  // Past the account's limit, from whatever addresses: one try per turn, never a long lockout.
  if (accountFailures.count > SIGNIN_ACCOUNT_MAX_FAILURES)
    await takeTurn(ctx.redis, keys.turn, SIGNIN_ACCOUNT_TURN_SECONDS, tooMany);
  const row = await fromPostgres(repo.findWebAccountByEmail(ctx.sql, email));
  const hash = row?.passwordHash ?? (await dummy());
  const ok = await hashing.run(() => Bun.password.verify(input.password, hash));
  if (!row?.passwordHash || !ok) throw new AppError("UNAUTHORIZED", WRONG_CREDENTIALS);
  await clearWindows(ctx.redis, keys.pair, keys.account);
  const session = await createSession(ctx, row.id);
  return { account: { id: row.id, email: row.email, plan: row.plan }, session };
}

const tooMany = (retryAfter: string) => `Too many failed sign-ins; retry in ${retryAfter} s.`;

/** The throttle keys of a sign-in: per email and address, per email, and the email's turn. */
function signInKeys(prefix: string, email: string, client: string) {
  const digest = (text: string) => createHash("sha256").update(text).digest("hex");
  const account = digest(email);
  return {
    pair: `${prefix}:signin:${digest(`${email}\n${client}`)}`,
    account: `${prefix}:signin-account:${account}`,
    turn: `${prefix}:signin-turn:${account}`,
  };
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
