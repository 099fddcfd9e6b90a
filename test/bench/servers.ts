/**
 * A bench target in its own process: `bare` is Elysia returning the same JSON as the account
 * endpoint with no middleware; `full` is the real app (request id, CORS, auth, Redis rate limit,
 * logging) with plan limits raised so the bench measures overhead, not 429s.
 *   bun test/bench/servers.ts <bare|full> <port>
 */
import { Elysia } from "elysia";
import { createApp } from "../../api/app";
import { createDeps } from "../../shared/context/deps";
import { loadEnv } from "../../shared/core/env";
import { redisReady } from "../../shared/core/redis";
import { UNLIMITED_PLANS } from "./plans";

const [mode, port] = Bun.argv.slice(2);
const SAMPLE = {
  accountId: "01a201a9-a7d1-7019-8936-d8a80cd774aa",
  plan: "pro",
  limits: { requestsPerHour: 3600, maxPageSize: 100, health: true },
  usage: { limit: 3600, remaining: 3599, resetSeconds: 3600 },
};

if (mode === "bare") {
  new Elysia().get("/api/v1/account", () => SAMPLE).listen({ hostname: "127.0.0.1", port: Number(port) });
} else {
  const deps = createDeps(loadEnv(), { plans: UNLIMITED_PLANS });
  await redisReady(deps.redis);
  createApp(deps).listen({ hostname: "127.0.0.1", port: Number(port) });
}
console.log("ready");
// A clean exit on either signal, so a CPU profile (BENCH_PROFILE) is written.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
