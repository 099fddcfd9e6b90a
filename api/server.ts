import { closeDeps, createDeps } from "../shared/deps";
import { loadEnv, publicUrl } from "../shared/env";
import { redisReady } from "../shared/redis";
import { createApp } from "./app";

/** Largest request body the API reads; larger bodies are refused before they are buffered. */
export const MAX_BODY_BYTES = 1_048_576;

const env = loadEnv();
const deps = createDeps(env);
await redisReady(deps.redis, 30_000);
const app = createApp(deps).listen({ hostname: env.HOST, port: env.PORT, maxRequestBodySize: MAX_BODY_BYTES });
deps.log.info("api listening", { url: publicUrl({ ...env, PORT: app.server?.port ?? env.PORT }), pid: process.pid });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  deps.log.info("api stopping", { signal });
  // Stop accepting, let in-flight requests finish, then close clients.
  await app.stop();
  await closeDeps(deps);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
