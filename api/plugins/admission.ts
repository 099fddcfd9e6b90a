import { Elysia } from "elysia";
import type { Authenticator } from "../../shared/auth/apiKeys";
import type { Deps } from "../../shared/context/deps";
import { keyAdmission, pathOf, policyFor } from "./access";
import { limitBody } from "./bodyLimit";
import { GUARDED_PATH, hostGuard } from "./hostGuard";
import { mcpAdmission, type TokenVerifier } from "./mcpAdmission";
import { sessionAdmission } from "./session";

/**
 * Everything decided about a request before routing, body parsing and validation, in order: on
 * /api/mcp its Host and Origin (403, hostGuard.ts), its body limit (413), then its caller, by API
 * key (on /api/mcp also an OAuth access token) or by website session per its access policy (401, 403, 429). One hook rather than one plugin each: Elysia awaits every async `onRequest` hook,
 * and each await costs every request, while here a step is awaited only when it returned a promise.
 */
export function admission(deps: Deps, authenticator: Authenticator, verifyToken: TokenVerifier) {
  const byKey = keyAdmission(authenticator, deps.plans);
  const byKeyOrToken = mcpAdmission(deps, verifyToken, byKey);
  const bySession = sessionAdmission(deps);
  const guardHost = hostGuard(deps.env);
  return (
    new Elysia({ name: "admission" })
      // Leased rate-limit slots go back to Redis when the server stops.
      .onStop(() => authenticator.dispose())
      .onRequest(async (context) => {
        const path = pathOf(context.request.url);
        if (path === GUARDED_PATH) guardHost(context.request);
        const counted = limitBody(deps.env, context.request, path);
        // A chunked body was read and counted: the request goes on as the counted copy.
        if (counted) context.request = await counted;
        const request = context.request;
        const policy = policyFor(request.method, path);
        if (policy?.auth === "session") await bySession(request, context.set.headers, policy);
        else if (policy && !policy.anonymous) {
          await (path === GUARDED_PATH ? byKeyOrToken : byKey)(request, context.set.headers, policy);
        }
      })
  );
}
