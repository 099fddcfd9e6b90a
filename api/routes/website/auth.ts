import { Elysia } from "elysia";
import { SessionSchema, SignedInSchema, SignInSchema, SignUpSchema } from "../../../shared/auth/schemas";
import { signIn, signUp } from "../../../shared/auth/webAuth";
import { endSession } from "../../../shared/auth/webSessions";
import { contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { endProviderLogin } from "../../oauth/browserLogin";
import type { LazyOAuthServer } from "../../oauth/provider";
import { failures } from "../../openapi/declare";
import { NO_CONTENT } from "../../openapi/media";
import { clientAddressOf } from "../../plugins/clientAddress";
import { clearedSessionCookie, cookieValue, SESSION_COOKIE, sessionCookie, sessionOf } from "../../plugins/session";
import { stateOf } from "../../requestState";

const detail = (summary: string, description: string, ...kinds: ErrorKind[]) =>
  failures({ tags: ["Website"], summary, description }, ...kinds);

/** Website sign-up, sign-in, sign-out and the current session (api/plugins/session.ts checks the cookie). */
export function websiteAuthRoutes(deps: Deps, oauth: LazyOAuthServer) {
  const addressOf = clientAddressOf(deps.env);
  return new Elysia({ name: "routes/website/auth" })
    .post(
      "/api/auth/signup",
      async ({ body, set, request, server }) => {
        const ctx = contextFor(deps, stateOf(request).requestId);
        const { account, session } = await signUp(ctx, { ...body, client: addressOf(request, server) });
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(deps.env, session.token, deps.env.WEB_SESSION_MAX_SECONDS);
        return { account, csrfToken: session.csrfToken };
      },
      {
        body: SignUpSchema,
        response: { 201: SignedInSchema },
        detail: detail(
          "Create a free-plan account and sign in",
          "Sets the `sid` session cookie (HttpOnly, Secure, SameSite=Lax). 409 when the email is taken. A browser's Origin must be this site. At most SIGNUPS_PER_ADDRESS_PER_HOUR sign-ups per client address per hour (429 with Retry-After).",
          "CONFLICT",
          "RATE_LIMITED",
        ),
      },
    )
    .post(
      "/api/auth/signin",
      async ({ body, set, request, server }) => {
        const ctx = contextFor(deps, stateOf(request).requestId);
        const { account, session } = await signIn(ctx, { ...body, client: addressOf(request, server) });
        set.headers["set-cookie"] = sessionCookie(deps.env, session.token, deps.env.WEB_SESSION_MAX_SECONDS);
        return { account, csrfToken: session.csrfToken };
      },
      {
        body: SignInSchema,
        response: SignedInSchema,
        detail: detail(
          "Sign in with email and password",
          "Sets the `sid` cookie. Wrong email or password: 401 (the same answer for both). After 5 failures for one email from one client address within 15 minutes: 429 with Retry-After. After 20 failures for one email from any addresses, one try per 30 s for that email (429 with Retry-After for the others).",
          "UNAUTHORIZED",
          "RATE_LIMITED",
        ),
      },
    )
    .post(
      "/api/auth/signout",
      async ({ request, set }) => {
        sessionOf(request);
        const token = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
        if (token) await endSession(deps, token);
        // The authorization server's login in this browser ends with the website's (browserLogin.ts).
        const provider = cookieValue(request.headers.get("cookie"), "_session")
          ? await endProviderLogin(await oauth.get(), request)
          : [];
        set.status = 204;
        set.headers["set-cookie"] = [clearedSessionCookie(deps.env), ...provider] as unknown as string;
        return null;
      },
      {
        detail: {
          ...detail(
            "Sign out",
            "Ends the session on the server and clears the cookie, and ends this browser's sign-in at the OAuth authorization server too (a later authorization asks again). Needs x-csrf-token.",
          ),
          responses: { 204: NO_CONTENT },
        },
      },
    )
    .get(
      "/api/auth/session",
      ({ request }) => {
        const session = sessionOf(request);
        return {
          account: { id: session.accountId, email: session.email, plan: session.plan },
          csrfToken: session.csrfToken,
          expiresAt: session.expiresAt.toISOString(),
        };
      },
      {
        response: SessionSchema,
        detail: detail("The signed-in account and its CSRF token", "401 without a live session."),
      },
    );
}
