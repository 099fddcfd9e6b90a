import type { Deps } from "../context/deps";
import { checkRedis } from "../core/redisState";

export interface DependencyStatus {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

export type Readiness = { ready: boolean; checks: Record<"postgres" | "redis" | "meilisearch", DependencyStatus> };

const TIMEOUT_MS = 2000;

/** Checks each dependency with a short timeout; never throws. */
export async function checkReadiness(deps: Pick<Deps, "sql" | "redis" | "meili">): Promise<Readiness> {
  const [postgres, redis, meilisearch] = await Promise.all([
    probe(async () => {
      await deps.sql`select 1`;
    }),
    probe(() => checkRedis(deps.redis)),
    probe(async () => {
      await deps.meili.health();
    }),
  ]);
  return { ready: postgres.ok && redis.ok && meilisearch.ok, checks: { postgres, redis, meilisearch } };
}

async function probe(check: () => Promise<void>): Promise<DependencyStatus> {
  const started = performance.now();
  let timer: Timer | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    // Only the error's class of failure is reported; hosts and credentials stay in the logs.
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "ECONNREFUSED" || code === "CONNECTION_REFUSED") return "connection refused";
  const message = error instanceof Error ? error.message : String(error);
  if (/timeout|within/i.test(message)) return "timed out";
  if (/closed|refused|writeable|ENOTCONN|connect/i.test(message)) return "not connected";
  return "unhealthy";
}
