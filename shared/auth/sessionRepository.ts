import type { PlanId } from "../core/plans";
import type { Db } from "../db/sql";

/** An account as the website shows it, with its password hash when it has one. */
export interface WebAccountRow {
  id: string;
  email: string;
  plan: PlanId;
  passwordHash: string | null;
}

/** A live session and its account, as one lookup returns them. */
export interface WebSessionRow {
  id: string;
  accountId: string;
  email: string;
  plan: PlanId;
  csrfToken: string;
  expiresAt: Date;
  /** The last request was long enough ago that the sliding expiry should be pushed forward. */
  needsTouch: boolean;
}

export async function findWebAccountByEmail(sql: Db, email: string): Promise<WebAccountRow | undefined> {
  const [row] = await sql<WebAccountRow[]>`
    select a.id, a.email, a.plan, p.password_hash as "passwordHash"
    from accounts a left join account_passwords p on p.account_id = a.id
    where a.email = ${email}`;
  return row;
}

export async function upsertPassword(sql: Db, accountId: string, passwordHash: string): Promise<void> {
  await sql`
    insert into account_passwords (account_id, password_hash) values (${accountId}, ${passwordHash})
    on conflict (account_id) do update set password_hash = excluded.password_hash, updated_at = now()`;
}

export async function hasPassword(sql: Db, accountId: string): Promise<boolean> {
  const [row] = await sql`select 1 from account_passwords where account_id = ${accountId}`;
  return row !== undefined;
}

/** Inserts a session; expiry times come from the database clock, like every later check. */
export async function insertSession(
  sql: Db,
  session: {
    id: string;
    accountId: string;
    tokenHash: Buffer;
    csrfToken: string;
    idleSeconds: number;
    maxSeconds: number;
  },
): Promise<{ expiresAt: Date }> {
  const [row] = await sql<{ expiresAt: Date }[]>`
    insert into web_sessions (id, account_id, token_hash, csrf_token, expires_at, absolute_expires_at)
    values (${session.id}, ${session.accountId}, ${session.tokenHash}, ${session.csrfToken},
      now() + make_interval(secs => least(${session.idleSeconds}::float8, ${session.maxSeconds}::float8)),
      now() + make_interval(secs => ${session.maxSeconds}::float8))
    returning expires_at as "expiresAt"`;
  return row as { expiresAt: Date };
}

/** The unexpired session with this cookie hash. `touchAfterSeconds` decides `needsTouch`. */
export async function findLiveSession(
  sql: Db,
  tokenHash: Buffer,
  touchAfterSeconds: number,
): Promise<WebSessionRow | undefined> {
  const [row] = await sql<WebSessionRow[]>`
    select s.id, s.account_id as "accountId", a.email, a.plan, s.csrf_token as "csrfToken",
      s.expires_at as "expiresAt",
      s.last_seen_at < now() - make_interval(secs => ${touchAfterSeconds}::float8) as "needsTouch"
    from web_sessions s join accounts a on a.id = s.account_id
    where s.token_hash = ${tokenHash} and s.expires_at > now()`;
  return row;
}

/** Slides the expiry forward from now, never past the absolute limit. */
export async function touchSession(sql: Db, id: string, idleSeconds: number): Promise<Date | undefined> {
  const [row] = await sql<{ expiresAt: Date }[]>`
    update web_sessions
    set last_seen_at = now(), expires_at = least(now() + make_interval(secs => ${idleSeconds}::float8), absolute_expires_at)
    where id = ${id} and expires_at > now()
    returning expires_at as "expiresAt"`;
  return row?.expiresAt;
}

export async function deleteSessionByTokenHash(sql: Db, tokenHash: Buffer): Promise<boolean> {
  const result = await sql`delete from web_sessions where token_hash = ${tokenHash}`;
  return result.count > 0;
}

export async function deleteSessionsByAccount(sql: Db, accountId: string): Promise<void> {
  await sql`delete from web_sessions where account_id = ${accountId}`;
}

/** Expired sessions are removed lazily, when their account signs in again. */
export async function deleteExpiredSessions(sql: Db, accountId: string): Promise<void> {
  await sql`delete from web_sessions where account_id = ${accountId} and expires_at <= now()`;
}
