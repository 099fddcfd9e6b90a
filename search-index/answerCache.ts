import type { Cluster, Redis as RedisServer } from "ioredis";

/**
 * Search answers kept in this process, exact about freshness. Every answer is stored under its
 * index's version, a counter in Redis that a worker bumps (and announces on a channel) each time a
 * write task on the index has succeeded in Meilisearch (`announceIndexChange`). So once the
 * announcement has arrived, no answer computed before the write is served again: the next search
 * misses and asks Meilisearch. Answers computed while the version changed are not stored at all.
 *
 * A process that cannot hear announcements must not trust its answers: the version is also read
 * from Redis every `confirmEveryMs`, and when it has not been confirmed for `freshForMs` (Redis
 * away, the subscription lost) every search bypasses the cache until it is. The TTL is a backstop
 * only. Entries are bounded by their bytes (LRU); concurrent identical searches share one call.
 *
 * An answer is kept the second time its search is asked (a "doorkeeper": the first time only the
 * key is noted). Traffic that never repeats then costs a Set lookup instead of filling the cache
 * with answers nobody asks for again, which the garbage collector would have to trace.
 */
export interface SearchCacheSettings {
  maxBytes: number;
  ttlMs: number;
  freshForMs: number;
}

export type CacheOutcome = "hit" | "miss" | "bypass";
/** What the cache reports to its owner's metrics: how each search was served, and each eviction. */
export type CacheEvent = CacheOutcome | "eviction";

/** A connection to one Redis server or a Redis Cluster. */
export type Redis = RedisServer | Cluster;

/**
 * What the cache needs from the process: connections, key prefix, settings and metrics come in as
 * arguments, so this layer depends on nothing of the service's own.
 */
export interface SearchCacheOptions {
  /** Reads and writes the index versions; the process's fail-fast connection. */
  redis: Redis;
  /**
   * Opens the connection announcements are heard on, once, at the first search. Not `redis`: a
   * subscribed connection runs no other command.
   */
  subscriber: () => Redis;
  /** The deployment's Redis key prefix. */
  prefix: string;
  settings: SearchCacheSettings;
  /** Every search (hit, miss, bypass) and eviction, for the process's counters. */
  onEvent?: (event: CacheEvent) => void;
  /** The bytes of answers held, after each change. */
  onBytes?: (bytes: number) => void;
}

interface Entry<V> {
  value: V;
  bytes: number;
  storedAt: number;
}

interface IndexState {
  version: string | null;
  confirmedAt: number;
  /** When the last announcement arrived: a read of the version sent before it may be older. */
  heardAt: number;
}

/** A search answer with how it was served (for the `X-Search-Cache` header). */
export type Served<V> = V & { cache: CacheOutcome };

const KEY_OVERHEAD_BYTES = 64;
/** Keys the doorkeeper remembers before it starts over (a few MB of strings at most). */
const DOORKEEPER_KEYS = 50_000;

export function indexVersionKey(prefix: string, indexUid: string): string {
  // One tag for all indexes: the versions are read together (MGET).
  return `${prefix}:search-version:{search}:${indexUid}`;
}

/**
 * A classic pub/sub channel: every process hears every index change, which is what a broadcast
 * needs (a cluster forwards it to all nodes), and it carries one message per ingest batch. A missed
 * message costs nothing but the bound on unconfirmed versions.
 */
export function indexChangeChannel(prefix: string): string {
  return `${prefix}:search-changed`;
}

/**
 * Bumps an index's version and tells every process (their next search of it misses). Called once a
 * write to the index has succeeded in Meilisearch.
 */
export async function announceIndexChange(redis: Redis, prefix: string, indexUid: string): Promise<void> {
  const version = await redis.incr(indexVersionKey(prefix, indexUid));
  await redis.publish(indexChangeChannel(prefix), `${indexUid} ${version}`);
}

export function createSearchCache(options: SearchCacheOptions) {
  const { redis, prefix, settings, onEvent = () => {}, onBytes = () => {} } = options;
  const entries = new Map<string, Entry<unknown>>();
  const pending = new Map<string, Promise<unknown>>();
  const indexes = new Map<string, IndexState>();
  /** Keys asked once since the doorkeeper was last emptied. */
  let askedOnce = new Set<string>();
  let bytes = 0;
  let subscriber: Redis | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const confirmEveryMs = Math.max(50, Math.floor(settings.freshForMs / 3));

  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
  };
  const clearIndex = (uid: string) => {
    const head = `${uid}\n`;
    for (const key of entries.keys()) if (key.startsWith(head)) drop(key);
    onBytes(bytes);
  };
  const adopt = (state: IndexState, uid: string, version: string) => {
    if (state.version === version) return;
    state.version = version;
    clearIndex(uid);
  };
  /** Reads every known index's version; what it read confirms the cache for `freshForMs`. */
  const confirm = async () => {
    const uids = [...indexes.keys()];
    if (uids.length === 0) return;
    const sentAt = Date.now();
    const versions = await redis.mget(...uids.map((uid) => indexVersionKey(prefix, uid))).catch(() => undefined);
    if (!versions) return;
    uids.forEach((uid, i) => {
      const state = indexes.get(uid);
      // A read sent before an announcement arrived may predate it: the next read decides.
      if (!state || sentAt < state.heardAt) return;
      // Any difference counts, a lower version too (Redis lost its data): the held answers go.
      adopt(state, uid, versions[i] ?? "0");
      state.confirmedAt = sentAt;
    });
  };
  const start = () => {
    subscriber = options.subscriber();
    const channel = indexChangeChannel(prefix);
    void subscriber.subscribe(channel).catch(() => {});
    subscriber.on("message", (from: string, message: string) => {
      if (from !== channel) return;
      const [uid = "", version = ""] = message.split(" ");
      // An announcement proves this change, not that none was missed: confirmedAt stays the read's.
      const state = indexes.get(uid);
      if (!state) return;
      state.heardAt = Date.now();
      // Announcements from two workers may cross: only a newer version is taken from one.
      if (state.version === null || Number(version) > Number(state.version)) adopt(state, uid, version);
    });
    timer = setInterval(() => void confirm(), confirmEveryMs);
    timer.unref?.();
  };
  const admitted = (key: string): boolean => {
    if (askedOnce.delete(key)) return true;
    if (askedOnce.size >= DOORKEEPER_KEYS) askedOnce = new Set();
    askedOnce.add(key);
    return false;
  };
  const usableVersion = (uid: string): string | undefined => {
    let state = indexes.get(uid);
    if (!state) {
      state = { version: null, confirmedAt: 0, heardAt: 0 };
      indexes.set(uid, state);
      if (!subscriber) start();
      void confirm();
    }
    if (state.version === null || Date.now() - state.confirmedAt > settings.freshForMs) return undefined;
    return state.version;
  };
  const store = (key: string, value: object, valueBytes: number) => {
    const size = valueBytes + key.length + KEY_OVERHEAD_BYTES;
    if (size > settings.maxBytes) return;
    entries.set(key, { value, bytes: size, storedAt: Date.now() });
    bytes += size;
    while (bytes > settings.maxBytes) {
      const oldest = entries.keys().next().value as string;
      drop(oldest);
      onEvent("eviction");
    }
    onBytes(bytes);
  };

  return {
    /**
     * The answer to `query` on index `uid`: from the cache when an answer of the index's current,
     * confirmed version is held; else `compute`'s, shared with identical searches in flight.
     */
    async answer<V extends object>(
      uid: string,
      query: string,
      compute: () => Promise<V>,
      sizeOf: (value: V) => number,
      /** The value as kept: e.g. its bytes copied out of the larger buffer they are a view of. */
      keep: (value: V) => V = (value) => value,
    ): Promise<Served<V>> {
      if (settings.maxBytes <= 0) return { ...(await compute()), cache: "bypass" };
      const version = usableVersion(uid);
      if (version === undefined) {
        onEvent("bypass");
        return { ...(await compute()), cache: "bypass" };
      }
      const key = `${uid}\n${version}\n${query}`;
      const entry = entries.get(key) as Entry<V> | undefined;
      if (entry && Date.now() - entry.storedAt <= settings.ttlMs) {
        // Most recently used last: the Map's order is the eviction order.
        entries.delete(key);
        entries.set(key, entry);
        onEvent("hit");
        return { ...entry.value, cache: "hit" };
      }
      if (entry) drop(key);
      onEvent("miss");
      let running = pending.get(key) as Promise<V> | undefined;
      if (!running) {
        running = compute().then((value) => {
          // Stored only if no change was heard meanwhile (the answer may predate it), and only for a
          // search asked before.
          if (indexes.get(uid)?.version === version && admitted(key)) store(key, keep(value), sizeOf(value));
          return value;
        });
        const shared = running.finally(() => pending.delete(key));
        pending.set(key, shared);
        running = shared;
      }
      return { ...(await running), cache: "miss" };
    },
    /** What the cache holds (tests, the bench). */
    stats: () => ({ entries: entries.size, bytes }),
    async close(): Promise<void> {
      if (timer) clearInterval(timer);
      subscriber?.disconnect();
      entries.clear();
      pending.clear();
      bytes = 0;
    },
  };
}

export type SearchCache = ReturnType<typeof createSearchCache>;
