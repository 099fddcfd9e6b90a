/**
 * A small per-process cache of condition lookups, held by the REST condition routes (the MCP and
 * chat tools look up afresh). MONDO terms and papers change only when a loader runs, while the same
 * few names (asthma, diabetes, …) are asked again and again; a cached answer skips two Meilisearch
 * round trips and PostgreSQL. Entries live TTL_MS, so a reload shows within that time; the oldest
 * entry goes first when the cache is full. `null` records "no acceptable match", so repeated misses
 * are cheap too.
 */
const TTL_MS = 60_000;
const MAX_ENTRIES = 5_000;

export class LookupCache<V> {
  private readonly entries = new Map<string, { value: V | null; expires: number }>();

  constructor(
    private readonly ttlMs = TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The cached value, `null` for a cached miss, `undefined` when unknown or expired. */
  get(key: string): V | null | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > performance.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V | null): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: performance.now() + this.ttlMs });
  }
}
