/**
 * The one way reference clients call their upstreams: GET, JSON, a time limit. Failures that may
 * pass (network, timeout, 5xx, 429, and the 403 RxNav sends beyond its rate limit) throw
 * `UpstreamError` so BullMQ retries the job with backoff; 404 means "nothing there".
 */
export class UpstreamError extends Error {
  constructor(
    readonly upstream: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${upstream}: ${message}`, options);
    this.name = "UpstreamError";
  }
}

export interface UpstreamConfig {
  name: string;
  baseUrl: string;
  timeoutMs: number;
}

/**
 * One upstream request with our user agent and the upstream's time limit; a network failure or a
 * timeout is an `UpstreamError` (retryable). Statuses are the caller's to judge.
 */
export async function fetchUpstream(
  upstream: { name: string; timeoutMs: number },
  url: string | URL,
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<Response> {
  try {
    return await fetch(url, {
      ...init,
      headers: { "user-agent": "papers-health-service/0.1", ...init.headers },
      signal: AbortSignal.timeout(upstream.timeoutMs),
    });
  } catch (cause) {
    const timedOut = cause instanceof Error && cause.name === "TimeoutError";
    throw new UpstreamError(upstream.name, timedOut ? `no answer within ${upstream.timeoutMs} ms` : "unreachable", {
      cause,
    });
  }
}

/** GETs `path` (with `query`) and parses JSON; `undefined` on 404. */
export async function getJson<T>(
  upstream: UpstreamConfig,
  path: string,
  query: Record<string, string> = {},
): Promise<T | undefined> {
  const url = new URL(`${upstream.baseUrl.replace(/\/$/, "")}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const response = await fetchUpstream(upstream, url, { headers: { accept: "application/json" } });
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new UpstreamError(upstream.name, `answered HTTP ${response.status}`);
  }
  return upstreamJson<T>(upstream, response);
}

/** The response's JSON; a body that is not JSON is an `UpstreamError` (a broken answer, retryable). */
export async function upstreamJson<T>(upstream: { name: string }, response: Response): Promise<T> {
  try {
    return (await response.json()) as T;
  } catch (cause) {
    throw new UpstreamError(upstream.name, "answered with invalid JSON", { cause });
  }
}
