import type { Env } from "../core/env";
import type { UpstreamConfig } from "../core/upstream";
import type { OpenFdaConfig } from "./openfda";

export function rxnavConfig(env: Env): UpstreamConfig {
  return { name: "RxNav", baseUrl: env.RXNAV_BASE_URL, timeoutMs: env.UPSTREAM_TIMEOUT_MS };
}

export function openFdaConfig(env: Env): OpenFdaConfig {
  return {
    name: "openFDA",
    baseUrl: env.OPENFDA_BASE_URL,
    timeoutMs: env.UPSTREAM_TIMEOUT_MS,
    ...(env.OPENFDA_API_KEY ? { apiKey: env.OPENFDA_API_KEY } : {}),
  };
}

/** Whether a cached answer fetched at `fetchedAt` is still within the cache TTL. */
export function isFresh(fetchedAt: Date, env: Env, now = Date.now()): boolean {
  return now - fetchedAt.getTime() < env.REFERENCE_CACHE_TTL_HOURS * 3_600_000;
}
