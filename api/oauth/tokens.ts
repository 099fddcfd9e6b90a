import { AppError } from "../../shared/core/errors";
import { unavailable } from "../../shared/core/unavailable";
import type { TokenVerifier } from "../plugins/mcpAdmission";
import type { LazyOAuthServer } from "./provider";

/**
 * An access token as the MCP endpoint accepts it: issued here, live (not expired, revoked or
 * disconnected: read from the database every time), and for the MCP endpoint (RFC 8707 audience).
 */
export function tokenVerifier(oauth: LazyOAuthServer): TokenVerifier {
  return async (token) => {
    const server = await oauth.get();
    const access = await server.provider.AccessToken.find(token).catch(unavailable("PostgreSQL"));
    if (!access) throw new AppError("UNAUTHORIZED", "The access token is unknown, expired or revoked.");
    const audience = Array.isArray(access.aud) ? access.aud : [access.aud];
    if (!audience.includes(server.resource)) {
      throw new AppError("UNAUTHORIZED", "The access token was not issued for this resource.");
    }
    return { accountId: access.accountId, scopes: (access.scope ?? "").split(" ").filter(Boolean) };
  };
}
