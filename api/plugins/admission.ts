import { Elysia } from "elysia";
import type { Authenticator } from "../../shared/auth/apiKeys";
import type { Deps } from "../../shared/context/deps";
import { AppError } from "../../shared/core/errors";
import { type HookContext, hookPath, keyAdmission, policyFor } from "./access";
import { limitBody } from "./bodyLimit";
import { GUARDED_PATH, hostGuard } from "./hostGuard";
import { mcpAdmission, type TokenVerifier } from "./mcpAdmission";
import { sessionAdmission } from "./session";

/**
 * Everything decided about a request before routing, body parsing and validation: on /api/mcp its
 * Host and Origin (403, hostGuard.ts), its body limit (413), then its caller, by API key (on /api/mcp
 * also an OAuth access token) or by website session per its access policy, with the plan gate (401,
 * 403, 429). The body limit reads nothing: a declared length is checked at once, and a chunked body
 * is counted as the route reads it, so an unknown caller's body is never read. One hook rather than
 * one plugin each: Elysia awaits every async `onRequest` hook, and each await costs every request,
 * while here a step is awaited only when it returned a promise.
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
      // A plain function, not `async`: it returns the step's promise only when the step has one
      // (a lookup or a Redis round trip), so a cached key with a leased slot costs no promise. Elysia
      // awaits a hook whose source returns a call (`return x(`), as this one's does.
      .onRequest((context) => {
        const path = hookPath((context as HookContext).path, context.request);
        if (path === GUARDED_PATH) guardHost(context.request);
        // A declared length over the limit is refused here; a chunked body goes on as a copy that
        // counts it as the route reads it, after the caller below is known. Nothing is read here.
        context.request = limitBody(deps.env, context.request, path);
        const request = context.request;
        const policy = policyFor(request.method, path);
        let pending: Promise<void> | undefined;
        try {
          if (policy?.auth === "session") pending = bySession(request, context.set.headers, policy);
          else if (policy && !policy.anonymous) {
            pending = (path === GUARDED_PATH ? byKeyOrToken : byKey)(request, context.set.headers, policy);
          }
        } catch (error) {
          throw refusal(error, request);
        }
        return pending?.catch((error: unknown) => {
          throw refusal(error, request);
        });
      })
  );
}

/** A refused caller's chunked body is never read: the connection closes instead of draining it. */
function refusal(error: unknown, request: Request): unknown {
  if (error instanceof AppError && request.body && !request.headers.has("content-length")) {
    error.headers.connection = "close";
  }
  return error;
}
