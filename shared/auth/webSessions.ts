import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Env } from "../core/env";
import type { PlanId, PlanTable } from "../core/plans";
import { type Redis, redisKeys } from "../core/redis";
import { fromPostgres, unavailable } from "../core/unavailable";
import type { Db } from "../db/sql";
import { createRateLimiter, nextSlotId, type RateDecision } from "../ratelimit/limiter";
import { createLeaseRecaller } from "../ratelimit/recalls";
import { rateLimited } from "./apiKeys";
import type { Principal } from "./keyCache";
import * as repo from "./sessionRepository";

/**
 * Website sessions. The cookie carries 32 random bytes (base64url); only their SHA-256 is stored,
 * so the sessions table cannot be replayed as cookies. Each session has its own CSRF token, which
 * the page reads from the session endpoints and sends back in `x-csrf-token` on every change.
 * Expiry slides with use (WEB_SESSION_IDLE_SECONDS) up to an absolute limit (WEB_SESSION_MAX_SECONDS);
 * the database clock decides both.
 */
export interface SessionDeps {
  sql: Db;
  env: Pick<Env, "WEB_SESSION_IDLE_SECONDS" | "WEB_SESSION_MAX_SECONDS">;
}

export interface WebSession {
  sessionId: string;
  accountId: string;
  email: string;
  plan: PlanId;
  csrfToken: string;
  expiresAt: Date;
}

export interface IssuedSession {
  /** The cookie value: given to the browser once, never stored. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** Pushing the sliding expiry forward is a write; once a minute per session is often enough. */
const TOUCH_AFTER_SECONDS = 60;

function hashToken(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

export async function createSession(deps: SessionDeps, accountId: string): Promise<IssuedSession> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(32).toString("base64url");
  await fromPostgres(repo.deleteExpiredSessions(deps.sql, accountId));
  const { expiresAt } = await fromPostgres(
    repo.insertSession(deps.sql, {
      id: Bun.randomUUIDv7(),
      accountId,
      tokenHash: hashToken(token),
      csrfToken,
      idleSeconds: deps.env.WEB_SESSION_IDLE_SECONDS,
      maxSeconds: deps.env.WEB_SESSION_MAX_SECONDS,
    }),
  );
  return { token, csrfToken, expiresAt };
}

/** The live session a cookie value names, with its account's current plan; undefined when none. */
export async function resolveSession(deps: SessionDeps, token: string): Promise<WebSession | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await repo
    .findLiveSession(deps.sql, hashToken(token), Math.min(TOUCH_AFTER_SECONDS, deps.env.WEB_SESSION_IDLE_SECONDS))
    .catch(unavailable("PostgreSQL"));
  if (!row) return undefined;
  let expiresAt = row.expiresAt;
  if (row.needsTouch) {
    const touched = await repo
      .touchSession(deps.sql, row.id, deps.env.WEB_SESSION_IDLE_SECONDS)
      .catch(unavailable("PostgreSQL"));
    if (!touched) return undefined;
    expiresAt = touched;
  }
  return {
    sessionId: row.id,
    accountId: row.accountId,
    email: row.email,
    plan: row.plan,
    csrfToken: row.csrfToken,
    expiresAt,
  };
}

/** Ends the session a cookie value names (idempotent). */
export async function endSession(deps: SessionDeps, token: string): Promise<void> {
  if (!TOKEN_SHAPE.test(token)) return;
  await repo.deleteSessionByTokenHash(deps.sql, hashToken(token)).catch(unavailable("PostgreSQL"));
}

/** Constant-time comparison of the sent CSRF token with the session's. */
export function csrfMatches(session: Pick<WebSession, "csrfToken">, sent: string | null): boolean {
  if (!sent) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Charges one website request to the account's hourly limit: the same sliding-window log the API
 * keys spend from, so a request counts once whichever way it came. A session (or an OAuth token, charged under its own `keyId`) is not a key: its
 * auth version is not checked (the session lookup reads the plan fresh), and no last-used time is
 * recorded for it.
 */
export function createWebCharger(redis: Redis, redisPrefix: string, plans: PlanTable, keyId = WEB_SESSION_KEY_ID) {
  const consume = createRateLimiter(redis);
  const recallAndRetake = createLeaseRecaller(redis, redisPrefix);
  const keys = redisKeys(redisPrefix);
  return async function charge(principal: Pick<Principal, "accountId" | "plan">): Promise<RateDecision> {
    const take = (recalled: boolean) =>
      consume({
        rateKey: keys.rateLimit(principal.accountId),
        // Read (a session or token has no version, so any does) but never written.
        authVersionKey: keys.authVersion(principal.accountId, "web"),
        limit: plans[principal.plan].requestsPerHour,
        slotId: nextSlotId(),
        keyId,
        expectedVersion: "*",
        recalled,
      }).catch(unavailable("Redis"));
    let rate = await take(false);
    if (rate.leasesRunning) rate = await recallAndRetake(principal.accountId, take);
    if (rate.outcome !== "allowed") throw rateLimited(rate);
    return rate;
  };
}

/** `Principal.keyId` of a website request: the session, not an API key, authenticated it. */
export const WEB_SESSION_KEY_ID = "web-session";
