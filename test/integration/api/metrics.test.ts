import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { QueueEvents } from "bullmq";
import { createApp } from "../../../api/app";
import { stopProcess } from "../../../scripts/lib/processes";
import type { Deps } from "../../../shared/context/deps";
import { PLANS, type PlanTable } from "../../../shared/core/plans";
import { createRedis, redisReady } from "../../../shared/core/redis";
import { QUEUES } from "../../../shared/jobs/catalog";
import { closeQueues, createQueues, enqueue } from "../../../shared/jobs/queue";
import { createJobMetricsRecorder, JOB_DURATION_BUCKETS, JOB_STATES } from "../../../shared/metrics/jobs";
import { startWorkers, type Workers } from "../../../workers/runner";
import { sseEvents } from "../../helpers/chat";
import { privateRedis } from "../../helpers/faults";
import { createTracker, healthAccount } from "../../helpers/health";
import { call, createTestAccount, errorOf, type TestApp } from "../../helpers/http";
import { processEnvFor, queueEventsFor, testDeps } from "../../helpers/infra";
import { checkHistograms, type Exposition, parseExposition, samplesOf, sumOf } from "../../helpers/prometheus";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "../../helpers/upstream";

const TOKEN = "metrics-token-for-tests-0123456789";
const TRACKER_ROUTE = "/api/v1/health/trackers/:trackerId";
/** One request an hour on the free plan: the second is a 429. */
const TINY: PlanTable = { ...PLANS, free: { ...PLANS.free, requestsPerHour: 1 } };

let deps: Deps;
let app: TestApp;
let scraper: TestApp;
let key: string;
let workers: Workers;
let events: QueueEvents;
let upstream: UpstreamFixtures;

beforeAll(async () => {
  upstream = startUpstreamFixtures();
  deps = withUpstream(await testDeps(), upstream);
  app = createApp(deps);
  scraper = createApp({ ...deps, env: { ...deps.env, METRICS_TOKEN: TOKEN } });
  key = (await healthAccount(deps, app)).apiKey;
  workers = await startWorkers(deps, { queues: ["chat", "rxnav", "openfda", "maintenance", "papers"] });
  events = await queueEventsFor(deps, "maintenance");
});

afterAll(async () => {
  await events?.close();
  await workers?.close();
  await upstream?.stop();
});

async function scrape(): Promise<Exposition> {
  const response = await call(scraper, "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return parseExposition(await response.text());
}

const requests = (exposition: Exposition, labels: Record<string, string>) =>
  sumOf(exposition, "http_requests_total", labels);

/** Scrapes until `done` holds (job durations reach Redis in the workers' next flush, within a second). */
async function scrapeUntil(done: (exposition: Exposition) => boolean, attempts = 100): Promise<Exposition> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const exposition = await scrape();
    if (done(exposition)) return exposition;
    await Bun.sleep(100);
  }
  return scrape();
}

describe("GET /metrics: the exposition", () => {
  test("parses, names every family with HELP and TYPE, and every histogram is cumulative with a matching _count", async () => {
    await call(app, "/healthz");
    const response = await call(scraper, "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const exposition = parseExposition(await response.text());
    expect(Object.fromEntries(exposition.types)).toMatchObject({
      http_requests_total: "counter",
      http_request_duration_seconds: "histogram",
      chat_sse_streams_active: "gauge",
      rate_limit_rejections_total: "counter",
      queue_metrics_available: "gauge",
      queue_jobs: "gauge",
      job_duration_seconds: "histogram",
    });
    expect(checkHistograms(exposition)).toBeGreaterThan(QUEUES.length);
    expect(sumOf(exposition, "queue_metrics_available")).toBe(1);
    for (const queue of QUEUES) {
      for (const state of JOB_STATES) expect(samplesOf(exposition, "queue_jobs", { queue, state })).toHaveLength(1);
    }
  });

  test("each duration series counts exactly the requests of its method, route and status class", async () => {
    await call(app, "/nope");
    const exposition = await scrape();
    const durations = samplesOf(exposition, "http_request_duration_seconds_count");
    expect(durations.length).toBeGreaterThan(2);
    for (const { labels, value } of durations) {
      const { status_class: statusClass, ...rest } = labels;
      const counted = samplesOf(exposition, "http_requests_total", rest)
        .filter((sample) => sample.labels.status?.[0] === statusClass?.[0])
        .reduce((sum, sample) => sum + sample.value, 0);
      expect({ ...labels, count: value }).toEqual({ ...labels, count: counted });
    }
  });
});

describe("GET /metrics: HTTP requests", () => {
  test("routes are labelled by their pattern, never the raw path; unknown paths share `unmatched`", async () => {
    const tracker = await createTracker(app, key);
    const unknownId = crypto.randomUUID();
    const before = await scrape();
    for (let i = 0; i < 3; i++)
      expect((await call(app, `/api/v1/health/trackers/${tracker.id}`, { key })).status).toBe(200);
    expect((await call(app, `/api/v1/health/trackers/${unknownId}`, { key })).status).toBe(404);
    // Refused before routing (no key): the route still comes from the app's route table.
    expect((await call(app, `/api/v1/health/trackers/${tracker.id}`)).status).toBe(401);
    expect((await call(app, `/no/such/path/${unknownId}`)).status).toBe(404);
    expect(
      (await call(app, "/api/v1/account", { method: "OPTIONS", headers: { origin: "https://x.example" } })).status,
    ).toBe(204);
    const after = await scrape();

    const delta = (labels: Record<string, string>) => requests(after, labels) - requests(before, labels);
    expect(delta({ method: "GET", route: TRACKER_ROUTE, status: "200" })).toBe(3);
    expect(delta({ method: "GET", route: TRACKER_ROUTE, status: "404" })).toBe(1);
    expect(delta({ method: "GET", route: TRACKER_ROUTE, status: "401" })).toBe(1);
    expect(delta({ method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(delta({ method: "OPTIONS", route: "preflight", status: "204" })).toBe(1);
    const twoXX = { method: "GET", route: TRACKER_ROUTE, status_class: "2xx" };
    expect(
      sumOf(after, "http_request_duration_seconds_count", twoXX) -
        sumOf(before, "http_request_duration_seconds_count", twoXX),
    ).toBe(3);

    const routes = new Set(samplesOf(after, "http_requests_total").map((sample) => sample.labels.route));
    for (const route of routes) {
      expect(route === "unmatched" || route === "preflight" || route?.startsWith("/")).toBe(true);
      expect(route).not.toContain(tracker.id);
      expect(route).not.toContain(unknownId);
    }
  });

  test("a 429 on a tiny plan counts as a rate-limit rejection and as a 429 of its route", async () => {
    const tiny = await testDeps({ plans: TINY });
    const tinyApp = createApp(tiny);
    const account = await createTestAccount(tiny, "free");
    const before = await scrape();
    expect((await call(tinyApp, "/api/v1/account", { key: account.apiKey })).status).toBe(200);
    const refused = await call(tinyApp, "/api/v1/account", { key: account.apiKey });
    expect(refused.status).toBe(429);
    const after = await scrape();
    expect(sumOf(after, "rate_limit_rejections_total") - sumOf(before, "rate_limit_rejections_total")).toBe(1);
    const labels = { method: "GET", route: "/api/v1/account", status: "429" };
    expect(requests(after, labels) - requests(before, labels)).toBe(1);
  });
});

describe("GET /metrics: chat streams", () => {
  const streams = async () => sumOf(await scrape(), "chat_sse_streams_active");
  const streamTurn = () =>
    call(app, "/api/v1/health/chat", { method: "POST", key, body: { message: "Hello", stream: true } });

  test("the gauge counts a stream while it is open and drops when the turn ends", async () => {
    const before = await streams();
    const response = await streamTurn();
    expect(response.status).toBe(200);
    const reader = sseEvents(response);
    await reader.next();
    expect(await streams()).toBe(before + 1);
    expect((await reader.rest()).at(-1)?.data).toBe("[DONE]");
    expect(await streams()).toBe(before);
  });

  test("a client that disconnects mid-stream is no longer counted, while its turn goes on", async () => {
    // The turn's medication lookup waits on a stalled upstream, so only the disconnect can end the relay.
    await deps.sql`delete from reference_cache`;
    upstream.mode = "stall";
    try {
      const before = await streams();
      const response = await call(app, "/api/v1/health/chat", {
        method: "POST",
        key,
        body: { message: "adalimumab warnings", stream: true },
      });
      const reader = sseEvents(response);
      await reader.until("tool-input-available");
      expect(await streams()).toBe(before + 1);
      await reader.disconnect();
      expect(await streams()).toBe(before);
    } finally {
      upstream.mode = "normal";
    }
  });
});

describe("GET /metrics: queues and jobs", () => {
  test("queue depths are read from BullMQ at scrape time", async () => {
    // No worker runs the transcription queue here, so these jobs stay where they are put.
    const waiting = await deps.queues.transcription.add("transcription.audio", {});
    const delayed = await deps.queues.transcription.add("transcription.audio", {}, { delay: 3_600_000 });
    try {
      const exposition = await scrape();
      expect(sumOf(exposition, "queue_jobs", { queue: "transcription", state: "waiting" })).toBe(1);
      expect(sumOf(exposition, "queue_jobs", { queue: "transcription", state: "delayed" })).toBe(1);
    } finally {
      await waiting.remove();
      await delayed.remove();
    }
    const emptied = await scrape();
    expect(sumOf(emptied, "queue_jobs", { queue: "transcription", state: "waiting" })).toBe(0);
    expect(sumOf(emptied, "queue_jobs", { queue: "transcription", state: "delayed" })).toBe(0);
  });

  test("a job run by a worker reaches the cluster-wide duration histogram", async () => {
    const completed = { queue: "maintenance", outcome: "completed" };
    const before = await scrape();
    const count = (exposition: Exposition) => sumOf(exposition, "job_duration_seconds_count", completed);
    const job = await enqueue(deps.queues, "maintenance.flush-key-usage", {});
    await job.waitUntilFinished(events, 10_000);
    const after = await scrapeUntil((exposition) => count(exposition) > count(before));
    expect(count(after)).toBeGreaterThan(count(before));
    const inf = { ...completed, le: "+Inf" };
    expect(sumOf(after, "job_duration_seconds_bucket", inf)).toBe(count(after));
    expect(sumOf(after, "job_duration_seconds_sum", completed)).toBeGreaterThan(
      sumOf(before, "job_duration_seconds_sum", completed),
    );
  });

  test("a failed attempt counts under outcome=failed", async () => {
    const failed = { queue: "papers", outcome: "failed" };
    const count = (exposition: Exposition) => sumOf(exposition, "job_duration_seconds_count", failed);
    const before = await scrape();
    // An invalid payload (no producer would send it): the runner refuses it, unrecoverably.
    await deps.queues.papers.add("papers.index-batch", { records: [] }, { attempts: 1 });
    const after = await scrapeUntil((exposition) => count(exposition) > count(before));
    expect(count(after) - count(before)).toBe(1);
  });

  test("a worker process of its own (workers/main.ts) reports its jobs through Redis", async () => {
    const completed = { queue: "uploads", outcome: "completed" };
    const count = (exposition: Exposition) => sumOf(exposition, "job_duration_seconds_count", completed);
    const before = count(await scrape());
    const child = Bun.spawn([process.execPath, "workers/main.ts"], {
      env: { ...processEnvFor(deps.env), WORKER_QUEUES: "uploads", LOG_LEVEL: "silent" },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      // A file that does not exist: the processor completes at once with status "missing".
      await enqueue(deps.queues, "uploads.process", { fileId: crypto.randomUUID() });
      // The child boots first (index settings, workers), then flushes within a second of the job.
      const after = await scrapeUntil((exposition) => count(exposition) > before, 400);
      expect(count(after) - before).toBe(1);
    } finally {
      await stopProcess(child);
    }
  }, 60_000);

  test("recorders in several processes add up in Redis, bucket by bucket", async () => {
    const labels = { queue: "conditions", outcome: "completed" };
    const before = await scrape();
    const processes = [
      createJobMetricsRecorder(deps.redis, deps.env.REDIS_PREFIX),
      createJobMetricsRecorder(deps.redis, deps.env.REDIS_PREFIX),
    ];
    processes[0]?.record("conditions", "completed", 0.02);
    processes[1]?.record("conditions", "completed", 0.02);
    processes[1]?.record("conditions", "completed", 1000);
    await Promise.all(processes.map((recorder) => recorder.close()));
    const after = await scrape();
    const bucket = (exposition: Exposition, le: string) =>
      sumOf(exposition, "job_duration_seconds_bucket", { ...labels, le });
    expect(JOB_DURATION_BUCKETS).toContain(0.025);
    expect(bucket(after, "0.01") - bucket(before, "0.01")).toBe(0);
    expect(bucket(after, "0.025") - bucket(before, "0.025")).toBe(2);
    expect(bucket(after, "300") - bucket(before, "300")).toBe(2);
    expect(bucket(after, "+Inf") - bucket(before, "+Inf")).toBe(3);
  });
});

describe("GET /metrics: Redis away", () => {
  test("the scrape still answers: the queue families are left out and queue_metrics_available is 0", async () => {
    const server = await privateRedis();
    const redis = createRedis(server.url, "request");
    const queues = createQueues(redis, deps.env.REDIS_PREFIX);
    try {
      await redisReady(redis);
      const onPrivate = createApp({ ...deps, redis, queues, env: { ...deps.env, METRICS_TOKEN: TOKEN } });
      const scrapeOnPrivate = async () => {
        const response = await call(onPrivate, "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(response.status).toBe(200);
        return parseExposition(await response.text());
      };
      const up = await scrapeOnPrivate();
      expect(sumOf(up, "queue_metrics_available")).toBe(1);
      expect(up.types.get("queue_jobs")).toBe("gauge");
      await server.stop();
      const down = await scrapeOnPrivate();
      expect(sumOf(down, "queue_metrics_available")).toBe(0);
      expect(down.types.has("queue_jobs")).toBe(false);
      expect(down.types.has("job_duration_seconds")).toBe(false);
      expect(down.types.get("http_requests_total")).toBe("counter");
    } finally {
      await closeQueues(queues).catch(() => {});
      redis.disconnect();
      await server.destroy();
    }
  });
});

describe("GET /metrics: who may read it", () => {
  test("with METRICS_TOKEN: the bearer token only", async () => {
    expect((await call(scraper, "/metrics")).status).toBe(401);
    const wrong = await call(scraper, "/metrics", { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    expect((await errorOf(wrong)).code).toBe("UNAUTHORIZED");
    // An API key is not a metrics token.
    expect((await call(scraper, "/metrics", { key })).status).toBe(401);
  });

  test("without METRICS_TOKEN: direct loopback clients only, not requests relayed by a proxy", async () => {
    const refused = await call(app, "/metrics");
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe("FORBIDDEN");
    const server = createApp(deps).listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.server?.port}/metrics`;
      const direct = await fetch(url);
      expect(direct.status).toBe(200);
      expect(parseExposition(await direct.text()).types.get("http_requests_total")).toBe("counter");
      expect((await fetch(url, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(403);
      expect((await fetch(url, { headers: { forwarded: "for=203.0.113.9" } })).status).toBe(403);
    } finally {
      await server.stop();
    }
  });
});
