import type { SystemCtx } from "../../context/ctx";
import { ensureServerKeys, type ServerKeysRow } from "./repository";

/**
 * The authorization server's signing and cookie keys, shared by every API process: the stored ones,
 * or `candidate` when none are stored yet (the first writer wins, so concurrent first starts agree).
 */
export function serverKeys(ctx: Pick<SystemCtx, "sql">, candidate: ServerKeysRow): Promise<ServerKeysRow> {
  return ensureServerKeys(ctx.sql, candidate);
}
