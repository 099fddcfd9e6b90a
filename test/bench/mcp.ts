/**
 * MCP `tools/call` of the title search vs the same REST request, side by side in one run (`bun run
 * bench` runs it), in both protocol eras: a 2025-era call (stateless, no `initialize` needed) and a
 * 2026-07-28 call (the `_meta` envelope and its headers). The bundled demo papers indexed through
 * the ingest CLI and the queue, the real app in its own process (plan limits raised), wrk -c10,
 * p50/p99. Goal: MCP p50 ≤ 1.5× REST p50 in each era — a fresh MCP server per request must stay
 * cheap (the tool list is built once).
 */

import { stopProcess } from "../../scripts/lib/processes";
import { createAccount } from "../../shared/auth/accounts";
import { startWorkers } from "../../workers/runner";
import { QUICK, reportGoal } from "./goals";
import { MODERN_ENVELOPE, MODERN_HEADERS } from "./mcpCalls";
import { benchWorld, formatResult, loadDemoData, serve, type WrkResult, wrk } from "./world";

const DURATION = process.env.BENCH_SECONDS ?? (QUICK ? "2" : "10");
const WARM_UP = QUICK ? "1" : "2";
const CONNECTIONS = 10;
const Q = "quantum";
const LIMIT = 20;

if (!Bun.which("wrk")) {
  console.error("wrk is not installed: apt-get install wrk");
  process.exit(1);
}

const world = await benchWorld();
const workers = await startWorkers(world.deps, { queues: ["papers"] });
// BENCH_PROFILE=<dir>: the API writes a CPU profile there (Bun's --cpu-prof, markdown) when it stops.
const profile = process.env.BENCH_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const server = await serve("full", world.childEnv, profile);
try {
  await loadDemoData(world.childEnv, { conditions: false });
  const { apiKey } = await createAccount(
    { sql: world.deps.sql, redis: world.deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const restPath = `/api/v1/papers/search?q=${Q}&limit=${LIMIT}`;
  const params = { name: "search_papers_by_title", arguments: { q: Q, limit: LIMIT } };
  const legacy = { jsonrpc: "2.0", id: 1, method: "tools/call", params };
  const modern = { ...legacy, params: { ...params, _meta: MODERN_ENVELOPE } };
  const modernHeaders = { BENCH_MCP_METHOD: "tools/call", BENCH_MCP_NAME: params.name };
  await sameAnswer(base, apiKey, restPath, legacy, {});
  await sameAnswer(base, apiKey, restPath, modern, MODERN_HEADERS);

  const rest = (seconds: string): WrkResult =>
    wrk(base, "test/bench/path.lua", { BENCH_PATH: restPath, BENCH_KEY: apiKey }, seconds, CONNECTIONS);
  const mcp = (seconds: string, call: object, extra: Record<string, string> = {}): WrkResult =>
    wrk(
      base,
      "test/bench/mcp.lua",
      { BENCH_BODY: JSON.stringify(call), BENCH_KEY: apiKey, ...extra },
      seconds,
      CONNECTIONS,
    );
  rest(WARM_UP);
  mcp(WARM_UP, legacy);
  mcp(WARM_UP, modern, modernHeaders);
  const restResult = rest(DURATION);
  const legacyResult = mcp(DURATION, legacy);
  const modernResult = mcp(DURATION, modern, modernHeaders);
  if ([restResult, legacyResult, modernResult].some((result) => result.errors > 0)) {
    throw new Error("non-2xx responses during the bench");
  }
  const ratios = [legacyResult, modernResult].map((result) => result.p50 / restResult.p50);

  console.log(`\nMCP vs REST title search, wrk -t2 -c${CONNECTIONS} -d${DURATION}s, ${new Date().toISOString()}\n`);
  console.log("| request | result | p50 ratio to REST |");
  console.log("|---|---|---|");
  console.log(`| GET ${restPath} | ${formatResult(restResult)} | 1.00 |`);
  console.log(
    `| MCP 2025-11-25 tools/call search_papers_by_title | ${formatResult(legacyResult)} | ${ratios[0]?.toFixed(2)} |`,
  );
  console.log(
    `| MCP 2026-07-28 tools/call search_papers_by_title | ${formatResult(modernResult)} | ${ratios[1]?.toFixed(2)} |`,
  );
  for (const [era, ratio] of [
    ["2025-11-25", ratios[0]],
    ["2026-07-28", ratios[1]],
  ] as const) {
    console.log(`Goal (${era}): MCP p50 ≤ 1.5× REST p50 — ${(ratio ?? Infinity) <= 1.5 ? "met" : "NOT met"}.`);
    reportGoal({
      bench: "mcp",
      measure: `MCP tools/call p50 / REST p50, ${era}`,
      value: ratio ?? Infinity,
      goal: 1.5,
      kind: "max",
      unit: "×",
    });
  }
} finally {
  await stopProcess(server.child);
  await workers.close();
  await world.cleanup();
}

/** Every path must return the same papers, or the comparison means nothing. */
async function sameAnswer(
  base: string,
  apiKey: string,
  restPath: string,
  call: object,
  extra: Record<string, string>,
): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const rest = (await (await fetch(`${base}${restPath}`, { headers })).json()) as { data: { id: string }[] };
  const response = await fetch(`${base}/api/mcp`, {
    method: "POST",
    headers: {
      ...headers,
      ...extra,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(call),
  });
  const { result } = (await response.json()) as { result: { isError?: boolean; structuredContent: typeof rest } };
  const ids = (page: typeof rest) => page.data.map((paper) => paper.id).join(",");
  if (result.isError || rest.data.length === 0 || ids(result.structuredContent) !== ids(rest)) {
    throw new Error("MCP and REST answered the title search differently");
  }
}
