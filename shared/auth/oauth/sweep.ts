import type { SystemCtx } from "../../context/ctx";
import { deleteExpiredOAuthRecords } from "./repository";

/** The hourly sweep of expired OAuth records (codes, tokens, sessions, interactions). */
export async function sweepOAuthRecords(ctx: Pick<SystemCtx, "sql">): Promise<{ deleted: number }> {
  return { deleted: await deleteExpiredOAuthRecords(ctx.sql) };
}
