import { setPlan } from "../../shared/auth/accounts";
import type { Deps } from "../../shared/context/deps";
import type { PlanId } from "../../shared/core/plans";
import { type Call, call, json, type TestApp } from "./http";

/** A signed-in website user: its cookie header and CSRF token, as a browser page would hold them. */
export interface WebUser {
  accountId: string;
  email: string;
  password: string;
  cookie: string;
  csrfToken: string;
}

export const TEST_PASSWORD = "correct horse battery";

export function uniqueEmail(label = "user"): string {
  return `${label}-${Bun.randomUUIDv7()}@example.test`;
}

/** The `sid=…` pair of a response's Set-Cookie, ready for a Cookie header. */
export function sessionCookieOf(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  const pair = /^(sid=[^;]*)/.exec(header)?.[1];
  if (!pair) throw new Error(`No session cookie in: ${header}`);
  return pair;
}

/** Signs up through the real endpoint; with a plan, moves the account to it as an admin would. */
export async function webUser(
  app: TestApp,
  deps: Deps,
  options: { plan?: PlanId; email?: string } = {},
): Promise<WebUser> {
  const email = options.email ?? uniqueEmail();
  const response = await call(app, "/api/auth/signup", {
    method: "POST",
    body: { email, password: TEST_PASSWORD },
  });
  if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const body = await json<{ account: { id: string }; csrfToken: string }>(response);
  if (options.plan && options.plan !== "free") {
    await setPlan(
      { sql: deps.sql, redis: deps.redis, redisPrefix: deps.env.REDIS_PREFIX },
      { accountId: body.account.id, plan: options.plan },
    );
  }
  return {
    accountId: body.account.id,
    email,
    password: TEST_PASSWORD,
    cookie: sessionCookieOf(response),
    csrfToken: body.csrfToken,
  };
}

/** A request as the website's pages send it: the session cookie, and the CSRF header unless told otherwise. */
export function webCall(
  app: TestApp,
  user: Pick<WebUser, "cookie" | "csrfToken">,
  path: string,
  options: Call & { csrf?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = { cookie: user.cookie, ...options.headers };
  const csrf = options.csrf === undefined ? user.csrfToken : options.csrf;
  if (csrf !== null) headers["x-csrf-token"] = csrf;
  return call(app, path, { ...options, headers });
}
