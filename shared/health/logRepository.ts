import { type Db, isoTimestamp } from "../db/sql";
import type { Entry, LogKind, Tracker, TrackerStatus } from "./schemas";

/** A log without its entries, as stored. */
export type TrackerRow = Omit<Tracker, "entries">;

const iso = isoTimestamp;

const TRACKER_COLUMNS = (sql: Db) => sql`
  t.id, t.title, t.kind, t.status, ${iso(sql, "t.started_at")} as "startedAt",
  ${iso(sql, "t.resolved_at")} as "resolvedAt", ${iso(sql, "t.created_at")} as "createdAt",
  ${iso(sql, "t.updated_at")} as "updatedAt",
  (select count(*)::int from tracker_entries e where e.tracker_id = t.id) as "entryCount"`;

const ENTRY_COLUMNS = (sql: Db) => sql`
  e.id, e.severity, e.symptoms, e.temperature::float8 as temperature, e.temperature_unit as "temperatureUnit",
  e.activity_impact as "activityImpact", e.note, ${iso(sql, "e.recorded_at")} as "recordedAt"`;

export async function insertTracker(
  sql: Db,
  tracker: { id: string; accountId: string; title: string; kind: LogKind },
): Promise<TrackerRow> {
  await sql`
    insert into trackers (id, account_id, title, kind)
    values (${tracker.id}, ${tracker.accountId}, ${tracker.title}, ${tracker.kind})`;
  return (await findTrackerById(sql, tracker.accountId, tracker.id)) as TrackerRow;
}

/** The account's log with this id; another account's log is not found. */
export async function findTrackerById(sql: Db, accountId: string, id: string): Promise<TrackerRow | undefined> {
  const [row] = await sql<TrackerRow[]>`
    select ${TRACKER_COLUMNS(sql)} from trackers t where t.id = ${id} and t.account_id = ${accountId}`;
  return row;
}

/** One page of the account's logs, newest id first, strictly older than `before` when given. */
export async function listTrackersByAccount(
  sql: Db,
  accountId: string,
  page: { before: string | null; limit: number },
): Promise<TrackerRow[]> {
  return sql<TrackerRow[]>`
    select ${TRACKER_COLUMNS(sql)} from trackers t
    where t.account_id = ${accountId} ${page.before ? sql`and t.id < ${page.before}` : sql``}
    order by t.id desc limit ${page.limit}`;
}

export async function updateTracker(
  sql: Db,
  accountId: string,
  id: string,
  change: { title: string | null; status: TrackerStatus; resolvedAt: "now" | "keep" | "clear" },
): Promise<TrackerRow | undefined> {
  const resolvedAt =
    change.resolvedAt === "now" ? sql`now()` : change.resolvedAt === "clear" ? sql`null` : sql`resolved_at`;
  const [row] = await sql<{ id: string }[]>`
    update trackers set title = coalesce(${change.title}, title), status = ${change.status}, resolved_at = ${resolvedAt},
      updated_at = now()
    where id = ${id} and account_id = ${accountId} returning id`;
  return row ? findTrackerById(sql, accountId, id) : undefined;
}

/** Locks the log's row for the rest of the transaction and returns its status (undefined: not found). */
export async function lockTracker(tx: Db, accountId: string, id: string): Promise<TrackerStatus | undefined> {
  const [row] = await tx<{ status: TrackerStatus }[]>`
    select status from trackers where id = ${id} and account_id = ${accountId} for update`;
  return row?.status;
}

export async function deleteTracker(sql: Db, accountId: string, id: string): Promise<boolean> {
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
}

/**
 * Appends an entry and drops the log's entries beyond the newest `keep`. The caller holds the
 * log's row lock (`lockTracker`), so sequence numbers are handed out one at a time and the cap is
 * exact under concurrent inserts.
 */
export async function insertEntryKeepingNewest(tx: Db, trackerId: string, entry: NewEntry, keep: number) {
  const [bumped] = await tx<{ seq: string }[]>`
    update trackers set entry_seq = entry_seq + 1, updated_at = now() where id = ${trackerId}
    returning entry_seq as seq`;
  const seq = (bumped as { seq: string }).seq;
  const [saved] = await tx<Entry[]>`
    insert into tracker_entries as e
      (id, tracker_id, seq, severity, symptoms, temperature, temperature_unit, activity_impact, note)
    values (${entry.id}, ${trackerId}, ${seq}, ${entry.severity}, ${entry.symptoms}, ${entry.temperature},
      ${entry.temperatureUnit}, ${entry.activityImpact}, ${entry.note})
    returning ${ENTRY_COLUMNS(tx)}`;
  await tx`delete from tracker_entries where tracker_id = ${trackerId} and seq <= ${seq}::bigint - ${keep}`;
  return saved as Entry;
}

/** Entries of one log, newest first (or oldest first for exports). */
export async function listEntries(sql: Db, trackerId: string, order: "newest" | "oldest" = "newest"): Promise<Entry[]> {
  return sql<Entry[]>`
    select ${ENTRY_COLUMNS(sql)} from tracker_entries e where e.tracker_id = ${trackerId}
    order by e.seq ${order === "newest" ? sql`desc` : sql`asc`}`;
}

/** The newest `perTracker` entries of each of these logs, newest first within each. */
export async function listNewestEntries(
  sql: Db,
  trackerIds: string[],
  perTracker: number,
): Promise<Map<string, Entry[]>> {
  const byTracker = new Map<string, Entry[]>(trackerIds.map((id) => [id, []]));
  if (trackerIds.length === 0) return byTracker;
  const rows = await sql<(Entry & { trackerId: string })[]>`
    select t.id as "trackerId", ${ENTRY_COLUMNS(sql)}
    from unnest(${trackerIds}::uuid[]) as t(id)
    cross join lateral (
      select * from tracker_entries x where x.tracker_id = t.id order by x.seq desc limit ${perTracker}
    ) e
    order by t.id, e.seq desc`;
  for (const { trackerId, ...entry } of rows) byTracker.get(trackerId)?.push(entry);
  return byTracker;
}
