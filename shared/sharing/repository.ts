/** `share_links` and `share_link_opens` (migration 0011): links by token hash, and their audit. */
import { type Db, isoTimestamp as iso } from "../db/sql";
import type { ShareLink, ShareView } from "./schemas";

const LINK_COLUMNS = (sql: Db) => sql`
  l.id, l.label,
  case when l.revoked_at is not null then 'revoked' when l.expires_at <= now() then 'expired' else 'active' end
    as status,
  ${iso(sql, "l.created_at")} as "createdAt", ${iso(sql, "l.expires_at")} as "expiresAt",
  ${iso(sql, "l.revoked_at")} as "revokedAt"`;

/**
 * Inside a transaction: holds the account's share-link lock until commit, so two creations at
 * once cannot both pass the count of open links.
 */
export async function lockShareLinks(tx: Db, accountId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`share-links:${accountId}`}, 0))`;
}

/** Links of the account that are neither revoked nor expired. */
export async function countOpenLinks(sql: Db, accountId: string): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from share_links
    where account_id = ${accountId} and revoked_at is null and expires_at > now()`;
  return row?.count ?? 0;
}

export async function insertShareLink(
  sql: Db,
  link: { id: string; accountId: string; tokenSha256: string; label: string | null; expiresInDays: number },
): Promise<ShareLink> {
  const [row] = await sql<ShareLink[]>`
    insert into share_links as l (id, account_id, token_sha256, label, expires_at)
    values (${link.id}, ${link.accountId}, ${link.tokenSha256}, ${link.label},
      now() + make_interval(days => ${link.expiresInDays}))
    returning ${LINK_COLUMNS(sql)}, 0 as opens, null as "lastOpenedAt"`;
  return row as ShareLink;
}

/** The account's links, newest first, with how often and when last each was opened. */
export async function listShareLinksByAccount(sql: Db, accountId: string): Promise<ShareLink[]> {
  return sql<ShareLink[]>`
    select ${LINK_COLUMNS(sql)}, coalesce(o.opens, 0)::int as opens, ${iso(sql, "o.last_opened_at")} as "lastOpenedAt"
    from share_links l
    left join lateral (
      select count(*) as opens, max(opened_at) as last_opened_at from share_link_opens where link_id = l.id
    ) o on true
    where l.account_id = ${accountId}
    order by l.created_at desc, l.id desc`;
}

/**
 * Revokes the account's link; a link already revoked keeps its first revocation time. False when
 * the account has no link with this id.
 */
export async function revokeShareLinkById(sql: Db, accountId: string, id: string): Promise<boolean> {
  const rows = await sql`
    update share_links set revoked_at = coalesce(revoked_at, now())
    where id = ${id} and account_id = ${accountId}
    returning id`;
  return rows.length > 0;
}

/** The link behind a token hash while it works (not revoked, not expired): its id, owner and expiry. */
export async function findActiveLinkByTokenHash(
  sql: Db,
  tokenSha256: string,
): Promise<{ id: string; accountId: string; expiresAt: string } | undefined> {
  const [row] = await sql<{ id: string; accountId: string; expiresAt: string }[]>`
    select l.id, l.account_id as "accountId", ${iso(sql, "l.expires_at")} as "expiresAt"
    from share_links l
    where l.token_sha256 = ${tokenSha256} and l.revoked_at is null and l.expires_at > now()`;
  return row;
}

/**
 * Records one opening of a link, only while the link still works: false when it was revoked,
 * expired or deleted since it was looked up (what was read for it is then not shown).
 */
export async function insertShareLinkOpen(
  sql: Db,
  open: { linkId: string; view: ShareView; clientAddress: string | null; userAgent: string | null },
): Promise<boolean> {
  const rows = await sql`
    insert into share_link_opens (link_id, view, client_address, user_agent)
    select l.id, ${open.view}, ${open.clientAddress}, ${open.userAgent} from share_links l
    where l.id = ${open.linkId} and l.revoked_at is null and l.expires_at > now()
    returning id`;
  return rows.length > 0;
}
