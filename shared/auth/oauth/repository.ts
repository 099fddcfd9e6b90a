import type { Db, Sql } from "../../db/sql";

/** One oidc-provider model record (see migration 0010). */
export interface OAuthRecordRow {
  payload: Record<string, unknown>;
  consumedAt: Date | null;
}

export interface OAuthRecordWrite {
  kind: string;
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  accountId: string | null;
  expiresAt: Date | null;
}

export async function upsertOAuthRecord(sql: Db, record: OAuthRecordWrite): Promise<void> {
  await sql`
    insert into oauth_records (kind, id, payload, grant_id, uid, user_code, account_id, expires_at)
    values (${record.kind}, ${record.id}, ${sql.json(record.payload as never)}, ${record.grantId}, ${record.uid},
      ${record.userCode}, ${record.accountId}, ${record.expiresAt})
    on conflict (kind, id) do update set
      payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
      user_code = excluded.user_code, account_id = excluded.account_id, expires_at = excluded.expires_at`;
}

/** A live record: one past its expiry is gone for every reader, whether or not it was swept yet. */
export async function findOAuthRecord(sql: Db, kind: string, id: string): Promise<OAuthRecordRow | undefined> {
  const [row] = await sql<OAuthRecordRow[]>`
    select payload, consumed_at as "consumedAt" from oauth_records
    where kind = ${kind} and id = ${id} and (expires_at is null or expires_at > now())`;
  return row;
}

export async function findOAuthRecordBy(
  sql: Db,
  kind: string,
  column: "uid" | "user_code",
  value: string,
): Promise<OAuthRecordRow | undefined> {
  const [row] = await sql<OAuthRecordRow[]>`
    select payload, consumed_at as "consumedAt" from oauth_records
    where kind = ${kind} and ${sql(column)} = ${value} and (expires_at is null or expires_at > now())
    limit 1`;
  return row;
}

export async function consumeOAuthRecord(sql: Db, kind: string, id: string): Promise<void> {
  await sql`update oauth_records set consumed_at = now() where kind = ${kind} and id = ${id}`;
}

export async function deleteOAuthRecord(sql: Db, kind: string, id: string): Promise<void> {
  await sql`delete from oauth_records where kind = ${kind} and id = ${id}`;
}

/** Everything issued under a grant (codes, tokens); the grant record itself is kind `Grant`. */
export async function deleteOAuthGrantRecords(sql: Db, grantId: string): Promise<void> {
  await sql`delete from oauth_records where grant_id = ${grantId}`;
}

/** Sweeps records past their expiry (readers already ignore them); returns how many went. */
export async function deleteExpiredOAuthRecords(sql: Db): Promise<number> {
  const rows = await sql`delete from oauth_records where expires_at <= now() returning 1`;
  return rows.length;
}

/**
 * Deletes clients registered more than `ageSeconds` ago that were never granted anything (no grant
 * record names them), with their registration access tokens; returns how many clients went.
 */
export async function deleteUngrantedClients(sql: Db, ageSeconds: number): Promise<number> {
  const rows = await sql<{ id: string }[]>`
    delete from oauth_records c
    where c.kind = 'Client'
      and coalesce((c.payload->>'client_id_issued_at')::bigint, 0) < extract(epoch from now())::bigint - ${ageSeconds}
      and not exists (
        select 1 from oauth_records g where g.kind = 'Grant' and g.payload->>'clientId' = c.id)
    returning c.id`;
  if (rows.length > 0) {
    await sql`
      delete from oauth_records
      where kind = 'RegistrationAccessToken' and payload->>'clientId' in ${sql(rows.map((row) => row.id))}`;
  }
  return rows.length;
}

/** An application the account has connected: its grant and the client it was given to. */
export interface ConnectionRow {
  grantId: string;
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
  redirectUris: string[];
  resources: Record<string, string>;
  createdAt: number;
  expiresAt: Date | null;
  lastTokenAt: number | null;
}

export async function listConnectionsOfAccount(sql: Db, accountId: string): Promise<ConnectionRow[]> {
  return sql<ConnectionRow[]>`
    select g.id as "grantId", g.payload->>'clientId' as "clientId",
      c.payload->>'client_name' as "clientName", c.payload->>'client_uri' as "clientUri",
      coalesce(c.payload->'redirect_uris', '[]'::jsonb) as "redirectUris",
      coalesce(g.payload->'resources', '{}'::jsonb) as resources,
      (g.payload->>'iat')::bigint as "createdAt", g.expires_at as "expiresAt",
      (select max((t.payload->>'iat')::bigint) from oauth_records t
        where t.grant_id = g.id and t.kind in ('AccessToken', 'RefreshToken')) as "lastTokenAt"
    from oauth_records g
    left join oauth_records c on c.kind = 'Client' and c.id = g.payload->>'clientId'
    where g.kind = 'Grant' and g.account_id = ${accountId} and (g.expires_at is null or g.expires_at > now())
    order by g.payload->>'iat' desc`;
}

/** Deletes one of the account's grants and everything issued under it; false when it is not theirs. */
export async function deleteConnection(sql: Sql, accountId: string, grantId: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    const deleted = await tx`
      delete from oauth_records where kind = 'Grant' and id = ${grantId} and account_id = ${accountId} returning 1`;
    if (deleted.length === 0) return false;
    await tx`delete from oauth_records where grant_id = ${grantId}`;
    return true;
  });
}

export interface ServerKeysRow {
  jwks: { keys: Record<string, unknown>[] };
  cookieKeys: string[];
}

/** The fleet's keys: the first writer's win, so concurrent first starts agree. */
export async function ensureServerKeys(sql: Db, candidate: ServerKeysRow): Promise<ServerKeysRow> {
  await sql`
    insert into oauth_server_keys (id, jwks, cookie_keys)
    values (1, ${sql.json(candidate.jwks as never)}, ${sql.json(candidate.cookieKeys as never)})
    on conflict (id) do nothing`;
  const [row] = await sql<
    ServerKeysRow[]
  >`select jwks, cookie_keys as "cookieKeys" from oauth_server_keys where id = 1`;
  if (!row) throw new Error("oauth_server_keys is empty after insert");
  return row;
}
