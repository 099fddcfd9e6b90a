/** Talking to the website's API: session-authenticated (the `sid` cookie) and CSRF-protected. */
import { signInLocation } from "./destination";

export interface Account {
  id: string;
  email: string;
  plan: string;
}

export interface Session {
  account: Account;
  csrfToken: string;
  expiresAt?: string;
}

/** An error answer of the API: `{"error": {"code", "message", "details?"}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path?: string; message?: string }[] = [],
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;

export function rememberSession(session: Session): Session {
  csrfToken = session.csrfToken;
  return session;
}

/** The current session, or null when signed out (401). */
export async function currentSession(): Promise<Session | null> {
  try {
    return rememberSession(await api<Session>("/api/auth/session"));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** The session of a page that needs one; without one, the browser goes to sign-in and this never resolves. */
export async function requireSession(): Promise<Session> {
  const session = await currentSession();
  if (session) return session;
  location.replace(signInLocation(location.pathname, location.origin));
  return new Promise<Session>(() => {});
}

/** Headers of a state-changing request: the CSRF token the session handed out. */
export function csrfHeaders(): Record<string, string> {
  return csrfToken ? { "x-csrf-token": csrfToken } : {};
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** A body sent as is (FormData for uploads of audio). */
  form?: FormData;
}

/** Sends the request; returns the response for a 2xx, throws ApiError otherwise. */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") Object.assign(headers, csrfHeaders());
  let body: BodyInit | undefined = options.form;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const response = await fetch(path, { method, headers, body, credentials: "same-origin" });
  if (!response.ok) throw await errorFrom(response);
  return response;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export async function errorFrom(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as {
      error?: { code?: string; message?: string; details?: { path?: string; message?: string }[] };
    };
    if (body.error?.code) {
      return new ApiError(response.status, body.error.code, body.error.message ?? "", body.error.details);
    }
  } catch {
    // Not the documented JSON error body (a proxy's page, a dropped connection): fall through.
  }
  return new ApiError(response.status, "HTTP_ERROR", `The server answered ${response.status}.`);
}

/** A sentence a person can act on. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) {
    return error instanceof TypeError ? "The server could not be reached. Check your connection." : String(error);
  }
  switch (error.code) {
    case "PLAN_REQUIRED":
      return "Health features need the Go plan or higher.";
    case "CONSENT_REQUIRED":
      return "Give consent on the Health profile page first.";
    case "RATE_LIMITED":
      return "The hourly request limit is used up. Try again later.";
    case "UNAUTHORIZED":
      return "Your session has ended. Sign in again.";
  }
  const details = error.details
    .map((detail) => [detail.path?.replace(/^\//, ""), detail.message].filter(Boolean).join(": "))
    .filter(Boolean);
  return details.length > 0 ? `${error.message} (${details.join("; ")})` : error.message;
}
