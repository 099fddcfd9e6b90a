/**
 * `bun run start`: the whole service on one machine. Ensures PostgreSQL, Redis and Meilisearch
 * (starting local ones when needed), migrates, applies index settings, seeds the demo account
 * once, then runs the API and the workers as child processes until Ctrl-C / SIGTERM, when it
 * stops them and every process it started.
 */

import { type Env, listenUrl, loadEnv, publicUrl } from "../shared/core/env";
import { modelCatalog } from "../shared/llm/models";
import { prepareInfrastructure } from "./lib/boot";
import { type Managed, StartupError, stopAll, waitFor } from "./lib/processes";
import { reindexWhenBehind, seedDemo, seedDemoLogin, seedDemoPapers } from "./lib/seed";
import { seedDemoConditions } from "./lib/seedConditions";
import { seedDemoHealth } from "./lib/seedHealth";
import { seedDemoReferences } from "./lib/seedReferences";

const say = (line = "") => process.stdout.write(`${line}\n`);
/** Everything this run started, stopped in reverse order on exit or failure. */
const managed: Managed[] = [];

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  say("Stopping…");
  await stopAll(managed);
  process.exit(code);
}
// Installed first: a Ctrl-C while dependencies are still starting must stop them too.
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));

type ChildEnv = Record<string, string | undefined>;
type DemoAccount = Awaited<ReturnType<typeof seedDemo>>;
type DemoLogin = Awaited<ReturnType<typeof seedDemoLogin>>;

async function main() {
  const env = loadEnv();
  // A bad model list stops here, before any server starts (the API and workers would refuse it too).
  modelCatalog(env);
  const infra = await prepareInfrastructure(env, managed);
  if (infra.migrations.length > 0) say(`Applied migrations: ${infra.migrations.join(", ")}`);
  const demo = await seedDemo(infra.env);
  // Only for a new demo account: what its user changes later stays changed.
  if (demo.apiKey) await seedDemoHealth(infra.env, demo.accountId);
  const demoLogin = await seedDemoLogin(infra.env, demo.accountId);
  await seedDemoReferences(infra.env);
  const childEnv = { ...process.env, MEILI_URL: infra.env.MEILI_URL, MEILI_MASTER_KEY: infra.env.MEILI_MASTER_KEY };
  startServers(childEnv);
  stopOnAnyExit();
  await waitForApi(env);
  const base = publicUrl(env);
  printEndpoints(base, infra.env.MEILI_URL);
  await seedDemoPapers(infra.env, childEnv);
  await reindexWhenBehind(infra.env, childEnv);
  await seedDemoConditions(infra.env, childEnv);
  printDemoAccess(base, demo, demoLogin);
  say();
  say("Ctrl-C stops everything.");
}

function startServers(childEnv: ChildEnv): void {
  for (const name of ["api", "workers"] as const) {
    const entry = name === "api" ? "api/server.ts" : "workers/main.ts";
    const child = Bun.spawn([process.execPath, entry], { env: childEnv, stdout: "inherit", stderr: "inherit" });
    managed.push({ name, process: child });
  }
}

/** Any process this run started (a server or a local dependency) exiting stops the whole service. */
function stopOnAnyExit(): void {
  for (const item of managed) {
    void item.process.exited.then((code) => {
      if (stopping) return;
      console.error(`${item.name} exited unexpectedly (${code}); stopping the service.`);
      void stop(1);
    });
  }
}

function waitForApi(env: Env): Promise<void> {
  // Probe the API where it listens, not through PUBLIC_URL (which may be a proxy not yet set up).
  const local = listenUrl(env);
  return waitFor(
    "API",
    async () => (await fetch(`${local}/healthz`, { signal: AbortSignal.timeout(1000) })).ok,
    30_000,
  );
}

function printEndpoints(base: string, meiliUrl: string | undefined): void {
  say();
  say(`API          ${base}`);
  say(`OpenAPI      ${base}/openapi.json  (browsable: ${base}/docs)`);
  say(`MCP          ${base}/api/mcp`);
  say(`Meilisearch  ${meiliUrl}`);
  say("Queue dashboard: none (inspect queues with redis-cli; see README)");
}

/** The demo key and password exist only in the first start's output; later starts say how to get new ones. */
function printDemoAccess(base: string, demo: DemoAccount, demoLogin: DemoLogin): void {
  if (demo.apiKey) {
    say();
    say(`Demo account ${demo.accountId} (pro plan). Its API key is shown this once:`);
    say(`  ${demo.apiKey}`);
    say(`  curl -H "Authorization: Bearer ${demo.apiKey}" ${base}/api/v1/account`);
  } else {
    say(`Demo account ${demo.accountId} exists; its key was printed on the first start.`);
    say(`  New key: bun run admin keys:create --account ${demo.accountId}`);
  }
  if (demoLogin.password) {
    say(`Website ${base}/  sign in as ${demoLogin.email} with password (shown this once): ${demoLogin.password}`);
  } else {
    say(`Website ${base}/  sign in as ${demoLogin.email} (its password was printed on the first start;`);
    say(`  a new one: bun run admin accounts:set-password --account ${demo.accountId})`);
  }
}

main().catch(async (error: unknown) => {
  if (stopping) return;
  const message =
    error instanceof StartupError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  console.error(`Cannot start: ${message}`);
  await stopAll(managed);
  process.exit(1);
});
