import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ClusterNode } from "ioredis";
import type { RedisTarget } from "./redis";

/**
 * Every environment variable the service reads, in one place. Nothing else touches
 * `process.env`: services receive what they need as arguments, so tests never depend
 * on the environment. The README's "Configuration" table mirrors this schema.
 */
export const EnvSchema = T.Object({
  NODE_ENV: T.Union([T.Literal("development"), T.Literal("production"), T.Literal("test")], {
    default: "development",
  }),
  HOST: T.String({ default: "127.0.0.1", description: "Interface the API listens on." }),
  PORT: T.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  PUBLIC_URL: T.Optional(T.String({ description: "Base URL clients use; defaults to http://HOST:PORT." })),
  /**
   * Host names /api/mcp answers to besides PUBLIC_URL's (and loopback in development or when
   * PUBLIC_URL is loopback), comma-separated, any port: e.g. the name a proxy forwards as `Host`.
   * Anything else is refused (DNS-rebinding protection, api/plugins/hostGuard.ts).
   */
  ALLOWED_HOSTS: T.Optional(T.String({ pattern: "^[A-Za-z0-9.:\\[\\], _-]*$" })),
  DATABASE_URL: T.Optional(T.String({ description: "PostgreSQL URL; unset → local default." })),
  REDIS_URL: T.Optional(T.String({ description: "Redis URL; unset → local default." })),
  /**
   * Seed nodes of a Redis Cluster (`host:port,host:port`): every Redis client becomes a cluster
   * client and REDIS_URL is not used (docs/operations.md, "Running on Redis Cluster").
   */
  REDIS_CLUSTER_NODES: T.Optional(
    T.String({ pattern: "^[A-Za-z0-9.\\-]+:[0-9]{1,5}(, *[A-Za-z0-9.\\-]+:[0-9]{1,5})*$" }),
  ),
  MEILI_URL: T.Optional(T.String({ description: "Meilisearch URL; unset → launch the bundled server." })),
  MEILI_MASTER_KEY: T.Optional(T.String()),
  MEILI_PORT: T.Integer({
    minimum: 1,
    maximum: 65535,
    default: 7700,
    description: "Loopback port of the bundled Meilisearch when MEILI_URL is unset.",
  }),
  /** Prefix for every Redis key and BullMQ queue, so several deployments or test runs can share one Redis. */
  REDIS_PREFIX: T.String({ default: "phs", pattern: "^[A-Za-z0-9_-]{1,32}$" }),
  /** Prefix for every Meilisearch index uid, for the same reason. */
  MEILI_INDEX_PREFIX: T.String({ default: "", pattern: "^[A-Za-z0-9_-]{0,32}$" }),
  DATA_DIR: T.String({ default: ".data" }),
  LOG_LEVEL: T.Union(
    [T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error"), T.Literal("silent")],
    { default: "info" },
  ),
  /** Bearer token for GET /metrics; unset → /metrics answers direct loopback clients only. */
  METRICS_TOKEN: T.Optional(T.String({ minLength: 16 })),
  RXNAV_BASE_URL: T.String({ default: "https://rxnav.nlm.nih.gov/REST", description: "RxNav REST API base." }),
  OPENFDA_BASE_URL: T.String({ default: "https://api.fda.gov", description: "openFDA API base." }),
  /** Optional: raises openFDA's limits (240 requests/minute, 120,000/day per key instead of 1,000/day per IP). */
  OPENFDA_API_KEY: T.Optional(T.String()),
  /** Bytes of paper-search answers each process keeps (LRU); 0 turns the answer cache off. */
  SEARCH_CACHE_MAX_BYTES: T.Integer({ minimum: 0, maximum: 8 * 1024 ** 3, default: 64 * 1024 ** 2 }),
  /** The longest a cached search answer is served; a backstop only: index changes clear it at once. */
  SEARCH_CACHE_TTL_MS: T.Integer({ minimum: 1000, maximum: 86_400_000, default: 300_000 }),
  /**
   * How long cached answers stay usable without the index version confirmed from Redis (read a few
   * times per period); past it every search goes to Meilisearch until Redis answers again.
   */
  SEARCH_CACHE_FRESH_MS: T.Integer({ minimum: 200, maximum: 60_000, default: 2000 }),
  /** One upstream HTTP call's time limit; a timeout counts as a transient failure and is retried. */
  UPSTREAM_TIMEOUT_MS: T.Integer({ minimum: 50, maximum: 120_000, default: 8000 }),
  /** How long a request waits for a queued reference lookup before answering from the stale cache or 502. */
  REFERENCE_WAIT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 20_000 }),
  /** How long a cached reference answer is served without asking the upstream again. */
  REFERENCE_CACHE_TTL_HOURS: T.Number({ minimum: 0, maximum: 24 * 365, default: 168 }),
  /** How long a lab report import waits for its extraction job before answering 202; 0 never waits. */
  LAB_IMPORT_WAIT_MS: T.Integer({ minimum: 0, maximum: 60_000, default: 5000 }),
  /** How long a health-record import waits for its job before answering 202; 0 never waits. */
  RECORD_IMPORT_WAIT_MS: T.Integer({ minimum: 0, maximum: 60_000, default: 10_000 }),
  /** Largest health record (FHIR Bundle or C-CDA) an import reads; a larger upload is 413. */
  RECORD_IMPORT_MAX_BYTES: T.Integer({ minimum: 1024, maximum: 1_073_741_824, default: 10 * 1024 * 1024 }),
  /** The longest a chat request waits for its turn to end before answering with an error. */
  CHAT_TURN_TIMEOUT_MS: T.Integer({ minimum: 1000, maximum: 3_600_000, default: 180_000 }),
  /**
   * After SIGTERM the API keeps serving this long, answering `Connection: close`, before it stops: a
   * request already on its way over a kept-alive connection is answered instead of reset.
   */
  SHUTDOWN_DRAIN_MS: T.Integer({ minimum: 0, maximum: 30_000, default: 500 }),
  /** How often an idle chat stream gets an SSE comment, so proxies keep it open during long tool calls. */
  CHAT_KEEPALIVE_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 15_000 }),
  /** Largest upload (lab reports, photos); a larger declared size is 413 at presign. */
  UPLOAD_MAX_BYTES: T.Integer({ minimum: 1024, maximum: 1_073_741_824, default: 20 * 1024 * 1024 }),
  /** How long a presigned upload URL is valid; unused pending uploads are deleted after it. */
  UPLOAD_URL_TTL_SECONDS: T.Integer({ minimum: 10, maximum: 86_400, default: 900 }),
  /** HMAC secret of the API's own upload URLs; unset → generated into DATA_DIR/upload-signing-key. */
  UPLOAD_SIGNING_SECRET: T.Optional(T.String({ minLength: 32 })),
  /** S3-compatible storage for uploads (AWS S3, R2, MinIO); unset → files under DATA_DIR/uploads. */
  S3_BUCKET: T.Optional(T.String()),
  S3_ENDPOINT: T.Optional(T.String()),
  S3_REGION: T.Optional(T.String()),
  S3_ACCESS_KEY_ID: T.Optional(T.String()),
  S3_SECRET_ACCESS_KEY: T.Optional(T.String()),
  /** A website session ends after this long without a request (sliding)… */
  WEB_SESSION_IDLE_SECONDS: T.Integer({ minimum: 1, maximum: 31_536_000, default: 86_400 }),
  /** …and after this long in any case (absolute), however active. */
  WEB_SESSION_MAX_SECONDS: T.Integer({ minimum: 1, maximum: 31_536_000, default: 2_592_000 }),
  /**
   * The session cookie's Secure flag. Browsers accept Secure cookies on http://localhost and
   * http://127.0.0.1, so only a plain-HTTP deployment on another host needs `false`.
   */
  WEB_COOKIE_SECURE: T.Boolean({ default: true }),
  /**
   * Reverse proxies whose `X-Forwarded-For` names the client, comma-separated addresses or CIDR
   * ranges (e.g. `127.0.0.1,10.0.0.0/8`). Unset: the socket's peer is the client and the header is
   * ignored. The client is the right-most forwarded address that is not one of these proxies
   * (api/plugins/clientAddress.ts); the throttles below count per that address.
   */
  TRUSTED_PROXIES: T.String({ default: "" }),
  /** Sign-ups per client address per hour. */
  SIGNUPS_PER_ADDRESS_PER_HOUR: T.Integer({ minimum: 1, maximum: 100_000, default: 10 }),
  /** OAuth dynamic client registrations per client address per hour. */
  OAUTH_REGISTRATIONS_PER_ADDRESS_PER_HOUR: T.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
  /**
   * Requests to the public share-link paths (`/share/…`, valid links or not) per client address
   * per minute: a link's page reads the whole record, so an address cannot make it do so in a loop.
   */
  SHARE_LINK_REQUESTS_PER_ADDRESS_PER_MINUTE: T.Integer({ minimum: 1, maximum: 100_000, default: 60 }),
  /**
   * The authorization server's outbound requests (client ID metadata documents, a client's
   * jwks_uri; shared/core/outboundFetch.ts): one request's time limit, body included.
   */
  OAUTH_FETCH_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 30_000, default: 5000 }),
  /** PEM file of further CA certificates those requests trust besides the system's (e.g. a test CA). */
  OAUTH_FETCH_CA_FILE: T.Optional(T.String({ minLength: 1 })),
  /**
   * Lets those requests reach loopback addresses (127.0.0.0/8, ::1), for a client's metadata served
   * on this machine in development and tests; refused with NODE_ENV=production.
   */
  OAUTH_FETCH_ALLOW_LOOPBACK: T.Boolean({ default: false }),
  /**
   * Worker processes `bun run workers` (and `bun run start`) runs, each with every setting below:
   * one process's event loop uses one core, so a chat burst's turns (CPU-bound with the offline
   * model) spread over several where cores are free (workers/main.ts).
   */
  WORKER_PROCESSES: T.Integer({ minimum: 1, maximum: 64, default: 1 }),
  /** Overrides every queue's concurrency (per worker process); unset → the per-queue defaults in jobs.ts. */
  WORKER_CONCURRENCY: T.Optional(T.Integer({ minimum: 1, maximum: 512 })),
  /**
   * The queues this worker process runs, comma-separated (e.g. `chat` or `papers,conditions`), so
   * each queue can be scaled with its own processes; unset → every queue. Names are checked against
   * the catalog when the workers start (shared/jobs/catalog.ts `selectQueues`).
   */
  WORKER_QUEUES: T.Optional(T.String({ pattern: "^[a-z, ]+$" })),
  /*
   * Chat model providers. A provider is switched on by its *_MODELS list alone (format in
   * shared/chat/providers/modelList.ts), so a key exported in a shell for other tools never turns a
   * paid provider on. Base URLs have defaults here because the provider SDKs would otherwise fall
   * back to reading the process environment themselves.
   */
  OPENAI_API_KEY: T.Optional(T.String()),
  OPENAI_BASE_URL: T.String({ default: "https://api.openai.com/v1", description: "OpenAI Responses API base." }),
  OPENAI_MODELS: T.Optional(T.String({ description: "OpenAI models the chat may use; unset → OpenAI is off." })),
  ANTHROPIC_API_KEY: T.Optional(T.String()),
  ANTHROPIC_BASE_URL: T.String({
    default: "https://api.anthropic.com/v1",
    description: "Anthropic Messages API base.",
  }),
  ANTHROPIC_MODELS: T.Optional(T.String({ description: "Anthropic models the chat may use; unset → off." })),
  OPENAI_COMPATIBLE_BASE_URL: T.Optional(
    T.String({ description: "Chat-completions server (Ollama, vLLM, llama.cpp), e.g. http://127.0.0.1:11434/v1." }),
  ),
  /** Optional: local servers usually need none. */
  OPENAI_COMPATIBLE_API_KEY: T.Optional(T.String()),
  OPENAI_COMPATIBLE_MODELS: T.Optional(T.String({ description: "Models served there; unset → off." })),
  /** The default health model: one id for every plan, and/or `plan=id` pairs, comma-separated. */
  CHAT_DEFAULT_MODEL: T.Optional(T.String()),
  /*
   * Speech to text (POST /api/v1/transcribe). A provider without its key answers 503 naming the
   * missing variable; base URLs are settings so tests (and proxies) can stand in for the providers.
   */
  ELEVENLABS_API_KEY: T.Optional(T.String()),
  ELEVENLABS_BASE_URL: T.String({ default: "https://api.elevenlabs.io", description: "ElevenLabs API base." }),
  ELEVENLABS_STT_MODEL: T.String({ default: "scribe_v1", description: "ElevenLabs speech-to-text model_id." }),
  ADDIS_API_KEY: T.Optional(T.String()),
  ADDIS_BASE_URL: T.String({ default: "https://api.addisassistant.com", description: "Addis AI API base." }),
  /** One provider call's time limit; a timeout counts as a transient failure and is retried. */
  TRANSCRIPTION_TIMEOUT_MS: T.Integer({ minimum: 50, maximum: 600_000, default: 60_000 }),
  /** How long a request waits for its queued transcription (all attempts) before answering 502. */
  TRANSCRIPTION_WAIT_MS: T.Integer({ minimum: 100, maximum: 900_000, default: 150_000 }),
});

export type Env = Static<typeof EnvSchema>;

export const LOCAL_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/papers_health";
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379/0";

/** Parses an environment record (defaults applied, numbers converted); throws one line per problem. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((name) => source[name] !== undefined && source[name] !== "")
      .map((name) => [name, source[name]]),
  );
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, known));
  const problems = [...Value.Errors(EnvSchema, converted)].map((p) => `${p.path.slice(1) || "(env)"}: ${p.message}`);
  // A production server never fetches from its own machine on a client's say-so (SSRF).
  const parsed = converted as Partial<Env>;
  if (parsed.NODE_ENV === "production" && parsed.OAUTH_FETCH_ALLOW_LOOPBACK === true) {
    problems.push("OAUTH_FETCH_ALLOW_LOOPBACK: not allowed with NODE_ENV=production");
  }
  if (problems.length > 0) throw new Error(`Invalid environment:\n  ${problems.join("\n  ")}`);
  return converted as Env;
}

let cached: Env | undefined;

/** The process environment, parsed once at boot. Entry points call this; libraries take `Env` as an argument. */
export function loadEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/**
 * The environment a child process of this one starts with: all of this process's variables (not
 * just the parsed settings: PATH, HOME and the like too), with `overrides` on top.
 */
export function childEnvironment(overrides: Record<string, string>): Record<string, string | undefined> {
  return { ...process.env, ...overrides };
}

export function databaseUrl(env: Env): string {
  return env.DATABASE_URL ?? LOCAL_DATABASE_URL;
}

export function redisUrl(env: Env): string {
  return env.REDIS_URL ?? LOCAL_REDIS_URL;
}

/** Parses REDIS_CLUSTER_NODES (`host:port,host:port`). */
function parseClusterNodes(list: string): ClusterNode[] {
  return list
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const at = item.lastIndexOf(":");
      return { host: item.slice(0, at), port: Number(item.slice(at + 1)) };
    });
}

/** Where this deployment's Redis is: the cluster's seeds when REDIS_CLUSTER_NODES is set, else one server's URL. */
export function redisTarget(env: Env): RedisTarget {
  return env.REDIS_CLUSTER_NODES ? { cluster: parseClusterNodes(env.REDIS_CLUSTER_NODES) } : redisUrl(env);
}

/** Where this machine reaches the API directly (the wildcard address is reached on loopback). */
export function listenUrl(env: Env): string {
  return `http://${env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST}:${env.PORT}`;
}

/** The base URL clients use: PUBLIC_URL when set (e.g. behind a proxy), else the listen URL. */
export function publicUrl(env: Env): string {
  return (env.PUBLIC_URL ?? listenUrl(env)).replace(/\/$/, "");
}
