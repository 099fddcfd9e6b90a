/**
 * Where an MCP tool call's CPU goes, in-process: the real app's `handle()` (no sockets, no load
 * generator) for the cached title search through REST and through MCP in both eras, N requests
 * each after a warm-up, as CPU µs per request (`process.cpuUsage`, this process alone). The
 * difference between the paths is MCP's own work; `BENCH_PROFILE=<dir>` writes this process's CPU
 * profile for the stage breakdown.
 *   bun test/bench/mcpStages.ts > /dev/null   (BENCH_CALLS, default 4000; the app's request log
 *   goes to stdout, the table to stderr)
 */
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { createApp } from "../../api/app";
import { handleMcpRequest } from "../../api/mcp/handler";
import { PrebuiltJson } from "../../api/mcp/prebuiltJson";
import { buildServer } from "../../api/mcp/server";
import { DEMO_PAPERS } from "../../scripts/lib/seed";
import { createAccount } from "../../shared/auth/accounts";
import { contextFor } from "../../shared/context/ctx";
import { closeDeps, createDeps } from "../../shared/context/deps";
import { searchPapersByTitleTool } from "../../shared/tools/papers";
import { runTool } from "../../shared/tools/run";
import { startWorkers } from "../../workers/runner";
import { MODERN_ENVELOPE, MODERN_HEADERS } from "./mcpCalls";
import { UNLIMITED_PLANS } from "./plans";
import { benchWorld } from "./world";

const CALLS = Number(process.env.BENCH_CALLS ?? 4000);
const world = await benchWorld();
const workers = await startWorkers(world.deps, { queues: ["papers"] });
const deps = createDeps(world.env, { plans: UNLIMITED_PLANS });
try {
  const ingest = Bun.spawn([process.execPath, "scripts/papers-ingest.ts", DEMO_PAPERS], {
    env: world.childEnv,
    stdout: "ignore",
    stderr: "ignore",
  });
  if ((await ingest.exited) !== 0) throw new Error("papers-ingest failed");
  // The papers are in: the workers' polling would otherwise count as the paths' CPU.
  await workers.close();
  const { apiKey, accountId } = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const app = createApp(deps);
  const auth = { authorization: `Bearer ${apiKey}` };
  const params = { name: "search_papers_by_title", arguments: { q: "quantum", limit: 20 } };
  // With its Content-Length, as a client sends it (a body without one is counted as it streams).
  const mcp = (body: object, extra: Record<string, string>) => {
    const text = JSON.stringify(body);
    const headers = {
      ...auth,
      ...extra,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      accept: "application/json, text/event-stream",
    };
    return () => new Request("http://127.0.0.1/api/mcp", { method: "POST", headers, body: text });
  };
  const paths = {
    rest: () => new Request("http://127.0.0.1/api/v1/papers/search?q=quantum&limit=20", { headers: auth }),
    "mcp 2025-11-25": mcp({ jsonrpc: "2.0", id: 1, method: "tools/call", params }, {}),
    "mcp 2026-07-28": mcp(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: MODERN_ENVELOPE } },
      MODERN_HEADERS,
    ),
  };
  const run = async (make: () => Request, n: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const response = await app.handle(make());
      if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };
  for (const make of Object.values(paths)) await run(make, 500);
  const results: Record<string, number[]> = {};
  for (let round = 0; round < 3; round++) {
    for (const [name, make] of Object.entries(paths))
      results[name] = [...(results[name] ?? []), await run(make, CALLS)];
  }
  // Stages without the HTTP chain: the MCP handler called directly for an admitted caller, and its
  // parts alone.
  const ctx = contextFor(deps, "req_bench", { accountId, plan: "pro" });
  const stage = (work: () => unknown) => async () => {
    await work();
    return new Response(null);
  };
  const legacyBody = { jsonrpc: "2.0", id: 1, method: "tools/call", params };
  const stages = {
    "handler, 2025 search call": stage(async () => {
      const request = paths["mcp 2025-11-25"]();
      await (await handleMcpRequest(request, ctx, await request.clone().json())).arrayBuffer();
    }),
    "handler, 2026 search call": stage(async () => {
      const request = paths["mcp 2026-07-28"]();
      await (await handleMcpRequest(request, ctx, await request.clone().json())).arrayBuffer();
    }),
    "era classification (isLegacyRequest)": stage(() => isLegacyRequest(paths["mcp 2025-11-25"](), legacyBody)),
    "a server built (buildServer)": stage(() => buildServer({ ctx, prebuilt: new PrebuiltJson() }, "legacy")),
    "the tool alone (runTool, cached search)": stage(() => runTool(searchPapersByTitleTool, ctx, params.arguments)),
  };
  for (const [name, make] of Object.entries(stages)) {
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await make();
    const used = process.cpuUsage(before);
    results[name] = [(used.user + used.system) / CALLS];
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
  const rest = median(results.rest as number[]);
  console.error(`\nCPU per request in-process (${CALLS} calls × 3 rounds, median round)\n`);
  console.error("| path | µs per request | ratio to REST |");
  console.error("|---|---|---|");
  for (const [name, values] of Object.entries(results)) {
    console.error(`| ${name} | ${median(values).toFixed(1)} | ${(median(values) / rest).toFixed(2)} |`);
  }
} finally {
  await workers.close();
  await closeDeps(deps);
  await world.cleanup();
}
process.exit(0);
