import { type Db, isoTimestamp } from "../db/sql";
import type { Entry, HealthLog, LogKind, LogStatus } from "./schemas";

/** A log without its entries, as stored (tables `trackers` and `tracker_entries`, as the database names them). */
export type HealthLogRow = Omit<HealthLog, "entries">;

const iso = isoTimestamp;

const LOG_COLUMNS = (sql: Db) => sql`
  t.id, t.title, t.kind, t.status, ${iso(sql, "t.started_at")} as "startedAt",
  ${iso(sql, "t.resolved_at")} as "resolvedAt", ${iso(sql, "t.created_at")} as "createdAt",
  ${iso(sql, "t.updated_at")} as "updatedAt",
  (select count(*)::int from tracker_entries e where e.tracker_id = t.id) as "entryCount"`;

const ENTRY_COLUMNS = (sql: Db) => sql`
  e.id, e.severity, e.symptoms, e.temperature::float8 as temperature, e.temperature_unit as "temperatureUnit",
  e.activity_impact as "activityImpact", e.note, ${iso(sql, "e.recorded_at")} as "recordedAt"`;

export async function insertLog(
  sql: Db,
  log: { id: string; accountId: string; title: string; kind: LogKind },
): Promise<HealthLogRow> {
  await sql`
    insert into trackers (id, account_id, title, kind)
    values (${log.id}, ${log.accountId}, ${log.title}, ${log.kind})`;
  return (await findLogById(sql, log.accountId, log.id)) as HealthLogRow;
}

/** The account's log with this id; another account's log is not found. */
export async function findLogById(sql: Db, accountId: string, id: string): Promise<HealthLogRow | undefined> {
  const [row] = await sql<HealthLogRow[]>`
    select ${LOG_COLUMNS(sql)} from trackers t where t.id = ${id} and t.account_id = ${accountId}`;
  return row;
}

/** One page of the account's logs, newest id first, strictly older than `before` when given. */
export async function listLogsByAccount(
  sql: Db,
  accountId: string,
  page: { before: string | null; limit: number },
): Promise<HealthLogRow[]> {
  return sql<HealthLogRow[]>`
    select ${LOG_COLUMNS(sql)} from trackers t
    where t.account_id = ${accountId} ${page.before ? sql`and t.id < ${page.before}` : sql``}
    order by t.id desc limit ${page.limit}`;
}

/** A log as a completion or a name lookup sees it. */
export interface LogName {
  id: string;
  title: string;
}

/**
 * The account's logs, newest first, whose title starts with `prefix` (ignoring case) or, with
 * `ids`, whose id does; `total` counts every match, not only the `limit` returned.
 */
export async function listLogNamesByPrefix(
  sql: Db,
  accountId: string,
  match: { prefix: string; ids: boolean; limit: number },
): Promise<{ logs: LogName[]; total: number }> {
  const byId = match.ids ? sql`or starts_with(t.id::text, lower(${match.prefix}))` : sql``;
  const rows = await sql<(LogName & { total: number })[]>`
    select t.id, t.title, count(*) over ()::int as total from trackers t
    where t.account_id = ${accountId} and (starts_with(lower(t.title), lower(${match.prefix})) ${byId})
    order by t.id desc limit ${match.limit}`;
  return { logs: rows.map(({ id, title }) => ({ id, title })), total: rows[0]?.total ?? 0 };
}

/** The account's logs titled `title` (ignoring case), newest first. */
export async function listLogsByTitle(sql: Db, accountId: string, title: string): Promise<LogName[]> {
  return sql<LogName[]>`
    select t.id, t.title from trackers t
    where t.account_id = ${accountId} and lower(t.title) = lower(${title})
    order by t.id desc limit 20`;
}

export async function updateLog(
  sql: Db,
  accountId: string,
  id: string,
  change: { title: string | null; status: LogStatus; resolvedAt: "now" | "keep" | "clear" },
): Promise<HealthLogRow | undefined> {
  const resolvedAt =
    change.resolvedAt === "now" ? sql`now()` : change.resolvedAt === "clear" ? sql`null` : sql`resolved_at`;
  const [row] = await sql<{ id: string }[]>`
    update trackers set title = coalesce(${change.title}, title), status = ${change.status}, resolved_at = ${resolvedAt},
      updated_at = now()
    where id = ${id} and account_id = ${accountId} returning id`;
  return row ? findLogById(sql, accountId, id) : undefined;
}

/** Locks the log's row for the rest of the transaction and returns its status (undefined: not found). */
export async function lockLog(tx: Db, accountId: string, id: string): Promise<LogStatus | undefined> {
  const [row] = await tx<{ status: LogStatus }[]>`
    select status from trackers where id = ${id} and account_id = ${accountId} for update`;
  return row?.status;
}

export async function deleteLog(sql: Db, accountId: string, id: string): Promise<boolean> {
  const result = await sql`delete from trackers where id = ${id} and account_id = ${accountId}`;
  return result.count === 1;
}

export interface NewEntry {
  id: string;
  severity: number | null;
  symptoms: string[];
  temperature: number | null;
  temperatureUnit: "C" | "F" | null;
  activityImpact: "normal" | "limited" | "unable" | null;
  note: string | null;
  /** When it was recorded, if not now (a past entry brought in: see `addPastEntries`). */
  recordedAt?: string;
}

/**
 * Appends an entry and drops the log's entries beyond the newest `keep`. The caller holds the
 * log's row lock (`lockLog`), so sequence numbers are handed out one at a time and the cap is
 * exact under concurrent inserts.
 */
export async function insertEntryKeepingNewest(tx: Db, logId: string, entry: NewEntry, keep: number) {
  const [bumped] = await tx<{ seq: string }[]>`
    update trackers set entry_seq = entry_seq + 1, updated_at = now() where id = ${logId}
    returning entry_seq as seq`;
  const seq = (bumped as { seq: string }).seq;
  const [saved] = await tx<Entry[]>`
    insert into tracker_entries as e
      (id, tracker_id, seq, severity, symptoms, temperature, temperature_unit, activity_impact, note, recorded_at)
    values (${entry.id}, ${logId}, ${seq}, ${entry.severity}, ${entry.symptoms}, ${entry.temperature},
      ${entry.temperatureUnit}, ${entry.activityImpact}, ${entry.note},
      coalesce(${entry.recordedAt ?? null}::timestamptz, clock_timestamp()))
    returning ${ENTRY_COLUMNS(tx)}`;
  await tx`delete from tracker_entries where tracker_id = ${logId} and seq <= ${seq}::bigint - ${keep}`;
  return saved as Entry;
}

/** Entries of one log, newest first (or oldest first for exports). */
export async function listEntries(sql: Db, logId: string, order: "newest" | "oldest" = "newest"): Promise<Entry[]> {
  return sql<Entry[]>`
    select ${ENTRY_COLUMNS(sql)} from tracker_entries e where e.tracker_id = ${logId}
    order by e.seq ${order === "newest" ? sql`desc` : sql`asc`}`;
}

/** The newest `perLog` entries of each of these logs, newest first within each. */
export async function listNewestEntries(sql: Db, logIds: string[], perLog: number): Promise<Map<string, Entry[]>> {
  const byLog = new Map<string, Entry[]>(logIds.map((id) => [id, []]));
  if (logIds.length === 0) return byLog;
  const rows = await sql<(Entry & { logId: string })[]>`
    select t.id as "logId", ${ENTRY_COLUMNS(sql)}
    from unnest(${logIds}::uuid[]) as t(id)
    cross join lateral (
      select * from tracker_entries x where x.tracker_id = t.id order by x.seq desc limit ${perLog}
    ) e
    order by t.id, e.seq desc`;
  for (const { logId, ...entry } of rows) byLog.get(logId)?.push(entry);
  return byLog;
}

/** Moves a log's start back to `at` when that is earlier (its first past entry). */
export async function startLogNoLaterThan(tx: Db, logId: string, at: string): Promise<void> {
  await tx`update trackers set created_at = least(created_at, ${at}::timestamptz) where id = ${logId}`;
}
