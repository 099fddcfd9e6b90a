import { Meilisearch } from "meilisearch";
import { opening, type SearchServer, search } from "./searchBatches";

export type { Meilisearch };

/**
 * Every request asks Meilisearch for an uncompressed body. Bun's fetch sends
 * `Accept-Encoding: gzip, deflate, br, zstd` by default; Meilisearch then brotli-compresses each
 * response as a chunked stream. Measured here on 145k papers: that doubles Meilisearch's CPU per
 * search (~4 → ~2 ms on 2 cores) and its separately written chunks wait ~44 ms on the client's
 * delayed ACK over keep-alive (the "keep-alive stall"). Uncompressed responses carry a
 * Content-Length and go out in one write, so keep-alive is safe and connections are reused.
 */
const IDENTITY = { "Accept-Encoding": "identity" } as const;

export function createMeili(host: string, apiKey: string | undefined): Meilisearch {
  return new Meilisearch({ host, ...(apiKey ? { apiKey } : {}), requestInit: { headers: IDENTITY } });
}

const servers = new WeakMap<Meilisearch, SearchServer>();

function serverOf(meili: Meilisearch): SearchServer {
  let server = servers.get(meili);
  if (!server) {
    const { host, apiKey } = meili.config;
    const headers: Record<string, string> = { ...IDENTITY, "Content-Type": "application/json" };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    server = { base: host.replace(/\/+$/, ""), headers };
    servers.set(meili, server);
  }
  return server;
}

/**
 * A search without the JS client: the API's hot path. The client builds a URL, Headers, an
 * AbortController and a copy of its options per call, about 0.2–0.4 ms of CPU per search here;
 * this is one fetch with prebuilt headers, shared with other searches under load
 * (searchBatches.ts).
 */
export async function searchIndex<Hit>(meili: Meilisearch, uid: string, body: object): Promise<{ hits: Hit[] }> {
  return JSON.parse((await search(serverOf(meili), uid, body)).toString()) as { hits: Hit[] };
}

const ALONE = Buffer.from('{"hits":[');
const HITS_KEY = Buffer.from('"hits":[');
const HITS_END = Buffer.from('],"query":');

/** Where the hits array starts: after `{"hits":`, or after `{"indexUid":"…","hits":` from a multi-search. */
function hitsStart(bytes: Buffer, uid: string): number {
  if (bytes.subarray(0, ALONE.length).equals(ALONE)) return ALONE.length - 1;
  const open = opening(uid);
  const key = open.length + HITS_KEY.length;
  const batched = bytes.subarray(0, open.length).equals(open) && bytes.subarray(open.length, key).equals(HITS_KEY);
  return batched ? key - 1 : -1;
}

/**
 * A search whose hits stay JSON bytes: the API returns Meilisearch's bytes for them instead of
 * decoding ~25–35 KB per page to a string, parsing it and serialising it again (measured here:
 * parsing and serialising cost about 0.3 ms of the API's ~0.8 ms of CPU per search; decoding and
 * re-encoding the text about a tenth of what was left). Meilisearch writes `hits` first (after
 * `indexUid` in a multi-search) and `query` right after it; inside the hits the text `],"query":`
 * cannot occur, since string contents escape their quotes and no retrieved field is called `query`.
 * The other keys (`totalHits`, …) are parsed from the short rest. A body of another layout is
 * parsed as a whole, so a Meilisearch upgrade that changes it stays correct.
 */
export async function searchHitsJson<Meta>(
  meili: Meilisearch,
  uid: string,
  body: object,
): Promise<{ hits: Uint8Array; meta: Meta }> {
  const bytes = await search(serverOf(meili), uid, body);
  const start = hitsStart(bytes, uid);
  const end = start === -1 ? -1 : bytes.indexOf(HITS_END, start);
  if (end === -1) {
    const { hits, indexUid: _uid, ...meta } = JSON.parse(bytes.toString()) as { hits: unknown[]; indexUid?: string };
    return { hits: Buffer.from(JSON.stringify(hits)), meta: meta as Meta };
  }
  return {
    hits: bytes.subarray(start, end + 1),
    meta: JSON.parse(`{${bytes.toString("utf8", end + 2)}`) as Meta,
  };
}
