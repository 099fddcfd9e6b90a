import { type Env, publicUrl } from "../../shared/core/env";
import { AppError } from "../../shared/core/errors";
import { CORS_ORIGINS, corsAllowsOrigin } from "./cors";

/** The path the guard covers: the MCP endpoint, which local agents and browsers talk to. */
export const GUARDED_PATH = "/api/mcp";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** The host name of a `Host` value, lower-cased, without its port (`[::1]:3000` → `[::1]`). */
function hostnameOf(host: string): string {
  const end = host.startsWith("[") ? host.indexOf("]") + 1 : host.indexOf(":");
  return (end > 0 ? host.slice(0, end) : host).toLowerCase();
}

/** The `host` part of a request URL (an in-process request has no Host header). */
function urlHost(url: string): string {
  const start = url.indexOf("//") + 2;
  const end = url.indexOf("/", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/**
 * The host names the guarded path answers to, with any port: PUBLIC_URL's; loopback's when running
 * for development or when PUBLIC_URL is loopback itself (a local server is what rebinding targets,
 * and its own clients call it by those names); and ALLOWED_HOSTS.
 */
export function allowedHosts(env: Env): Set<string> {
  const publicHost = new URL(publicUrl(env)).hostname.toLowerCase();
  const hosts = new Set([publicHost]);
  if (env.NODE_ENV === "development" || LOOPBACK_NAMES.includes(publicHost)) {
    for (const name of LOOPBACK_NAMES) hosts.add(name);
  }
  for (const entry of env.ALLOWED_HOSTS?.split(",") ?? []) {
    if (entry.trim()) hosts.add(hostnameOf(entry.trim()));
  }
  return hosts;
}

/**
 * DNS-rebinding protection for /api/mcp (a step of the admission hook, before the key check, so a
 * rebound page learns nothing, not even that a key is needed). A page on evil.example whose name
 * now resolves to this server is same-origin with it in the browser, so CORS does not stop it; but
 * its requests name evil.example in `Host`, which is refused. `Origin`, when sent, must be one the
 * CORS policy lets read responses (every origin while that policy is `*`; the check follows it if
 * it narrows). Either failure is 403 FORBIDDEN. Preflights never get here (the CORS plugin answers
 * them first); they carry no data.
 */
export function hostGuard(env: Env, origins: "*" | readonly string[] = CORS_ORIGINS) {
  const hosts = allowedHosts(env);
  return (request: Request): void => {
    const host = request.headers.get("host") ?? urlHost(request.url);
    if (!hosts.has(hostnameOf(host))) {
      throw new AppError(
        "FORBIDDEN",
        "The Host header names a host this server does not answer to on /api/mcp (DNS-rebinding protection; see ALLOWED_HOSTS).",
      );
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !corsAllowsOrigin(origin, origins)) {
      throw new AppError("FORBIDDEN", "Requests from this Origin are not accepted on /api/mcp.");
    }
  };
}
