/**
 * Searches a process sends to one Meilisearch server, coalesced under load.
 *
 * At most MAX_IN_FLIGHT HTTP requests are out at once. A search that finds a free slot goes alone
 * (`POST /indexes/{uid}/search`), so a quiet server adds no wait; searches that arrive while every
 * slot is busy queue, first come first served, and leave together, up to MAX_BATCH at a time, as
 * one `POST /multi-search`. Why: every HTTP request costs the sending process CPU (Bun's fetch,
 * the second hop in the kernel) whatever the search. On the 145k-paper index at 20 concurrent
 * clients, batching lowered the API's CPU per search by about a tenth with the same throughput and
 * p99 (docs/benchmarks.md); batches of 8, or 2 requests out, did worse.
 *
 * Each caller still gets its own search's answer: the multi-search answer is cut into its results,
 * each the bytes of a single search's answer (plus an `indexUid` key). If a batch fails as a whole
 * (Meilisearch refuses the whole request when one query is invalid), every search of it is sent
 * again alone, so each caller gets its own answer or its own error. A batch that gets no answer
 * (server unreachable, or SEARCH_TIMEOUT_MS passed) or a 5xx fails for each of its searches, and a
 * search that waited SEARCH_TIMEOUT_MS in the queue fails without being sent.
 */

/** HTTP requests out at once per server and process: Meilisearch runs about two searches at a time on 2 cores. */
export const MAX_IN_FLIGHT = 4;
/** Searches per multi-search: a batch waits for its slowest search, so batches stay small. */
export const MAX_BATCH = 4;

/**
 * How long a search request may take before it fails (and its callers get a 503): a hung server
 * must not hold the lane's few slots, and every search queued behind them, for ever.
 */
export const SEARCH_TIMEOUT_MS = 10_000;

export interface SearchServer {
  /** `http://host:port` without a trailing slash. */
  base: string;
  headers: Record<string, string>;
  /** SEARCH_TIMEOUT_MS unless a test sets a shorter one. */
  timeoutMs?: number;
}

interface Queued {
  uid: string;
  /** The search body as JSON, serialised when queued (a body that cannot be fails alone). */
  json: string;
  /** Monotonic time after which a search still waiting fails instead of being sent. */
  deadline: number;
  resolve: (answer: Buffer) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  inFlight: number;
  queue: Queued[];
}

const lanes = new WeakMap<SearchServer, Lane>();

function laneOf(server: SearchServer): Lane {
  let lane = lanes.get(server);
  if (!lane) {
    lane = { inFlight: 0, queue: [] };
    lanes.set(server, lane);
  }
  return lane;
}

/** One search's answer as Meilisearch's UTF-8 bytes, alone or inside a batch. */
export function search(server: SearchServer, uid: string, body: object): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const lane = laneOf(server);
    const deadline = performance.now() + (server.timeoutMs ?? SEARCH_TIMEOUT_MS);
    lane.queue.push({ uid, json: JSON.stringify(body), deadline, resolve, reject });
    pump(server, lane);
  });
}

/** Searches waiting and requests out for this server (the tests check that a failure frees its slot). */
export function laneState(server: SearchServer): { inFlight: number; queued: number } {
  const lane = laneOf(server);
  return { inFlight: lane.inFlight, queued: lane.queue.length };
}

/** How many requests of each batch size this process has sent (`1`: a search alone); the tests read it. */
export const batchSizes = new Map<number, number>();

function pump(server: SearchServer, lane: Lane): void {
  while (lane.inFlight < MAX_IN_FLIGHT && lane.queue.length > 0) {
    const batch = takeBatch(lane);
    if (batch.length === 0) continue;
    lane.inFlight += 1;
    batchSizes.set(batch.length, (batchSizes.get(batch.length) ?? 0) + 1);
    void settle(server, batch)
      // Rejecting a search already answered does nothing, so this fails only those still waiting.
      .catch((error) => {
        for (const queued of batch) queued.reject(error);
      })
      .finally(() => {
        lane.inFlight -= 1;
        pump(server, lane);
      });
  }
}

/**
 * Up to MAX_BATCH searches from the head of the queue. One that waited past its deadline fails
 * here instead (its caller answers 503): when the server hangs, the queue drains rather than grows.
 */
function takeBatch(lane: Lane): Queued[] {
  const now = performance.now();
  const batch: Queued[] = [];
  while (batch.length < MAX_BATCH && lane.queue.length > 0) {
    const queued = lane.queue.shift() as Queued;
    if (now < queued.deadline) batch.push(queued);
    else queued.reject(new Error(`Meilisearch search on ${queued.uid} waited too long for a connection`));
  }
  return batch;
}

/** Answers every search of the batch; a failure it throws fails them all (see `pump`). */
async function settle(server: SearchServer, batch: Queued[]): Promise<void> {
  if (batch.length === 1) {
    const [queued] = batch as [Queued];
    return queued.resolve(await sendOne(server, queued));
  }
  // Each body is an object's JSON, so `indexUid` goes in after its opening brace.
  const queries = batch.map(
    ({ uid, json }) => `{"indexUid":${JSON.stringify(uid)}${json === "{}" ? "}" : `,${json.slice(1)}`}`,
  );
  // Unreachable or timed out: the error fails the batch (sending each search again would only wait
  // as long once more).
  const answer = await post(server, "/multi-search", `{"queries":[${queries.join(",")}]}`);
  if (answer.status >= 400 && answer.status < 500) {
    // Refused as a whole (one invalid query refuses the request): each search alone gets its own answer.
    await Promise.all(batch.map((queued) => sendOne(server, queued).then(queued.resolve, queued.reject)));
    return;
  }
  // The server's own trouble (5xx) fails the batch too: more requests now would only add to it.
  if (!answer.ok) throw new Error(`Meilisearch multi-search answered ${answer.status}: ${answer.bytes}`);
  const pieces = splitResults(
    answer.bytes,
    batch.map((queued) => queued.uid),
  );
  for (const [i, queued] of batch.entries()) queued.resolve(pieces[i] as Buffer);
}

/**
 * Search is read-only, so a request that fails before any answer (a pooled keep-alive connection
 * the server closed meanwhile) is sent once more.
 */
async function post(
  server: SearchServer,
  path: string,
  body: string,
): Promise<{ ok: boolean; status: number; bytes: Buffer }> {
  const url = `${server.base}${path}`;
  const signal = AbortSignal.timeout(server.timeoutMs ?? SEARCH_TIMEOUT_MS);
  const init = { method: "POST", headers: server.headers, body, signal };
  const response = await fetch(url, init).catch(() => fetch(url, init));
  return { ok: response.ok, status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A search Meilisearch answered with an error; `code` is its error code (`invalid_search_…`). */
class SearchRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "SearchRefused";
  }
}

/**
 * Meilisearch knows an index's fields only from its documents: until one has `title`, a search on
 * it is refused although the settings list it. Such an index holds nothing to find.
 */
export function isUnknownSearchField(error: unknown): boolean {
  return error instanceof SearchRefused && error.code === "invalid_search_attributes_to_search_on";
}

async function sendOne(server: SearchServer, { uid, json }: Queued): Promise<Buffer> {
  const answer = await post(server, `/indexes/${encodeURIComponent(uid)}/search`, json);
  if (!answer.ok) {
    const code = (() => {
      try {
        return (JSON.parse(answer.bytes.toString()) as { code?: string }).code;
      } catch {
        return undefined;
      }
    })();
    throw new SearchRefused(
      answer.status,
      code,
      `Meilisearch search on ${uid} answered ${answer.status}: ${answer.bytes}`,
    );
  }
  return answer.bytes;
}

const RESULTS_START = Buffer.from('{"results":[');
const RESULTS_END = Buffer.from("]}");
const NEXT_RESULT = Buffer.from('},{"indexUid":');

/**
 * Cuts `{"results":[R1,R2,…]}` into the bytes of each result. Meilisearch writes each result as
 * `{"indexUid":…,"hits":[…],…}`; between two results the text `},{"indexUid":` cannot occur inside
 * a result, since string contents escape their quotes and no retrieved field or facet is called
 * `indexUid`. Every piece is checked to open with its own index's uid; an answer of any other
 * layout is parsed as a whole, so a Meilisearch upgrade that changes it stays correct.
 */
export function splitResults(bytes: Buffer, uids: string[]): Buffer[] {
  const pieces: Buffer[] = [];
  if (bytes.subarray(0, RESULTS_START.length).equals(RESULTS_START) && bytes.subarray(-2).equals(RESULTS_END)) {
    let start = RESULTS_START.length;
    for (const uid of uids) {
      const found = bytes.indexOf(NEXT_RESULT, start);
      const last = pieces.length === uids.length - 1;
      // A result ends at its `}`: before the next result's opening, or before the closing `]}`.
      const end = last ? (found === -1 ? bytes.length - RESULTS_END.length : -1) : found + 1;
      if (end <= start) break;
      const piece = bytes.subarray(start, end);
      const open = opening(uid);
      if (!piece.subarray(0, open.length).equals(open)) break;
      pieces.push(piece);
      start = end + 1;
    }
    if (pieces.length === uids.length) return pieces;
  }
  const { results } = JSON.parse(bytes.toString()) as { results: { indexUid?: string }[] };
  if (results.length !== uids.length || results.some((result, i) => result.indexUid !== uids[i])) {
    throw new Error(`Meilisearch answered results that do not match the ${uids.length} searches sent`);
  }
  return results.map((result) => Buffer.from(JSON.stringify(result)));
}

/** How a multi-search result for `uid` opens: `{"indexUid":"<uid>",`. */
function opening(uid: string): Buffer {
  return Buffer.from(`{"indexUid":${JSON.stringify(uid)},`);
}
