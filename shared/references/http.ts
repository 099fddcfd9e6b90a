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

/** GETs `path` (with `query`) and parses JSON; `undefined` on 404. */
export async function getJson<T>(
  upstream: UpstreamConfig,
  path: string,
  query: Record<string, string> = {},
): Promise<T | undefined> {
  const url = new URL(`${upstream.baseUrl.replace(/\/$/, "")}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: "application/json", "user-agent": "papers-health-service/0.1" },
      signal: AbortSignal.timeout(upstream.timeoutMs),
    });
  } catch (cause) {
    const timedOut = cause instanceof Error && cause.name === "TimeoutError";
    throw new UpstreamError(upstream.name, timedOut ? `no answer within ${upstream.timeoutMs} ms` : "unreachable", {
      cause,
    });
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new UpstreamError(upstream.name, `answered HTTP ${response.status}`);
  }
  try {
    return (await response.json()) as T;
  } catch (cause) {
    throw new UpstreamError(upstream.name, "answered with invalid JSON", { cause });
  }
}
