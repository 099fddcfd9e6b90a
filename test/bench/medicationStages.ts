/**
 * Where a cached medication lookup spends its CPU, stage by stage, in-process (no wrk, no sockets):
 * each stage runs N times after a warm-up and prints CPU µs (this process) and wall µs per call.
 *   bun test/bench/medicationStages.ts [N] [stage regex]
 * Stages: the two PostgreSQL cache reads, the verb, response validation and serialization, and the
 * whole request through the app (auth, rate limit, routing, hooks) next to the trivial GET /account.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { createApp } from "../../api/app";
import { createAccount } from "../../shared/auth/accounts";
import { contextFor } from "../../shared/context/ctx";
import { labelKey, medicationKey } from "../../shared/jobs/payloads/referenceQueries";
import { findCachedReference, findCachedReferenceVersions } from "../../shared/references/cacheRepository";
import {
  classifyMedicationQuery,
  labelQueryFor,
  lookupMedication,
  lookupMedicationJson,
} from "../../shared/references/medication";
import { MedicationReferenceSchema, type RxnormPart } from "../../shared/references/schemas";
import { startWorkers } from "../../workers/runner";
import { startUpstreamFixtures } from "../helpers/upstream";
import { UNLIMITED_PLANS } from "./plans";
import { benchWorld } from "./world";

const N = Number(Bun.argv[2] ?? 2000);
/** Only the stages whose name matches (e.g. to profile one with --cpu-prof-md). */
const only = Bun.argv[3] ? new RegExp(Bun.argv[3]) : undefined;
const upstream = startUpstreamFixtures();
const world = await benchWorld();
const deps = {
  ...world.deps,
  plans: UNLIMITED_PLANS,
  env: { ...world.env, RXNAV_BASE_URL: upstream.rxnavUrl, OPENFDA_BASE_URL: upstream.openFdaUrl },
};
const workers = await startWorkers(deps, { queues: ["rxnav", "openfda"] });
try {
  const app = createApp(deps);
  const { apiKey } = await createAccount(
    { sql: deps.sql, redis: deps.redis, redisPrefix: world.env.REDIS_PREFIX },
    { plan: "pro" },
  );
  const ctx = contextFor(deps, "req_stages");
  const reference = await lookupMedication(ctx, { name: "aspirin" });
  const query = classifyMedicationQuery("aspirin");
  const labelQuery = labelQueryFor(query, reference.rxnorm as RxnormPart);
  const check = TypeCompiler.Compile(MedicationReferenceSchema);
  const body = JSON.stringify(reference);
  const request = async (path: string) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${apiKey}` } }),
    );
    if (response.status !== 200) throw new Error(`${path} → ${response.status} ${await response.text()}`);
    return response;
  };

  const ten = (make: () => Promise<Response>) => Array.from({ length: 10 }, async () => (await make()).text());
  const stages: [string, () => unknown][] = [
    ["PG read 1 (rxnav row, JSONB parsed)", () => findCachedReference(deps.sql, "rxnav", medicationKey(query))],
    ["PG read 2 (openfda row, JSONB parsed)", () => findCachedReference(deps.sql, "openfda", labelKey(labelQuery))],
    [
      "PG version check (2 short rows)",
      () =>
        findCachedReferenceVersions(deps.sql, [
          { source: "rxnav", key: medicationKey(query) },
          { source: "openfda", key: labelKey(labelQuery) },
        ]),
    ],
    ["label key (sha256)", () => labelKey(labelQuery)],
    ["lookupMedicationJson (verb, REST)", () => lookupMedicationJson(ctx, { name: "aspirin" })],
    ["lookupMedication (verb, object)", () => lookupMedication(ctx, { name: "aspirin" })],
    ["response check (TypeCompiler)", () => check.Check(reference)],
    ["JSON.stringify body", () => JSON.stringify(reference)],
    ["JSON.parse body", () => JSON.parse(body)],
    ["GET /api/v1/account via app.handle", async () => (await request("/api/v1/account")).text()],
    [
      "GET /api/v1/health/medication via app.handle",
      async () => (await request("/api/v1/health/medication?name=aspirin")).text(),
    ],
    // As under wrk -c10: ten requests in flight at once (per-call figures are per request).
    ["GET /api/v1/account via app.handle, 10 at once", () => Promise.all(ten(() => request("/api/v1/account")))],
    [
      "GET /api/v1/health/medication via app.handle, 10 at once",
      () => Promise.all(ten(() => request("/api/v1/health/medication?name=aspirin"))),
    ],
  ];
  console.log(`\nMedication stages, ${N} calls each after ${N / 4} warm-up, ${body.length} byte body\n`);
  console.log("| stage | CPU µs/call | wall µs/call |");
  console.log("|---|---|---|");
  for (const [name, run] of stages) {
    if (only && !only.test(name)) continue;
    for (let i = 0; i < N / 4; i++) await run();
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < N; i++) await run();
    const calls = name.endsWith("10 at once") ? N * 10 : N;
    const wall = ((performance.now() - start) * 1000) / calls;
    const used = process.cpuUsage(cpu);
    console.log(`| ${name} | ${((used.user + used.system) / calls).toFixed(1)} | ${wall.toFixed(1)} |`);
  }
} finally {
  await workers.close();
  await upstream.stop();
  await world.cleanup();
}
