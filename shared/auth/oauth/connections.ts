import { AppError } from "../../core/errors";
import { unavailable } from "../../core/unavailable";
import type { DashboardCtx } from "../dashboard";
import type { ConnectionList, Disconnected } from "../schemas";
import { deleteConnection, listConnectionsOfAccount } from "./repository";

/**
 * The applications an account connected over OAuth (one per grant), for the dashboard. Disconnecting
 * deletes the grant with every code and token issued under it, so the next request with any of
 * them is refused: access tokens are looked up on every MCP request.
 */
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function hostOf(uri: string): string {
  const url = URL.parse(uri);
  return url ? url.host || url.protocol : uri;
}

export async function listConnections(ctx: DashboardCtx): Promise<ConnectionList> {
  const rows = await listConnectionsOfAccount(ctx.sql, ctx.accountId).catch(unavailable("PostgreSQL"));
  return {
    connections: rows.map((row) => ({
      id: row.grantId,
      clientId: row.clientId,
      clientName: row.clientName,
      redirectHosts: [...new Set(row.redirectUris.map(hostOf))],
      scopes: [...new Set(Object.values(row.resources).flatMap((scopes) => scopes.split(" ").filter(Boolean)))],
      connectedAt: iso(row.createdAt),
      lastTokenAt: row.lastTokenAt === null ? null : iso(row.lastTokenAt),
    })),
  };
}

export async function disconnect(ctx: DashboardCtx, input: { id: string }): Promise<Disconnected> {
  const deleted = await deleteConnection(ctx.sql, ctx.accountId, input.id).catch(unavailable("PostgreSQL"));
  if (!deleted) throw new AppError("NOT_FOUND", "No such connected application.");
  return { id: input.id, revoked: true };
}
