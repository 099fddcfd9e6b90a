import type { SystemCtx } from "../../context/ctx";
import { deleteExpiredOAuthRecords, deleteUngrantedClients } from "./repository";

/** A registered client that nobody granted anything within a day is deleted by the sweep. */
export const UNGRANTED_CLIENT_SECONDS = 86_400;

/**
 * The hourly sweep of OAuth records: expired ones (codes, tokens, sessions, interactions) and clients
 * never granted anything a day after they registered (registration is open, so this bounds it).
 */
export async function sweepOAuthRecords(ctx: Pick<SystemCtx, "sql">): Promise<{ deleted: number; clients: number }> {
  const deleted = await deleteExpiredOAuthRecords(ctx.sql);
  const clients = await deleteUngrantedClients(ctx.sql, UNGRANTED_CLIENT_SECONDS);
  return { deleted, clients };
}
