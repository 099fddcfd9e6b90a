import { findAccount } from "../../shared/auth/accounts";
import { setRateLimitHeaders } from "../../shared/auth/apiKeys";
import { authorize } from "../../shared/auth/authorize";
import { createWebCharger } from "../../shared/auth/webSessions";
import type { Deps } from "../../shared/context/deps";
import { publicUrl } from "../../shared/core/env";
import { AppError } from "../../shared/core/errors";
import { isWellFormedKey } from "../../shared/core/keys";
import { unavailable } from "../../shared/core/unavailable";
import { stateOf } from "../requestState";
import { type AccessPolicy, API_KEY_CHALLENGE, credentialFrom, type HeaderBag } from "./access";

/** `Principal.keyId` of a request an OAuth access token authenticated (charged like a session). */
export const OAUTH_KEY_ID = "oauth";
const UNAUTHORIZED =
  "Provide an API key or an OAuth access token for this server as `Authorization: Bearer <token>` (API keys also as `x-api-key`).";

type KeyStep = (request: Request, headers: HeaderBag, policy: AccessPolicy) => Promise<void> | undefined;

/** What an access token grants, once checked; a token that grants nothing is a 401 AppError. */
export interface VerifiedToken {
  accountId: string;
  scopes: string[];
}

/** Checks an OAuth access token for the MCP endpoint (api/oauth/tokens.ts implements it). */
export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

/**
 * Admission on the MCP endpoint, the protected resource: an API key as everywhere, or an OAuth
 * access token issued for this endpoint (RFC 8707 audience). A token is read from the database on
 * every request, so a revoked grant stops at the next one. Every 401 points at the resource's
 * metadata (RFC 9728), where an MCP client discovers how to get a token.
 */
export function mcpAdmission(deps: Deps, verify: TokenVerifier, byKey: KeyStep): KeyStep {
  const charge = createWebCharger(deps.redis, deps.env.REDIS_PREFIX, deps.plans, OAUTH_KEY_ID);
  const byToken = async (request: Request, headers: HeaderBag, policy: AccessPolicy, token: string) => {
    const access = await verify(token);
    const account = await findAccount(deps, access.accountId).catch(unavailable("PostgreSQL"));
    if (!account) throw new AppError("UNAUTHORIZED", "The access token's account no longer exists.");
    const state = stateOf(request);
    state.principal = {
      accountId: account.id,
      keyId: OAUTH_KEY_ID,
      plan: account.plan,
      scopes: new Set(access.scopes),
    };
    state.rate = await charge(state.principal);
    setRateLimitHeaders(headers, state.rate);
    if (policy.feature) await authorize({ plans: deps.plans, plan: state.principal.plan }, { feature: policy.feature });
  };
  const metadata = `${publicUrl(deps.env)}/.well-known/oauth-protected-resource/api/mcp`;
  return async (request, headers, policy) => {
    try {
      const credential = credentialFrom(request.headers);
      if (credential && !isWellFormedKey(credential)) await byToken(request, headers, policy, credential);
      else await byKey(request, headers, policy);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 401) throw error;
      const sent = /^Bearer\s/i.test(request.headers.get("authorization") ?? "") || request.headers.has("x-api-key");
      const challenge = `${API_KEY_CHALLENGE}, resource_metadata="${metadata}"${sent ? ', error="invalid_token"' : ""}`;
      throw new AppError("UNAUTHORIZED", sent ? error.message : UNAUTHORIZED, {
        headers: { ...error.headers, "www-authenticate": challenge },
      });
    }
  };
}
