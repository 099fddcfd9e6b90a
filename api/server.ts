import { createDeps } from "../shared/deps";
import { loadEnv, publicUrl } from "../shared/env";
import { redisReady } from "../shared/redis";
import { exitGracefully } from "../shared/shutdown";
import { createApp } from "./app";

/** Largest request body the API reads; larger bodies are refused before they are buffered. */
export const MAX_BODY_BYTES = 1_048_576;

const env = loadEnv();
const deps = createDeps(env);
await redisReady(deps.redis, 30_000);
// Bun closes a connection idle for 10 s by default; chat streams stay quiet for up to
// CHAT_KEEPALIVE_MS (15 s) during long tool calls, so allow a minute.
const app = createApp(deps).listen({
  hostname: env.HOST,
  port: env.PORT,
  maxRequestBodySize: MAX_BODY_BYTES,
  idleTimeout: 60,
});
deps.log.info("api listening", { url: publicUrl({ ...env, PORT: app.server?.port ?? env.PORT }), pid: process.pid });

exitGracefully("api", deps, () => app.stop());
