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
let draining = false;
const app = createApp(deps)
  .onRequest(({ set }) => {
    if (draining) set.headers.connection = "close";
  })
  .listen({
    hostname: env.HOST,
    port: env.PORT,
    // Larger bodies are refused by Bun before they are buffered; per-route limits are in plugins/bodyLimit.ts.
    maxRequestBodySize: serverMaxBodyBytes(env),
    // Bun closes a connection idle for 10 s by default; chat streams stay quiet for up to
    // CHAT_KEEPALIVE_MS (15 s) during long tool calls, so allow a minute.
    idleTimeout: 60,
  });
deps.log.info("api listening", { url: publicUrl({ ...env, PORT: app.server?.port ?? env.PORT }), pid: process.pid });

// Chat streams, which can last minutes, are ended at once (clients resume elsewhere), or the stop would
// wait for them until the hard exit. Bun's stop closes idle kept-alive connections at once, which
// resets a request already in transit on one; so first answer a while with `Connection: close`.
exitGracefully("api", deps, async () => {
  draining = true;
  closeTurnStreams(deps);
  await Bun.sleep(env.SHUTDOWN_DRAIN_MS);
  closeTurnStreams(deps); // any opened during the drain
  await app.stop();
});
