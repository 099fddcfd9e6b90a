import { Counter, Gauge, Histogram, Registry } from "./registry";

/**
 * The metrics a process keeps in memory, declared once (the README's "Metrics" table mirrors this
 * file and shared/jobMetrics.ts). One registry per process: these count what this process saw, so
 * Prometheus sums them across API processes.
 */
export const processMetrics = new Registry();

/** Sub-millisecond to 10 s: most routes answer in about a millisecond, searches and chat waits take longer. */
export const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = processMetrics.register(
  new Counter(
    "http_requests_total",
    "HTTP requests answered, by method, route pattern (unmatched: no route) and status code.",
    ["method", "route", "status"],
  ),
);

export const httpRequestDuration = processMetrics.register(
  new Histogram(
    "http_request_duration_seconds",
    "Time from the request's arrival to its response (for streams: to the response headers), by method, route pattern and status class.",
    ["method", "route", "status_class"],
    HTTP_DURATION_BUCKETS,
  ),
);

export const chatStreamsActive = processMetrics.register(
  new Gauge(
    "chat_sse_streams_active",
    "Chat SSE relays open in this process (a client connected to a turn's stream).",
    [],
  ),
);

export const rateLimitRejections = processMetrics.register(
  new Counter(
    "rate_limit_rejections_total",
    "Requests refused with 429 because the account's hourly request limit was used up (API keys and website sessions).",
    [],
  ),
);

export const searchCacheEvents = processMetrics.register(
  new Counter(
    "search_cache_events_total",
    "Paper searches by how the answer cache served them (hit, miss, bypass: the cache could not confirm it is current), and answers evicted to stay within SEARCH_CACHE_MAX_BYTES (eviction).",
    ["event"],
  ),
);

export const searchCacheBytes = processMetrics.register(
  new Gauge("search_cache_bytes", "Bytes of search answers this process holds in its answer cache.", []),
);

// Every series that can be known in advance exists from the start, so rate() sees its first increment.
chatStreamsActive.labels();
rateLimitRejections.labels();
for (const event of ["hit", "miss", "bypass", "eviction"]) searchCacheEvents.labels(event);
searchCacheBytes.labels();
