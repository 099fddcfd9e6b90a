import { createDeps } from "../shared/context/deps";
import { exitGracefully } from "../shared/context/shutdown";
import { loadEnv, publicUrl } from "../shared/core/env";
import { redisReady } from "../shared/core/redis";
import { createApp } from "./app";
import { serverMaxBodyBytes } from "./plugins/bodyLimit";
import { closeTurnStreams } from "./sse/turnStream";

const env = loadEnv();
const deps = createDeps(env);
await redisReady(deps.redis, 30_000);
// Bun closes a connection idle for 10 s by default; chat streams stay quiet for up to
// CHAT_KEEPALIVE_MS (15 s) during long tool calls, so allow a minute.
const app = createApp(deps).listen({
  hostname: env.HOST,
  port: env.PORT,
  // Larger bodies are refused by Bun before they are buffered; per-route limits are in plugins/bodyLimit.ts.
  maxRequestBodySize: serverMaxBodyBytes(env),
  idleTimeout: 60,
});
deps.log.info("api listening", { url: publicUrl({ ...env, PORT: app.server?.port ?? env.PORT }), pid: process.pid });

// Stop accepting connections and let in-flight requests finish; chat streams, which can last minutes,
// are ended at once (clients resume elsewhere), or the stop would wait for them until the hard exit.
exitGracefully("api", deps, async () => {
  const stopped = app.stop();
  closeTurnStreams();
  await stopped;
});
